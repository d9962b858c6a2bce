/**
 * @module
 * Script arguments shared by the grant scripts' callers (`increment`, `takeSlots`): the attempt, the
 * previous-reported values, the recovery threshold and the worker's view of the state, as the scripts take them.
 */
import { DEFAULT_RECOVERY_MINUTES } from '../../src/coordination/coordinator.ts'
import type { RoomEpoch } from '../../src/coordination/state.ts'

/**
 * A random id per adapter call. A transport retry resends the same command, so the script recognizes
 * its own attempt and answers as the first time (not `repeat`): the core then counts the admission once,
 * exactly as if the reply had not been lost.
 */
export function newAttempt(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8))
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
}

/** A `previousReported` as a script argument: '' when left out (no correction). */
export function reportedArg(previousReported: number | undefined): string {
  return previousReported === undefined ? '' : String(previousReported)
}

/**
 * The recovery window as the scripts take it: the earliest lost minute that refuses a fresh grant of `minute`
 * (`refusesWhileRecovering`: refused while minute ≤ lost + window), '' for a window of 0 (never refuse).
 */
export function recoveryArg(minute: number, recoveryMinutes: number | undefined): string {
  const window = recoveryMinutes ?? DEFAULT_RECOVERY_MINUTES
  return window > 0 ? String(minute - window) : ''
}

/**
 * The worker's view of the state for the scripts' grant-time check (scripts.ts `lossSource`): '' for none. An
 * epoch this coordinator's last sync of the room answered goes whole (`startedAt:id`, as the room's key holds
 * it), so Redis compares it in one string equality instead of cutting the id out of the stored value (#16).
 */
export function seenArgs(request: { epoch?: string | undefined; generation?: number | undefined }, synced: RoomEpoch | undefined): [string, string] {
  const epoch = request.epoch !== undefined && synced?.id === request.epoch ? `${synced.startedAt}:${synced.id}` : (request.epoch ?? '')
  return [epoch, String(request.generation ?? 0)]
}

