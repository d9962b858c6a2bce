/**
 * @module
 * Key and private field names. Every key of a room carries the room in a hash tag, `{prefix}:{{roomId}}:…`,
 * so Redis Cluster puts all of a room's keys in one slot: the scripts touch several of them in one call.
 *
 * The counters are laid out so a decision touches as few keys as possible (#16):
 * - a location's counter of minute m and the Anywhere counter of minute m are string keys of their own, and so
 *   is each token's first answer: a decision reads them, the room's lost minute, epoch and generation in one
 *   MGET, a location grant is one INCR, and looking a token up costs the same however many the minute granted
 *   (a hash of them would be scanned while small);
 * - the sync copies a location counter into the location's hash as `~c{m}` (sync-script.ts `MIRROR_MINUTES`),
 *   where the state's admissions are folded from (see {@link grantFields}).
 * Fields starting with `~` are the adapter's own: the coordinator folds them into the core's fields
 * (`room-state.ts`) and never hands them to the core.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { DRIVER_NAME } from './run-script.ts'

export interface RoomKeys {
  /** The first answer of a ticket id in minute m (`attempt`, `attempt:seq`, `*`-prefixed for Anywhere). */
  token(minute: number, token: string): string
  /** The Anywhere counter of minute m: slots it gave. */
  anywhere(minute: number): string
  /** The location counter of minute m: slots the location's counter gave. */
  counter(name: string, minute: number): string
  /** Hash of count fields for one location, with the location counter's private fields. */
  location(name: string): string
  /** `location(name)` without the name: the sync script builds other locations' keys from it. */
  locationPrefix: string
  /** Sorted set of the room's locations, scored by their last merge (ms). The grant scripts name it from a location hash's key (scripts.ts `claimSource`). */
  locations: string
  /** Marker that a report id was applied. */
  report(id: string): string
  /** The room's epoch, `at:reportId` of the sync that created the state. No expiry (see the README). */
  epoch: string
  /** The room's generation, advanced by every sync (an older copy put back holds a lower one). No expiry. */
  generation: string
  /**
   * The latest minute the room's state was found lost or restored (`R{m}`), set by the sync that marks it and
   * read by every grant (`refusesWhileRecovering`). No expiry: it goes with the state, whose loss marks it anew.
   */
  lost: string
  /** Prefix of the room-wide `once` claims (`{prefix}:{{room}}:o:{key}`, one expiring key each; same slot). */
  oncePrefix: string
  /** Prefix of the move registers (`{prefix}:{{room}}:g:{ticket}` → minute held, expiring; same slot: moves.ts). */
  registerPrefix: string
  /**
   * Prefix of the fixed reference traffic tables (`{prefix}:{{room}}:f:{minute}` → the reference as JSON, set if
   * absent, expiring; same slot: reference.ts). The sync script derives it from {@link registerPrefix}.
   */
  referencePrefix: string
}

export function roomKeys(prefix: string, roomId: string): RoomKeys {
  if (roomId.includes('{') || roomId.includes('}')) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `${DRIVER_NAME}: room id "${roomId}" may not contain { or }: they would break the Redis Cluster hash tag`)
  }
  const room = `${prefix}:{${roomId}}`
  const locationPrefix = `${room}:l:`
  return {
    token: (minute, token) => `${room}:k:${minute}:${token}`,
    anywhere: (minute) => `${room}:a:${minute}`,
    counter: (name, minute) => `${room}:c:${minute}:${name}`,
    location: (name) => locationPrefix + name,
    locationPrefix,
    locations: `${room}:locations`,
    report: (id) => `${room}:r:${id}`,
    epoch: `${room}:epoch`,
    generation: `${room}:generation`,
    lost: `${room}:lost`,
    oncePrefix: `${room}:o:`,
    registerPrefix: `${room}:g:`,
    referencePrefix: `${room}:f:`,
  }
}

/**
 * The private fields of a location hash for minute m:
 * - `~c{m}` the location counter: slots its counter gave in minute m, copied from its key by the syncs;
 * - `~b{m}` of those, the ones not to count as this location's admissions (a bare counter call, or one made
 *   for another location), so the location's admissions from its own counter are `~c − ~b`;
 * - `~g{m}` admissions of this location granted by another location's counter;
 * - `~h{m}` admissions of this location granted by the Anywhere counter.
 * Admissions = ~c − ~b + ~g + ~h, added to `a{m}` and `n{m}`; ~h also to `y{m}` (admissionDeltas).
 */
export const grantFields = (minute: number) => ({
  counter: `~c${minute}`,
  notHere: `~b${minute}`,
  fromOther: `~g${minute}`,
  fromAnywhere: `~h${minute}`,
})

/** Prefix of every private field. */
export const PRIVATE_FIELD = '~'
