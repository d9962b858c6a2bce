/**
 * @module
 * The room's history in its global Durable Object (one per room), in the object's synchronous KV storage:
 * `h:{minute}:{location}` → fields, counters added and gauges (`max:` fields) max-merged, and `hb:{minute}:{id}`
 * for each batch applied (the minute the batch was sent in, so a resend finds the same key). The object runs one
 * call at a time and its KV API is synchronous, so check-then-write needs no transaction. Minutes are zero-padded
 * so keys sort by time: a range read and the retention prune are each one `list`.
 */
import { HISTORY_DEDUPE_MINUTES, mergeFields, oldestKeptMinute, validBatch, type HistoryBatch, type HistoryQuery, type HistoryRow } from '../../src/history/model.ts'

/** The object storage's synchronous KV API (a SQLite-backed object's `ctx.storage.kv`). */
export interface ObjectKv {
  get<T = unknown>(key: string): T | undefined
  put<T>(key: string, value: T): void
  delete(key: string): boolean
  list<T = unknown>(options?: { prefix?: string; start?: string; end?: string }): Iterable<[string, T]>
}

const ROW = 'h:'
const BATCH = 'hb:'
/** Wide enough for every minute until the year 20000. */
const pad = (minute: number): string => String(Math.max(0, minute)).padStart(10, '0')

/** Deletes the keys of `prefix` before `end` (exclusive). */
function deleteBefore(kv: ObjectKv, prefix: string, end: string): void {
  const old = [...kv.list({ start: prefix, end })].map(([key]) => key)
  for (const key of old) kv.delete(key)
}

export class ObjectHistory {
  readonly #kv: ObjectKv
  #prunedTo = Number.NEGATIVE_INFINITY

  constructor(kv: ObjectKv) {
    this.#kv = kv
  }

  record(batch: HistoryBatch): void {
    if (!validBatch(batch)) throw new TypeError('recordHistory: malformed batch')
    const kv = this.#kv
    const sent = Math.floor(batch.at / 60_000)
    const oldest = oldestKeptMinute(batch)
    if (oldest > this.#prunedTo) {
      this.#prunedTo = oldest
      deleteBefore(kv, ROW, ROW + pad(oldest))
    }
    deleteBefore(kv, BATCH, BATCH + pad(sent - HISTORY_DEDUPE_MINUTES))
    const marker = `${BATCH}${pad(sent)}:${batch.id}`
    if (kv.get(marker) !== undefined) return
    kv.put(marker, 1)
    for (const row of batch.rows) {
      if (row.minute < oldest) continue
      const key = `${ROW}${pad(row.minute)}:${row.location}`
      const fields = kv.get<Record<string, number>>(key) ?? {}
      mergeFields(fields, row.fields)
      kv.put(key, fields)
    }
  }

  read(query: HistoryQuery): HistoryRow[] {
    const rows: HistoryRow[] = []
    const from = Math.max(0, query.fromMinute)
    if (query.toMinute <= from) return rows
    for (const [key, fields] of this.#kv.list<Record<string, number>>({ start: ROW + pad(from), end: ROW + pad(query.toMinute) })) {
      const rest = key.slice(ROW.length)
      rows.push({ minute: Number(rest.slice(0, 10)), location: rest.slice(11), fields })
    }
    return rows
  }
}
