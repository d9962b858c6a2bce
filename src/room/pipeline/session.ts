/**
 * @module
 * The session stage: read the ticket cookie, and carry an admitted user with a live session through without
 * waiting on the coordinator — the renewal once a minute is a recorded move, reported in the background; only in
 * the old cookie's last minute does a renewal wait (bounded) for the coordinator to count it.
 */
import type { Context } from 'hono'
import { minuteOf, MINUTE_MS } from '../../clock.ts'
import type { EffectiveSettings } from '../../admission/settings.ts'
import type { Snapshot } from '../../admission/snapshot.ts'
import { trafficField } from '../../coordination/state.ts'
import { cookieHeaderOf, readCookie } from '../../ticket/cookie.ts'
import type { Ticket } from '../../ticket/ticket.ts'
import type { Room } from '../room.ts'
import { deferTo } from '../execution.ts'

export interface TicketRead {
  /** The ticket, if it is live and not revoked: a new user otherwise. */
  ticket: Ticket | undefined
  /** Sealed with an older key of the ring: reseal it. */
  stale: boolean
}

/** Reads and opens the ticket cookie. A remembered cookie text is answered without an await. */
export async function readTicket(room: Room, c: Context, now: number, s: EffectiveSettings): Promise<TicketRead> {
  const cookie = readCookie(cookieHeaderOf(c), room.o.cookieName)
  if (cookie === undefined) return { ticket: undefined, stale: false }
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
 * An admitted user with a live session. Renewal moves their count to this minute (a move: coordination/moves.ts)
 * and — once the coordinator has counted the move — rewrites the cookie; a session older than the room's stored
 * state (a backend that lost its state) tells every worker the active count is short. Returns the minute the
 * session is counted in once what this worker recorded is applied.
 */
export async function continueSession(room: Room, c: Context, ticket: Ticket, stale: boolean, now: number, s: EffectiveSettings): Promise<number> {
  const { link } = room
  const minute = minuteOf(now)
  const lastMinute = minuteOf(ticket.lastCheckInTime)
  const countedBefore = link.judgeSession(ticket, now, () => room.locationOf(c))
  if (link.epoch === undefined) room.report(c, room.locationOf(c), now) // a cold worker learns the epoch to judge it by
  if (lastMinute < minute && !s.disableSessionRenewal) {
    const location = room.locationOf(c)
    if (link.firstCheckIn(ticket.ticketId, minute)) {
      link.record(location, trafficField(minute), 1)
      room.history.sessionRenewed(now, location, ticket.acceptedAt, ticket.lastCheckInTime)
    }
    // A session counted before the stored state began is not in it: moving it out would under-count.
    const acked = link.renew(location, ticket.ticketId, lastMinute, minute, countedBefore)
    room.report(c, location, now)
    if (acked || (await renewalMayWait(room, c, ticket, now, s, location, lastMinute, minute))) {
      await room.setTicket(c, { ...ticket, lastCheckInTime: now }, now, s)
    } else if (stale) await room.setTicket(c, ticket, now, s)
    return minute
  }
  if (stale) await room.setTicket(c, ticket, now, s)
  else if (s.disableSessionRenewal && link.firstCheckIn(ticket.ticketId, minute)) link.record(room.locationOf(c), trafficField(minute), 1)
  return lastMinute
}

/** Longest a renewal waits for its move's acknowledgement (a healthy report takes milliseconds; a slower one is a stall). */
const RENEWAL_WAIT_MS = 250

/**
 * Whether a renewed cookie is handed out before the coordinator acknowledged the move (issue 14 item 3). A cookie
 * valid beyond the old one, handed out by a worker that then dies with the move unreported, would be a session
 * the room no longer counts: so until the acknowledgement the user keeps the old cookie (still valid: no wait,
 * the next request gets the renewed one). Only in the old cookie's last minute does the request wait — at most
 * the coordinator call budget, and not at all while the coordinator is failing or slow — and then gets the renewed
 * cookie either way: an outage never logs out admitted users (a crash during one is a double fault: README).
 */
async function renewalMayWait(room: Room, c: Context, ticket: Ticket, now: number, s: EffectiveSettings, location: string, from: number, to: number): Promise<boolean> {
  if (room.sessionEndsAt(ticket, s) > (to + 1) * MINUTE_MS) return false // the old cookie outlives this minute
  const wait = Math.min(room.o.coordinatorTimeoutMs, RENEWAL_WAIT_MS)
  await room.link.awaitMove(room.coordinatorOf(c), location, ticket.ticketId, from, to, now, wait)
  return true
}
