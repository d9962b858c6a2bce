/**
 * @module
 * A worker's report into Deno KV. Deltas are added with `sum`, which needs no read and no check, so workers
 * never contend on state. `sum` has no decrement, but it wraps around at 2^64 (Deno KV docs, `KvMutation`),
 * so a negative delta is added as its two's complement and read back as a signed 64-bit number.
 *
 * Each report id is applied once: every commit checks that its `[reportId, chunk]` record is absent and
 * writes it. A `once` entry adds a check that its room-wide claim (`[room, 'once', key]`, expiring after the
 * once retention) is absent and writes it with the entry's deltas, in that same commit — so of any number of
 * concurrent reports carrying one key, from any location, exactly one commit adds its deltas. A commit that fails its checks reads which check failed: its own id
 * (a retry, applied before: done) or once keys (another report won them: left out, committed again).
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { changesState, lostMinuteIn, onceRetentionMinutes, type WorkerReport } from '../../src/coordination/state.ts'
import type { RoomKeys } from './keys.ts'
import { DRIVER_NAME, MAX_GET_MANY, MAX_MUTATIONS, retryBusy, type KvKey, type KvLike } from './kv.ts'

export interface ReportSettings {
  fieldsPerCommit: number
  reportIdTtlMs: number
  maxAttempts: number
}

/** One commit's share of a report: plain delta fields, and `once` keys. */
export interface ReportChunk {
  fields: string[]
  once: string[]
}

/** A commit holds at most 100 checks (Deno KV limits); one is the report id's. */
const MAX_ONCE_PER_COMMIT = 99
/** Two mutations of a commit are the report id and `@updated`. */
const MAX_ENTRY_MUTATIONS = MAX_MUTATIONS - 2

/**
 * Splits a report into commits of at most `fieldsPerCommit` mutations: sorted fields first, then sorted
 * once keys (each costs its key and its deltas). The split depends only on the report, so a retried report
 * splits the same way and every chunk id still names the same part. A small report is one commit.
 */
export function reportChunks(report: WorkerReport, fieldsPerCommit: number): ReportChunk[] {
  const chunks: ReportChunk[] = []
  let chunk: ReportChunk = { fields: [], once: [] }
  let mutations = 0
  const close = () => {
    chunks.push(chunk)
    chunk = { fields: [], once: [] }
    mutations = 0
  }
  for (const field of Object.keys(report.deltas).sort()) {
    if (report.deltas[field] === 0) continue
    if (mutations >= fieldsPerCommit) close()
    chunk.fields.push(field)
    mutations++
  }
  const once = report.once ?? {}
  for (const key of Object.keys(once).sort()) {
    const cost = 1 + Object.keys(once[key]!).length
    if (cost > MAX_ENTRY_MUTATIONS) {
      throw new WaitingRoomError('ERR_WR_COORDINATOR', `${DRIVER_NAME}: once entry ${key} has ${cost - 1} deltas; at most ${MAX_ENTRY_MUTATIONS - 1} fit a commit`)
    }
    if (mutations > 0 && (mutations + cost > fieldsPerCommit || chunk.once.length >= MAX_ONCE_PER_COMMIT)) close()
    chunk.once.push(key)
    mutations += cost
  }
  if (mutations > 0 || chunks.length === 0) close()
  return chunks
}

/** Adds a report's deltas and once entries to its location, each report id and each once key once. */
export async function applyReport(kv: KvLike, keys: RoomKeys, report: WorkerReport, settings: ReportSettings): Promise<void> {
  const chunks = reportChunks(report, settings.fieldsPerCommit)
  for (let index = 0; index < chunks.length; index++) await applyChunk(kv, keys, report, chunks[index]!, index, settings)
}

async function applyChunk(kv: KvLike, keys: RoomKeys, report: WorkerReport, chunk: ReportChunk, index: number, settings: ReportSettings): Promise<void> {
  const reportKey = keys.report(report.id, index)
  const onceRetentionMs = (onceRetentionMinutes(report.keepMinutes) + 1) * 60_000
  const won = new Set<string>()
  for (let attempt = 1; ; attempt++) {
    const once = chunk.once.filter((key) => !won.has(key))
    const commit = () => {
      const op = kv.atomic().check({ key: reportKey, versionstamp: null }).set(reportKey, true, { expireIn: settings.reportIdTtlMs })
      if (index === 0) op.max(keys.updatedAt(report.location), BigInt(Math.max(0, Math.floor(report.at))))
      // A report that changes the state advances its generation in its first commit (generation.ts).
      if (index === 0 && changesState(report)) op.sum(keys.generation, 1n)
      const sums = new Map<string, number>()
      const add = (field: string, delta: number) => sums.set(field, (sums.get(field) ?? 0) + delta)
      for (const field of chunk.fields) add(field, report.deltas[field]!)
      for (const key of once) {
        op.check({ key: keys.once(key), versionstamp: null }).set(keys.once(key), true, { expireIn: onceRetentionMs })
        for (const [field, delta] of Object.entries(report.once![key]!)) add(field, delta)
      }
      for (const [field, total] of sums) if (total !== 0) op.sum(keys.field(report.location, field), toU64(field, total))
      // A loss mark moves the room's lost minute in the same commit: grants check it (counters.ts).
      const lost = lostMinuteIn(Object.fromEntries(sums))
      if (lost !== undefined) op.max(keys.lost, BigInt(lost))
      return op.commit()
    }
    // Committing again while the file is busy is safe: the same checks still guard it.
    const { ok } = await retryBusy(`applying report ${report.id}`, settings.maxAttempts, commit)
    // With no once check, only this chunk's id can have failed: a retry, applied before.
    if (ok || once.length === 0) return
    const present = await presentKeys(kv, [reportKey, ...once.map((key) => keys.once(key))], settings.maxAttempts)
    if (present[0]) return
    once.forEach((key, i) => present[i + 1] && won.add(key))
    if (attempt >= settings.maxAttempts) {
      throw new WaitingRoomError(
        'ERR_WR_COORDINATOR',
        `${DRIVER_NAME}: report ${report.id} of room ${report.roomId} was still contended after ${attempt} attempts; raise the maxAttempts option`,
      )
    }
  }
}

/** Which of `keys` exist, read strongly, MAX_GET_MANY at a time. */
async function presentKeys(kv: KvLike, keys: KvKey[], maxAttempts: number): Promise<boolean[]> {
  const reads: Promise<readonly { versionstamp: string | null }[]>[] = []
  for (let i = 0; i < keys.length; i += MAX_GET_MANY) {
    const part = keys.slice(i, i + MAX_GET_MANY)
    reads.push(retryBusy('reading once keys', maxAttempts, () => kv.getMany(part, { consistency: 'strong' })))
  }
  return (await Promise.all(reads)).flat().map((entry) => entry.versionstamp !== null)
}

export function toU64(field: string, delta: number): bigint {
  if (!Number.isSafeInteger(delta)) {
    throw new WaitingRoomError('ERR_WR_COORDINATOR', `${DRIVER_NAME}: delta of ${field} must be an integer, got ${delta}`)
  }
  return BigInt.asUintN(64, BigInt(delta))
}
