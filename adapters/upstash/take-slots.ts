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
import { takeSlotScript } from './take-slots-script.ts'

/** The script's keys and arguments for requests of one room (see take-slots-script.ts for the layout). */
export function takeSlotsCall(keys: RoomKeys, requests: readonly SlotRequest[], synced: RoomEpoch | undefined): [string[], string[]] {
  // Requests of one location and view share a profile: its counters and fields are sent once.
  const profiles = new Map<string, number>()
  const counters: string[] = []
  const sides: string[] = []
  const fields: string[] = []
  const tokens: string[] = []
  const picks: string[] = []
  for (const request of requests) {
    const { location, minute, reentry } = request
    const register = reentry ? keys.registerPrefix + reentry.ticket : ''
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
    const id = `${own.join('\0')}\0${register}\0${location}`
    let pick = profiles.get(id)
    if (pick === undefined) {
      profiles.set(id, (pick = profiles.size + 1))
      counters.push(keys.counter(location, minute), keys.counter(location, minute - 1), keys.anywhere(minute), keys.anywhere(minute - 1))
      const hash = keys.location(location)
      sides.push(hash, register || hash)
      fields.push(...own)
    }
    tokens.push(keys.token(minute, request.token))
    picks.push(String(pick))
  }
  return [
    [keys.lost, keys.epoch, keys.generation, ...counters, ...tokens, ...sides],
    [newAttempt(), String(profiles.size), ...fields, ...picks],
  ]
}

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
