/**
 * @module
 * Reading the room state on Deno KV: one key per (location, field) holding a `Deno.KvU64` (written by
 * report.ts and by the counters' grants), read as a signed 64-bit number: −1 is summed as 2^64 − 1. The
 * room's epoch is read by the same `list`, and created set-if-absent when it is not there.
 *
 * `sum` takes no `expireIn`, so state is pruned explicitly instead: a field's minute is in its name, fields
 * older than the room keeps are left out of every answer and deleted when seen (the reporting worker's
 * clock, `report.at`, decides, as it does for the in-memory aggregator).
 */
import { generationOf } from './generation.ts'
import { minuteOf } from '../../src/clock.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import { fieldMinute, type LocationState, type RoomEpoch, type RoomState } from '../../src/coordination/state.ts'
import { UPDATED_AT, type RoomKeys } from './keys.ts'
import { DRIVER_NAME, MAX_LIST_BATCH, MAX_MUTATIONS, retryBusy, type KvConsistency, type KvEntryMaybe, type KvKey, type KvLike } from './kv.ts'

export interface StateSettings {
  maxAttempts: number
  consistency: KvConsistency
}

/** A location with no report for this long is dropped from the answer, like the in-memory global aggregator. */
export const FORGET_LOCATION_AFTER_MS = 24 * 60 * 60_000

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
  let epoch: RoomEpoch | undefined
  let generation = 0
  for await (const entry of kv.list({ prefix: keys.state }, { consistency, batchSize: MAX_LIST_BATCH })) {
    if (entry.key.length === keys.epoch.length && entry.key[depth] === keys.epoch[depth]) {
      epoch = toEpoch(entry.key, entry.value)
      continue
    }
    if (entry.key.length === keys.generation.length && entry.key[depth] === keys.generation[depth]) {
      generation = generationOf(entry)
      continue
    }
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
  return epoch ? { locations, at, epoch, generation } : { locations, at, generation }
}

/**
 * The room's epoch, creating it as `candidate` if absent: a set-if-absent commit, and when another worker
 * created it first, a strong read of theirs. Called when the state read found none.
 */
export async function ensureEpoch(kv: KvLike, keys: RoomKeys, candidate: RoomEpoch, settings: StateSettings): Promise<RoomEpoch> {
  for (let attempt = 1; ; attempt++) {
    const created = () => kv.atomic().check({ key: keys.epoch, versionstamp: null }).set(keys.epoch, candidate).commit()
    if ((await retryBusy('creating the room epoch', settings.maxAttempts, created)).ok) return candidate
    const read = () => kv.getMany([keys.epoch], { consistency: 'strong' })
    const entry: KvEntryMaybe = (await retryBusy('reading the room epoch', settings.maxAttempts, read))[0]!
    // Absent again only if someone deleted it in between: create it again.
    if (entry.versionstamp !== null || attempt >= settings.maxAttempts) return toEpoch(entry.key, entry.value)
  }
}

function toEpoch(key: KvKey, value: unknown): RoomEpoch {
  const epoch = value as Partial<RoomEpoch> | null
  if (typeof epoch?.id === 'string' && typeof epoch.startedAt === 'number') return { id: epoch.id, startedAt: epoch.startedAt }
  throw new WaitingRoomError(
    'ERR_WR_COORDINATOR',
    `${DRIVER_NAME}: key ${JSON.stringify(key.map(String))} holds no room epoch; another program writes under this prefix — give the coordinator its own \`prefix\``,
  )
}
