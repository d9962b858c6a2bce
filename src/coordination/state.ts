/**
 * @module
 * The shared room state: additive per-minute counts, never per-user records (DESIGN "Counting active
 * and waiting users"). Every field is a count keyed by a short name, so merging two states is adding
 * numbers — which every backend can do natively (HINCRBY, Deno KV `sum`, SQL `UPDATE … + ?`, a Map).
 *
 * Fields (m = minute number, b = bucket id, also a minute number):
 * - `a{m}`   admitted users whose last check-in fell in minute m. An admission adds 1 to the current
 *            minute; a renewal moves 1 from the old minute to the new one. Active users = the sum over
 *            the session window, so a session leaves the count exactly when its ticket expires.
 * - `n{m}`   admissions made in minute m (the allocation counted "once", the admissions average).
 * - `y{m}`   those of them granted by the Anywhere counter (so each counter's reported use is known).
 * - `t{m}`   users seen in minute m (admitted check-ins, admissions and queue check-ins): the traffic
 *            history that location shares are computed from (seed 000: a completed past minute).
 * - `w{m}.{b}` queued users of bucket b whose last queue check-in fell in minute m.
 * - `x{m}.{ticketId}` a ticket revoked by the origin; m is the minute its session was counted in (the same
 *            for every request carrying that cookie), so the key is the same however many workers see the
 *            revocation: it is a `once` key, and the active-count decrement it carries applies once.
 * - `R{m}`   a worker saw the room's state lost or replaced (a new epoch) in minute m: the room counts as
 *            full until every session admitted before the loss has expired.
 */

/** The counts one location holds, plus when they were last changed. */
export interface LocationState {
  counts: Record<string, number>
  /** ms of the last merge into this location. */
  updatedAt: number
}

/** What a worker sees after a sync: the state of every location of the room. */
export interface RoomState {
  locations: Record<string, LocationState>
  /** ms at which the answering aggregator produced this view. */
  at: number
  /** The room's epoch; every adapter answers it (optional only for older test doubles). */
  epoch?: RoomEpoch
}

/** A worker's deltas for its location, sent in the background. */
export interface WorkerReport {
  /** Unique per report: an aggregator applies a report id once, so a retried report is not counted twice. */
  id: string
  roomId: string
  location: string
  /** ms at which the worker sent it (worker clock). */
  at: number
  /** How many minutes of history the room needs; older fields are pruned. */
  keepMinutes: number
  /** Field → amount to add. */
  deltas: Record<string, number>
  /**
   * Deltas applied at most once per key, whatever the concurrency or the number of workers and processes:
   * for each key absent from the location's counts, the key is set to 1 and its deltas added, in one atomic
   * step with the rest of the report; a key already present is skipped. Keys are fields like any other
   * (`x{m}.{ticketId}`), pruned with their minute.
   */
  once?: Record<string, Record<string, number>>
}

/**
 * The identity of a room's stored state. Written set-if-absent when a room's state is created; a backend that
 * loses its state (a Redis restarted without persistence, a SQLite file replaced) creates a new one, which
 * is how workers learn that the active count they see is not the whole truth.
 */
export interface RoomEpoch {
  /** Unique per creation (the creating report's id). */
  id: string
  /** ms at which this state was created. */
  startedAt: number
}

export const activeField = (minute: number): string => `a${minute}`
export const admittedField = (minute: number): string => `n${minute}`
export const anywhereAdmittedField = (minute: number): string => `y${minute}`
export const trafficField = (minute: number): string => `t${minute}`
export const waitingField = (minute: number, bucketId: number): string => `w${minute}.${bucketId}`

export const revokedField = (minute: number, ticketId: string): string => `x${minute}.${ticketId}`
export const lostStateField = (minute: number): string => `R${minute}`

/** The minute a field belongs to (`w123.120` → 123). */
export function fieldMinute(field: string): number {
  const dot = field.indexOf('.')
  return Number(dot === -1 ? field.slice(1) : field.slice(1, dot))
}

/** Adds `deltas` into `counts` in place, dropping fields that reach zero. */
export function addCounts(counts: Record<string, number>, deltas: Record<string, number>): void {
  for (const field in deltas) {
    const value = (counts[field] ?? 0) + deltas[field]!
    if (value === 0) delete counts[field]
    else counts[field] = value
  }
}

/**
 * Applies a report's `once` entries to `counts` in place: a key already present is skipped, an absent one is
 * set to 1 with its deltas added. The in-process form of the rule every adapter follows atomically.
 */
export function applyOnce(counts: Record<string, number>, once: WorkerReport['once']): void {
  if (!once) return
  for (const key in once) {
    if (counts[key] !== undefined) continue
    addCounts(counts, { ...once[key], [key]: 1 })
  }
}

/** A new epoch for a state being created now. */
export const newEpoch = (id: string, at: number): RoomEpoch => ({ id, startedAt: at })

/** Deletes fields older than `oldestMinute`, in place. */
export function pruneCounts(counts: Record<string, number>, oldestMinute: number): void {
  for (const field in counts) if (fieldMinute(field) < oldestMinute) delete counts[field]
}

/** An empty room state. */
export const emptyRoomState = (at = 0): RoomState => ({ locations: {}, at })
