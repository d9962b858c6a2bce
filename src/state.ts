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
 * - `x{m}.{ticketId}` a ticket revoked by the origin in minute m (rare; kept for the session window so
 *            every worker refuses the old cookie).
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
}

export const activeField = (minute: number): string => `a${minute}`
export const admittedField = (minute: number): string => `n${minute}`
export const anywhereAdmittedField = (minute: number): string => `y${minute}`
export const trafficField = (minute: number): string => `t${minute}`
export const waitingField = (minute: number, bucketId: number): string => `w${minute}.${bucketId}`

export const revokedField = (minute: number, ticketId: string): string => `x${minute}.${ticketId}`

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

/** Deletes fields older than `oldestMinute`, in place. */
export function pruneCounts(counts: Record<string, number>, oldestMinute: number): void {
  for (const field in counts) if (fieldMinute(field) < oldestMinute) delete counts[field]
}

/** An empty room state. */
export const emptyRoomState = (at = 0): RoomState => ({ locations: {}, at })
