/**
 * @module
 * The session stage: read the ticket cookie, and carry an admitted user with a live session through without
 * a coordinator call — except the renewal once a minute, which waits (bounded) for the coordinator to count the
 * session's move before the renewed cookie is handed out.
 */
import type { Context } from 'hono'
import { minuteOf, MINUTE_MS } from '../../clock.ts'
import type { EffectiveSettings } from '../../admission/settings.ts'
import type { Snapshot } from '../../admission/snapshot.ts'
import { activeField, trafficField } from '../../coordination/state.ts'
import { admissionDeltas, ANYWHERE } from '../../coordination/coordinator.ts'
import { MOVE_ENDED } from '../../coordination/moves.ts'
import { liveFrom, positionOf, renewalDue, ticketPosition } from '../../coordination/positions.ts'
import { cookieHeaderOf, readCookie } from '../../ticket/cookie.ts'
import type { Ticket } from '../../ticket/ticket.ts'
import type { Room } from '../room.ts'
import { deferTo } from '../execution.ts'
import { askForSlot } from './decide.ts'

export interface TicketRead {
  /** The ticket, if it is live and not revoked: a new user otherwise. */
  ticket: Ticket | undefined
  /** Sealed with an older key of the ring: reseal it. */
  stale: boolean
}

/** The ticket cookie's text in the request's Cookie header, or undefined. */
export function ticketCookieOf(room: Room, c: Context): string | undefined {
  return readCookie(cookieHeaderOf(c), room.o.cookieName)
}

/**
 * Reads and opens the ticket cookie (`cookie`: its text when the caller read it already, null when it knows
 * there is none). A remembered cookie text is answered without an await.
 */
export async function readTicket(room: Room, c: Context, now: number, s: EffectiveSettings, cookie: string | null = ticketCookieOf(room, c) ?? null): Promise<TicketRead> {
  if (cookie === null) return { ticket: undefined, stale: false }
  const sealer = room.sealerOf(c)
  const opened = sealer.cached(cookie) ?? (await sealer.open(cookie))
  if (!opened || !room.live(opened.ticket, now, s)) return { ticket: undefined, stale: false }
  if (room.revokeEnabled && (await revokedSnapshot(room, c, now))?.revoked.has(opened.ticket.ticketId)) return { ticket: undefined, stale: false }
  return opened
}

/**
 * The snapshot revocations are checked against. A cold worker (no state yet) waits for its first sync once,
 * as it would for a new user: otherwise a ticket revoked elsewhere would pass on it and could be revoked twice.
 */
function revokedSnapshot(room: Room, c: Context, now: number): Snapshot | undefined | Promise<Snapshot | undefined> {
  freshenRevocations(room, c, now)
  return room.link.snapshot(now) ?? room.link.ready(room.coordinatorOf(c), room.locationOf(c), now).catch(() => undefined)
}

/**
 * Keeps the snapshot that revocations are checked against no older than `maxSnapshotAgeMs`, in the
 * background: the admitted request that notices never waits, and the ones after it see revocations made on
 * other workers. Without it a worker serving only admitted users kept its snapshot until a minute's renewals.
 */
export function freshenRevocations(room: Room, c: Context, now: number): void {
  if (room.link.stale(now)) room.link.maybeSync(room.coordinatorOf(c), room.locationOf(c), now, deferTo(c))
}

/**
 * The session stage in one synchronous step, for the admitted user with a remembered, live, current ticket and
 * nothing to wait for — most requests a room sees. Undefined (nothing done, nothing counted) when any part of
 * the stage would wait: a cookie to open, a first snapshot to check revocations against, a renewal (once a
 * minute) or a stale key's reseal; the whole path (readTicket, continueSession) then takes the request. What it
 * does is exactly what those two do for such a ticket, in the same order, so both paths keep every guarantee.
 */
export function sessionNow(room: Room, c: Context, cookie: string | undefined, now: number, s: EffectiveSettings): Ticket | undefined {
  if (cookie === undefined) return undefined
  const opened = room.sealerOf(c).cached(cookie)
  if (opened === undefined || opened.stale) return undefined
  const { ticket } = opened
  if (ticket.acceptedAt <= 0 || !room.live(ticket, now, s)) return undefined
  const minute = minuteOf(now)
  if (!s.disableSessionRenewal && renewalDue(ticketPosition(ticket), now)) return undefined
  const { link } = room
  if (room.revokeEnabled) {
    freshenRevocations(room, c, now)
    const snapshot = link.snapshot(now)
    if (snapshot === undefined || snapshot.revoked.has(ticket.ticketId)) return undefined
  }
  // Committed from here on: what continueSession does for a session neither renewed nor resealed.
  link.judgeSession(ticket, now, room.locationOf, c)
  if (link.epoch === undefined) room.report(c, room.locationOf(c), now) // a cold worker learns the epoch to judge it by
  if (trafficDue(ticket, s, minute) && link.firstCheckIn(ticket.ticketId, minute)) link.record(room.locationOf(c), trafficField(minute), 1)
  return ticket
}

