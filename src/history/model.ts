/**
 * @module
 * The room's history: per minute and per location, a handful of numbers — never per-user records — so what
 * a backend stores is bounded by minutes × locations whatever the traffic. Two kinds of field, told apart by
 * their name so every backend applies one rule:
 * - counters (`adm`, `arr`, histogram bins `wq{i}` / `so{i}`, open extra counters `x.{name}`) are ADDED: the
 *   deltas of every worker and location sum up, in any order (HINCRBY, Deno KV `sum`, SQL `value + ?`);
 * - gauges (`max:{name}`) are MAX-merged: each worker sends the room-wide value its snapshot showed in that
 *   minute (every worker sees the whole room, all locations), and the minute keeps the highest one seen. Max
 *   is commutative and idempotent, so several workers, retries and any arrival order give the same answer:
 *   the minute's peak as any worker saw it (a sync lag of a second or two late, never double counted).
 *
 * A batch is applied once per id (a retried write after a lost reply adds nothing the second time).
 */

/** Default retention: 7 days of minutes. */
export const DEFAULT_HISTORY_RETENTION_MINUTES = 7 * 24 * 60

/**
 * How long a backend remembers a batch id. A worker resends an unacknowledged batch only within this time
 * (after it, the batch is dropped, not resent): so a batch is never applied twice, and the ids a backend
 * holds are bounded by the writes of one hour, not by the retention.
 */
export const HISTORY_DEDUPE_MINUTES = 60

/** One (minute, location) of history: field → value. */
export interface HistoryRow {
  /** Minute number (ms / 60 000). */
  minute: number
  location: string
  fields: Record<string, number>
}

/** What a worker sends: its deltas (counters) and observations (gauges), applied once per `id`. */
export interface HistoryBatch {
  /** Unique per batch; a backend applies an id once (it remembers ids as long as it keeps their minutes). */
  id: string
  roomId: string
  /** ms at which the worker sent it. */
  at: number
  /** Minutes the backend keeps: rows older than `minuteOf(at) − retentionMinutes` are pruned. */
  retentionMinutes: number
  rows: HistoryRow[]
}

export interface HistoryQuery {
  roomId: string
  /** First minute, inclusive. */
  fromMinute: number
  /** Last minute, exclusive. */
  toMinute: number
}

/** The optional pair of coordinator methods that keep history. */
export interface HistoryStore {
  recordHistory(batch: HistoryBatch): Promise<void>
  /** Rows of minutes in [fromMinute, toMinute), any order, one or more per (minute, location). */
  readHistory(query: HistoryQuery): Promise<HistoryRow[]>
}

export const MAX_PREFIX = 'max:'
/** Field names. */
export const F = {
  admissions: 'adm',
  arrivals: 'arr',
  activeUsers: `${MAX_PREFIX}active`,
  waitingUsers: `${MAX_PREFIX}waiting`,
  limit: `${MAX_PREFIX}limit`,
  newUsersPerMinute: `${MAX_PREFIX}rate`,
  waitMaxSeconds: `${MAX_PREFIX}waitmax`,
  waitBin: (i: number): string => `wq${i}`,
  sessionBin: (i: number): string => `so${i}`,
  extra: (name: string): string => `x.${name}`,
} as const

/** True for a gauge (max-merged) field. */
export const isMaxField = (field: string): boolean => field.startsWith(MAX_PREFIX)

/** Merges `fields` into `into` in place: counters added (a sum of 0 is dropped), gauges max-merged. */
export function mergeFields(into: Record<string, number>, fields: Record<string, number>): void {
  for (const field in fields) mergeField(into, field, fields[field]!)
}

/** {@link mergeFields} of one field (no object built for it: a flood counts an arrival per request). */
export function mergeField(into: Record<string, number>, field: string, value: number): void {
  if (!Number.isFinite(value)) return
  if (isMaxField(field)) into[field] = Math.max(into[field] ?? -Infinity, value)
  else {
    const sum = (into[field] ?? 0) + value
    if (sum === 0) delete into[field]
    else into[field] = sum
  }
}

/** The oldest minute a backend keeps after a batch sent at `at`. */
export const oldestKeptMinute = (batch: Pick<HistoryBatch, 'at' | 'retentionMinutes'>): number =>
  Math.floor(batch.at / 60_000) - batch.retentionMinutes

/** Rows that are well formed: integer minutes, string locations, finite numbers (what backends accept). */
export function validBatch(batch: HistoryBatch): boolean {
  if (typeof batch?.id !== 'string' || typeof batch.roomId !== 'string' || !Array.isArray(batch.rows)) return false
  if (!Number.isFinite(batch.at) || !Number.isInteger(batch.retentionMinutes) || batch.retentionMinutes < 1) return false
  return batch.rows.every(
    (row) =>
      Number.isInteger(row.minute) &&
      typeof row.location === 'string' &&
      typeof row.fields === 'object' &&
      row.fields !== null &&
      Object.values(row.fields).every((value) => Number.isSafeInteger(value)),
  )
}
