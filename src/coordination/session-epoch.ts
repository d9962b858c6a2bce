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

/** Longest tag a ticket holds (ticket.ts): the epoch's 7 characters, a dot, and up to 8 of generation. */
const MAX_TAG_LENGTH = 16

/**
 * The tag sealed into a ticket: the epoch's, and the generation of the state the sealing worker last saw
 * (base 36), so a process that starts on an older copy of the state learns it from the first such ticket.
 */
export function sealedTag(epoch: RoomEpoch, generation: number | undefined): string {
  const tag = epochTag(epoch)
  if (generation === undefined) return tag
  const sealed = `${tag}.${generation.toString(36)}`
  return sealed.length <= MAX_TAG_LENGTH ? sealed : tag
}

/** A ticket's tag split into the epoch's tag and the generation it was sealed with (if any). */
export function splitTag(tag: string): { epoch: string; generation: number | undefined } {
  const dot = tag.indexOf('.')
  if (dot === -1) return { epoch: tag, generation: undefined }
  const generation = parseInt(tag.slice(dot + 1), 36)
  return { epoch: tag.slice(0, dot), generation: Number.isSafeInteger(generation) && generation >= 0 ? generation : undefined }
}

export interface SessionEpoch {
  /** The session is not in the current state: moving it out of its old minute would under-count. */
  countedBefore: boolean
  /** The state lost sessions: the room must recover (the ticket is of another state, or clearly older than it). */
  lost: boolean
  /** The generation of the current state the ticket was sealed with (of this epoch only). */
  generation?: number
}

export function sessionEpoch(ticket: Ticket, epoch: RoomEpoch | undefined): SessionEpoch {
  if (epoch === undefined) return { countedBefore: false, lost: false }
  if (ticket.epoch !== undefined) {
    // Counted in another state. On a shared backend that state was lost or replaced (by ours, or — this worker
    // being behind — by a newer one): a loss either way. A process-local state began with its process; another
    // process's newer state is not a loss of this one, so only a session older than ours is.
    const sealed = splitTag(ticket.epoch)
    const other = sealed.epoch !== epochTag(epoch)
    if (!other && sealed.generation !== undefined) return { countedBefore: false, lost: false, generation: sealed.generation }
    if (!epoch.local) return { countedBefore: other, lost: other }
    return { countedBefore: other, lost: other && ticket.lastCheckInTime < epoch.startedAt + EPOCH_CLOCK_MARGIN_MS }
  }
  const countedBefore = ticket.lastCheckInTime < epoch.startedAt
  return { countedBefore, lost: countedBefore && ticket.lastCheckInTime < epoch.startedAt - EPOCH_CLOCK_MARGIN_MS }
}