/**
 * An admitted user with a live session. Renewal moves their count to this minute (a compare-and-move against the
 * ticket's register: coordination/moves.ts) and — once the coordinator has answered — seals the cookie with the
 * minute it answered; a session older than the room's stored state (a backend that lost its state) tells every
 * worker the active count is short. Returns the minute the session is counted in once what this worker recorded is
 * applied, or undefined when the coordinator counts the ticket nowhere (its session ended): a new user then.
 */
export async function continueSession(room: Room, c: Context, ticket: Ticket, stale: boolean, now: number, s: EffectiveSettings): Promise<number | undefined> {
  const { link } = room
  const minute = minuteOf(now)
  const lastMinute = minuteOf(ticket.lastCheckInTime)
  const position = ticketPosition(ticket)
  const countedBefore = link.judgeSession(ticket, now, room.locationOf, c)
  if (link.epoch === undefined) room.report(c, room.locationOf(c), now) // a cold worker learns the epoch to judge it by
  if (renewalDue(position, now) && !s.disableSessionRenewal) {
    const location = room.locationOf(c)
    if (link.firstCheckIn(ticket.ticketId, minute)) {
      link.record(location, trafficField(minute), 1)
      room.history.sessionRenewed(now, location, ticket.acceptedAt, ticket.lastCheckInTime)
    }
    // A session counted before the stored state began is not in it: nothing to move out (`from` left out). A
    // pending cookie's renewal asks nothing more of the move: its way back in is the grant step (reenter).
    const to = positionOf(now)
    const move = { ticket: ticket.ticketId, from: countedBefore ? undefined : position, to, since: liveFrom(now, s.sessionDurationMinutes) }
    const known = link.renew(location, move)
    room.report(c, location, now)
    const answer = known ?? (await renewalAnswer(room, c, ticket, now, s, location, to))
    if (answer === MOVE_ENDED) return reenter(room, c, ticket, now, s, location, move.since)
    if (answer !== undefined) {
      await room.setTicket(c, confirmed(ticket, now), now, s)
      return answer
    }
    // Unanswered: where the confirmed cookie could end before the user's next check-in the renewal is handed out
    // pending, so the user stays; otherwise the confirmed cookie still holds, and the move lands with a later report.
    if (confirmedEndsTooSoon(room, ticket, s, now)) await room.setTicket(c, { ...ticket, pending: minute }, now, s)
    else if (stale) await room.setTicket(c, ticket, now, s)
    return position
  }
  if (stale) await room.setTicket(c, ticket, now, s)
  else if (trafficDue(ticket, s, minute) && link.firstCheckIn(ticket.ticketId, minute)) link.record(room.locationOf(c), trafficField(minute), 1)
  return s.disableSessionRenewal ? lastMinute : position
}

/**
 * A pending renewal (handed out unanswered: the store failing, or slow past the wait) whose count the coordinator no
 * longer holds: the worker that recorded its move died before reporting it, or the count left the session window
 * while the move waited. The user comes back in only through the grant step that bounds newcomers — one atomic
 * counter step, with the limits a queued user of the session's own bucket gets (FIFO: ahead of everyone who queued
 * after it), the ticket id as its token (a retry or a concurrent request of the same user takes one slot) — which
 * counts it active in that same step. So put-backs and newcomers together never exceed what the counters give,
 * whatever the snapshots of the workers putting users back say (before, each worker put users back while its own
 * snapshot showed a free place: several at once overshot). Refused (the room full, or recovering), the user is a
 * new user; unasked (the store failing), the renewal stays pending. The same atomic step sets the ticket's register
 * (moves.ts) to the grant's minute: the next renewal moves that count, and a replay of an older pending cookie finds
 * the register at or past its target — one place, however the cookies are replayed (break14g reenter-replay).
 */
