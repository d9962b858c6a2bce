/**
 * @module
 * The session stage: read the ticket cookie, and carry an admitted user with a live session through without
 * any coordinator call — the renewal once a minute is a recorded count, reported in the background.
 */
import type { Context } from 'hono'
import { minuteOf } from '../../clock.ts'
import type { EffectiveSettings } from '../../admission/settings.ts'
import type { Snapshot } from '../../admission/snapshot.ts'
import { activeField, trafficField } from '../../coordination/state.ts'
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
 * An admitted user with a live session. Renewal moves their count to this minute (once per worker and minute)
 * and rewrites the cookie; a session older than the room's stored state (a backend that lost its state) tells
 * every worker the active count is short. Returns the minute the session is now counted in.
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
      // A session counted before the stored state began is not in it: moving it out would under-count.
      if (!countedBefore) link.record(location, activeField(lastMinute), -1)
      link.record(location, activeField(minute), 1)
      link.record(location, trafficField(minute), 1)
      room.history.sessionRenewed(now, location, ticket.acceptedAt, ticket.lastCheckInTime)
      room.report(c, location, now)
    }
    await room.setTicket(c, { ...ticket, lastCheckInTime: now }, now, s)
    return minute
  }
  if (stale) await room.setTicket(c, ticket, now, s)
  else if (s.disableSessionRenewal && link.firstCheckIn(ticket.ticketId, minute)) link.record(room.locationOf(c), trafficField(minute), 1)
  return lastMinute
}
