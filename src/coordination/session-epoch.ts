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

/** Each epoch's tag, hashed once: every admitted request compares its ticket's tag with it. */
const tags = new WeakMap<RoomEpoch, { id: string; tag: string }>()

/** A short tag of an epoch id (32-bit FNV-1a, base 36): a few bytes in every cookie instead of the whole id. */
export function epochTag(epoch: RoomEpoch): string {
  const known = tags.get(epoch)
  if (known !== undefined && known.id === epoch.id) return known.tag
  let hash = 0x811c9dc5
  for (let i = 0; i < epoch.id.length; i++) hash = Math.imul(hash ^ epoch.id.charCodeAt(i), 0x01000193)
  const tag = (hash >>> 0).toString(36)
  tags.set(epoch, { id: epoch.id, tag })
  return tag
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

/** A session counted in the current state, sealed with no generation. Shared: read, never changed. */
const CURRENT: SessionEpoch = Object.freeze({ countedBefore: false, lost: false })
/** The last answer for a tag of the current state with a generation: admitted requests mostly repeat it. */
let lastCurrent: { tag: string; judged: SessionEpoch } | undefined

/**
 * The answer for a ticket sealed in `epoch` itself (its tag starts with the epoch's), without splitting
 * the tag: that answer depends on the tag alone, so the last one is reused. Undefined for any other tag.
 */
function inCurrent(sealed: string, own: string): SessionEpoch | undefined {
  if (!sealed.startsWith(own)) return undefined
  if (sealed.length === own.length) return CURRENT
  if (sealed.charCodeAt(own.length) !== 46 /* . */) return undefined
  if (lastCurrent?.tag === sealed) return lastCurrent.judged
  const { generation } = splitTag(sealed)
  const judged = generation === undefined ? CURRENT : Object.freeze({ countedBefore: false, lost: false, generation })
  lastCurrent = { tag: sealed, judged }
  return judged
}

export function sessionEpoch(ticket: Ticket, epoch: RoomEpoch | undefined): SessionEpoch {
  if (epoch === undefined) return CURRENT
  if (ticket.epoch !== undefined) {
    const current = inCurrent(ticket.epoch, epochTag(epoch))
    if (current !== undefined) return current
    // Counted in another state. On a shared backend that state was lost or replaced (by ours, or — this worker
    // being behind — by a newer one): a loss either way. A process-local state began with its process; another
    // process's newer state is not a loss of this one, so only a session older than ours is.
    if (!epoch.local) return { countedBefore: true, lost: true }
    return { countedBefore: true, lost: ticket.lastCheckInTime < epoch.startedAt + EPOCH_CLOCK_MARGIN_MS }
  }
  const countedBefore = ticket.lastCheckInTime < epoch.startedAt
  return { countedBefore, lost: countedBefore && ticket.lastCheckInTime < epoch.startedAt - EPOCH_CLOCK_MARGIN_MS }
}
