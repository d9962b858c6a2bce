/**
 * @module
 * `takeSlots`: a batch of new users' decisions as one EVALSHA per room (take-slots-script.ts). The core sends the
 * slot requests one worker receives in one turn of its event loop (src/coordination/slot-batch.ts), so a crowd's
 * decisions share the script's fixed cost in Redis and one round trip (#16).
 */
import type { SlotRequest, SlotResult } from '../../src/coordination/coordinator.ts'
import { reentryExpiresAfter } from '../../src/coordination/moves.ts'
import type { RoomEpoch } from '../../src/coordination/state.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import type { RoomKeys } from './keys.ts'
import { DRIVER_NAME, replyArray, replyInteger, runScript, type RedisScripting } from './run-script.ts'
import { newAttempt, recoveryArg, reportedArg, seenArgs } from './script-args.ts'
import { INDEX_BASE, PICK, PROFILE_FIELDS, takeSlotScript } from './take-slots-script.ts'

/** The script's keys and arguments for requests of one room (see take-slots-script.ts for the layout). */
export function takeSlotsCall(keys: RoomKeys, requests: readonly SlotRequest[], synced: RoomEpoch | undefined): [string[], string[]] {
  // Each key sent once, the string keys (read by the script's MGET) first: the room's three, the counters, the tickets.
  const read = [keys.lost, keys.epoch, keys.generation]
  const written: string[] = []
  const indexes = new Map<string, number>()
  const indexOf = (key: string, list: string[]): number => {
    let index = indexes.get(key)
    if (index === undefined) indexes.set(key, (index = list.push(key)))
    return index
  }
  // Requests of one location and view share a profile: its fields are sent once.
  const profiles = new Map<string, number>()
  const fields: string[] = []
  const picks: number[] = []
  const profileOf = (request: SlotRequest): number => {
    const { location, minute, reentry } = request
    const own = [
      String(request.localLimit),
      String(request.anywhereLimit),
      reportedArg(request.localPreviousReported),
      reportedArg(request.anywherePreviousReported),
      String(minute),
      recoveryArg(minute, request.recoveryMinutes),
      ...seenArgs(request, synced),
      reentry ? String(Math.max(60, (reentryExpiresAfter(reentry, minute) - minute + 1) * 60)) : '',
    ]
    // The location last: the fields before it hold no NUL, so no two profiles share an id.
    const id = `${own.join('\0')}\0${reentry?.ticket ?? ''}\0${location}`
    let profile = profiles.get(id)
    if (profile === undefined) {
      profiles.set(id, (profile = profiles.size + 1))
      const counters = [keys.counter(location, minute), keys.counter(location, minute - 1), keys.anywhere(minute), keys.anywhere(minute - 1)]
      fields.push(String(counters.reduceRight((packed, key) => packed * INDEX_BASE + indexOf(key, read), 0)), '', ...own)
    }
    return profile
  }
  for (const request of requests) picks.push(profileOf(request))
  // The tickets after every counter, then the hashes and registers after every string key.
  requests.forEach((request, i) => (picks[i] = indexOf(keys.token(request.minute, request.token), read) * PICK + picks[i]!))
  const readCount = read.length
  for (const [at, request] of requests.entries()) {
    const base = (picks[at]! % PICK - 1) * PROFILE_FIELDS
    if (fields[base + 1] !== '') continue
    const hash = readCount + indexOf(keys.location(request.location), written)
    const register = request.reentry ? readCount + indexOf(keys.registerPrefix + request.reentry.ticket, written) : hash
    fields[base + 1] = String(register * INDEX_BASE + hash)
  }
  return [
    [...read, ...written],
    [newAttempt(), String(profiles.size), String(readCount), ...fields, ...picks.map(String)],
  ]
}

/** Most requests one script call decides (the core sends at most 64: slot-batch.ts MAX_SLOT_BATCH). */
export const MAX_CALL_REQUESTS = 1000

/** One request's answer from its packed code (see the script's reply). */
function slotResult(code: number, roundTrips: number): SlotResult {
  if (code < 0) return { admitted: false, recovering: true, roundTrips }
  const via = code & 3
  if (via !== 1 && via !== 2) return { admitted: false, roundTrips }
  const repeat = (code & 4) === 4
  return { admitted: true, via: via === 1 ? 'location' : 'anywhere', repeat, roundTrips, ...(repeat ? {} : { seq: Math.floor(code / 8) }) }
}

/**
 * Decides requests of one room in one script call. The first result carries the call's round trips (1, or 2 when
 * the script had to be loaded), the others 0: they shared it.
 */
export async function takeSlotsOfRoom(redis: RedisScripting, keys: RoomKeys, requests: readonly SlotRequest[], synced: RoomEpoch | undefined): Promise<SlotResult[]> {
  if (requests.length > MAX_CALL_REQUESTS) {
    // In order, one call after another: Lua's stack holds the MGET's keys (a few thousand at most).
    const results: SlotResult[] = []
    for (let at = 0; at < requests.length; at += MAX_CALL_REQUESTS) results.push(...(await takeSlotsOfRoom(redis, keys, requests.slice(at, at + MAX_CALL_REQUESTS), synced)))
    return results
  }
  const { reply, roundTrips } = await runScript(redis, takeSlotScript, ...takeSlotsCall(keys, requests, synced))
  const codes = replyArray(takeSlotScript, reply)
  if (codes.length !== requests.length) {
    throw new WaitingRoomError('ERR_WR_COORDINATOR', `${DRIVER_NAME}: script ${takeSlotScript.name} answered ${codes.length} results for ${requests.length} requests`)
  }
  return codes.map((code, i) => slotResult(replyInteger(takeSlotScript, code), i === 0 ? roundTrips : 0))
}

/** Requests grouped by room, in arrival order within each (a script call touches one room's hash slot). */
export function byRoom(requests: readonly SlotRequest[]): Map<string, number[]> {
  const rooms = new Map<string, number[]>()
  requests.forEach((request, i) => {
    const indexes = rooms.get(request.roomId)
    if (indexes) indexes.push(i)
    else rooms.set(request.roomId, [i])
  })
  return rooms
}
