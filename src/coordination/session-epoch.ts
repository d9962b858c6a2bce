/**
 * @module
 * Which stored state a session is counted in. A ticket carries the tag of the room epoch it was last counted
 * in (sealed at admission and renewal); the worker compares it with the epoch the coordinator answers. Exact,
 * with no clock compared on a shared backend: a session of another epoch is not in this state, and that epoch
 * was the room's state before a loss (or after one, to a worker that has not synced since) — however close to
 * the new state's start it was renewed, and whatever the clock of the worker whose sync created the new state
 * (one lagging by a minute dates it a minute early). A fleet restarted with an emptied backend, or a process on
 * a fresh SQLite file or Deno KV database, learns of the loss from the first such ticket. Only a process-local
 * state (the memory coordinator: one clock) compares times, since another process's state is not a loss of
 * this one. Tickets without a tag (older versions, sealed before any sync) fall back to comparing times.
 */
import type { RoomEpoch } from './state.ts'
import type { Ticket } from '../ticket/ticket.ts'

/** Worker clocks differ a little: a session this much older than the state's start may still be counted in it. */
export const EPOCH_CLOCK_MARGIN_MS = 5000

/** A short tag of an epoch id (32-bit FNV-1a, base 36): a few bytes in every cookie instead of the whole id. */
export function epochTag(epoch: RoomEpoch): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < epoch.id.length; i++) hash = Math.imul(hash ^ epoch.id.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(36)
}

export interface SessionEpoch {
  /** The session is not in the current state: moving it out of its old minute would under-count. */
  countedBefore: boolean
  /** The state lost sessions: the room must recover (the ticket is of another state, or clearly older than it). */
  lost: boolean
}

export function sessionEpoch(ticket: Ticket, epoch: RoomEpoch | undefined): SessionEpoch {
  if (epoch === undefined) return { countedBefore: false, lost: false }
  if (ticket.epoch !== undefined) {
    // Counted in another state. On a shared backend that state was lost or replaced (by ours, or — this worker
    // being behind — by a newer one): a loss either way. A process-local state began with its process; another
    // process's newer state is not a loss of this one, so only a session older than ours is.
    const other = ticket.epoch !== epochTag(epoch)
    if (!epoch.local) return { countedBefore: other, lost: other }
    return { countedBefore: other, lost: other && ticket.lastCheckInTime < epoch.startedAt + EPOCH_CLOCK_MARGIN_MS }
  }
  const countedBefore = ticket.lastCheckInTime < epoch.startedAt
  return { countedBefore, lost: countedBefore && ticket.lastCheckInTime < epoch.startedAt - EPOCH_CLOCK_MARGIN_MS }
}
