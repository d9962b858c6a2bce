/**
 * @module
 * The room state on Deno KV: one key per (location, field) holding a `Deno.KvU64`. Workers' reports are
 * added with `sum`, which needs no read and no check, so workers never contend on state. `sum` has no
 * decrement, but it wraps around at 2^64 (Deno KV docs, `KvMutation`), so a negative delta is added as its
 * two's complement and read back as a signed 64-bit number: −1 is summed as 2^64 − 1.
 *
 * `sum` takes no `expireIn`, so state is pruned explicitly instead: a field's minute is in its name, fields
 * older than the room keeps are left out of every answer and deleted when seen (the reporting worker's
 * clock, `report.at`, decides, as it does for the in-memory aggregator).
 */
import { minuteOf } from '../../src/clock.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import { fieldMinute, type LocationState, type RoomState, type WorkerReport } from '../../src/coordination/state.ts'
import { UPDATED_AT, type RoomKeys } from './keys.ts'
import { DRIVER_NAME, MAX_LIST_BATCH, MAX_MUTATIONS, retryBusy, type KvConsistency, type KvKey, type KvLike } from './kv.ts'

export interface StateSettings {
  fieldsPerCommit: number
  reportIdTtlMs: number
  maxAttempts: number
  consistency: KvConsistency
}

/** A location with no report for this long is dropped from the answer, like the in-memory global aggregator. */
export const FORGET_LOCATION_AFTER_MS = 24 * 60 * 60_000

/**
 * Adds a report's deltas to its location, each report id once. A report larger than `fieldsPerCommit` is
 * split into chunks with ids of their own (`[reportId, chunk]`): the fields are sorted, so a retried report
 * splits the same way and every chunk is still applied once, even if only some landed the first time.
 */
export async function applyReport(kv: KvLike, keys: RoomKeys, report: WorkerReport, settings: StateSettings): Promise<void> {
  const { fieldsPerCommit } = settings
  const fields = Object.keys(report.deltas).filter((field) => report.deltas[field] !== 0).sort()
  const amounts = new Map(fields.map((field) => [field, toU64(field, report.deltas[field]!)]))
  const chunks = Math.max(1, Math.ceil(fields.length / fieldsPerCommit))
  for (let chunk = 0; chunk < chunks; chunk++) {
    const commit = () => {
      const reportKey = keys.report(report.id, chunk)
      const op = kv.atomic().check({ key: reportKey, versionstamp: null }).set(reportKey, true, { expireIn: settings.reportIdTtlMs })
      if (chunk === 0) op.max(keys.updatedAt(report.location), BigInt(Math.max(0, Math.floor(report.at))))
      for (const field of fields.slice(chunk * fieldsPerCommit, (chunk + 1) * fieldsPerCommit)) {
        op.sum(keys.field(report.location, field), amounts.get(field)!)
      }
      return op.commit()
    }
    // ok: false means this chunk's id is already there: a retry, applied before.
    await retryBusy(`applying report ${report.id}`, settings.maxAttempts, commit)
  }
}

/** Every location's state, fields older than `keepMinutes` before `at` left out and deleted. */
export function readRoomState(kv: KvLike, keys: RoomKeys, at: number, keepMinutes: number, settings: StateSettings): Promise<RoomState> {
  return retryBusy('reading the room state', settings.maxAttempts, () => listRoomState(kv, keys, at, keepMinutes, settings.consistency))
}

async function listRoomState(kv: KvLike, keys: RoomKeys, at: number, keepMinutes: number, consistency: KvConsistency): Promise<RoomState> {
  // keepMinutes 0 means no limit, as in the in-memory aggregator.
  const oldestMinute = keepMinutes > 0 ? minuteOf(at) - keepMinutes : Number.NEGATIVE_INFINITY
  const locations: Record<string, LocationState> = {}
  const expired: KvKey[] = []
  const depth = keys.state.length
  for await (const entry of kv.list({ prefix: keys.state }, { consistency, batchSize: MAX_LIST_BATCH })) {
    const location = entry.key[depth]
    const field = entry.key[depth + 1]
    const value = (entry.value as { value?: unknown } | null)?.value
    if (typeof location !== 'string' || typeof field !== 'string' || typeof value !== 'bigint') continue
    const state = (locations[location] ??= { counts: {}, updatedAt: 0 })
    if (field === UPDATED_AT) {
      state.updatedAt = Number(value)
    } else if (fieldMinute(field) < oldestMinute) {
      expired.push(entry.key)
    } else {
      const count = Number(BigInt.asIntN(64, value))
      if (count !== 0) state.counts[field] = count
    }
  }
  for (const location in locations) {
    if (locations[location]!.updatedAt >= at - FORGET_LOCATION_AFTER_MS) continue
    delete locations[location]
    expired.push(keys.updatedAt(location))
  }
  for (let i = 0; i < expired.length; i += MAX_MUTATIONS) {
    const op = kv.atomic()
    for (const key of expired.slice(i, i + MAX_MUTATIONS)) op.delete(key)
    await op.commit()
  }
  return { locations, at }
}

function toU64(field: string, delta: number): bigint {
  if (!Number.isSafeInteger(delta)) {
    throw new WaitingRoomError('ERR_WR_COORDINATOR', `${DRIVER_NAME}: delta of ${field} must be an integer, got ${delta}`)
  }
  return BigInt.asUintN(64, BigInt(delta))
}