async function reenter(room: Room, c: Context, ticket: Ticket, now: number, s: EffectiveSettings, location: string, since: number): Promise<number | undefined> {
  // `pending` is the renewal's minute; its count sits in that minute, so it surely left the window only when the
  // whole minute is before `since`.
  if (ticket.pending === undefined || ticket.pending + 1 <= since) return undefined
  const minute = minuteOf(now)
  // The grant also sets the ticket's register to its minute, in its atomic step (moves.ts `reenteredRegister`).
  const { result, reason, atEdge } = await askForSlot(room, s, room.coordinatorOf(c), location, ticket, ticket.ticketId, now, { ticket: ticket.ticketId, since })
  if (reason === 'fail-closed' || (atEdge && !result.admitted)) {
    // The grant step could not be asked (the store failing, or the minute's edge: minute-edges.ts), not refused: an
    // outage never logs out an admitted user, so the renewal stays pending and the next request asks again.
    await room.setTicket(c, { ...ticket, pending: minute }, now, s)
    return ticketPosition(ticket)
  }
  if (!result.admitted) return undefined
  const { link } = room
  // As decide.ts records an admission: a counter's grant is counted by the coordinator (shown here until the next
  // sync); one no counter gave (passthrough, fail-open) is this worker's to report.
  if (result.via === undefined) link.record(location, activeField(minute), 1)
  else if (!result.repeat) link.observe(location, admissionDeltas({ roomId: room.o.roomId, location, scope: result.via === 'anywhere' ? ANYWHERE : location, minute, limit: 0, token: ticket.ticketId }), { minute, result })
  room.report(c, location, now)
  // A fresh grant, counted in its minute: the cookie says so (admitted now: positions.ts `ticketPosition`).
  await room.setTicket(c, { ...confirmed(ticket, now), acceptedAt: now }, now, s)
  return minute
}

/**
 * Whether a request that renews nothing may be the session's first in `minute`: a renewal (at most one a minute,
 * but not in every minute: positions.ts) counts its minute's traffic itself, and a ticket renewed in this minute
 * has. Location shares come from every minute's users, so a minute without a renewal still counts them.
 */
const trafficDue = (ticket: Ticket, s: EffectiveSettings, minute: number): boolean =>
  s.disableSessionRenewal || minuteOf(ticket.lastCheckInTime) < minute

/** The ticket renewed at `now`, confirmed: no pending renewal left. */
function confirmed(ticket: Ticket, now: number): Ticket {
  const { pending: _, ...rest } = ticket
  return { ...rest, lastCheckInTime: now }
}

/**
 * Whether the confirmed cookie (its pending renewal left out) ends before `now` + sessionDurationMinutes: the user
 * may check in again up to that long after `now` and must find the session live (issue 15: a session ends D after
 * the last check-in). A count lasts D + 1 minutes past its position and a renewal is due once the position is a
 * minute old, so this holds for every due renewal: it waits for its move (bounded by the exchanges' timeouts) and,
 * unanswered, is handed out pending. (The minute-grained rule — the confirmed cookie's last minute — let a renewal
 * give up after 150 ms with a cookie that ended before the next check-in: break14d slow-store-logout, break14e.)
 */
const confirmedEndsTooSoon = (room: Room, ticket: Ticket, s: EffectiveSettings, now: number): boolean =>
  room.sessionEndsAt({ ...ticket, pending: undefined }, s) < now + s.sessionDurationMinutes * MINUTE_MS

/**
 * Longest a renewal waits for its answer while the confirmed cookie outlasts the user's next check-in (a healthy
 * report takes milliseconds). Under positions (a count lasting D + 1 past a position a minute old) only a renewal at
 * the very millisecond its position turns a minute old qualifies; kept for that edge, not for a common path.
 */
const RENEWAL_WAIT_MS = 150

/**
 * The coordinator's answer to the renewal (the minute the ticket is counted in, or MOVE_ENDED), or undefined if it
 * does not come (issue 14 item 3). A cookie valid beyond the old one, handed out by a worker that then dies with the
 * move unreported, would be a session the room no longer counts: so the request waits — one report exchange,
 * shared by every renewal recorded meanwhile, and not at all while reports fail, until a report gets through (item
 * 5: a stalled store costs one bounded wait). Where the confirmed cookie could end before the user's next check-in
 * ({@link confirmedEndsTooSoon}: every due renewal but one at an exact boundary) it waits until the exchange carrying
 * its move settles (worker-link.ts `awaitMove`: at most the exchange in flight and its own, each bounded by
 * `coordinatorTimeoutMs`): a slow store is answered, and only a failing or hanging one leaves the renewal pending.
 * Otherwise RENEWAL_WAIT_MS at most: the confirmed cookie still holds, and wherever the move lands the register knows.
 */
async function renewalAnswer(room: Room, c: Context, ticket: Ticket, now: number, s: EffectiveSettings, location: string, to: number): Promise<number | undefined> {
  const wait = confirmedEndsTooSoon(room, ticket, s, now) ? undefined : Math.min(room.o.coordinatorTimeoutMs, RENEWAL_WAIT_MS)
  return room.link.awaitMove(room.coordinatorOf(c), location, ticket.ticketId, to, now, wait)
}
