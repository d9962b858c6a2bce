/**
 * @module
 * The admitted-session fast path's question, asked by a server before the whole app runs: "is this an
 * admitted user whose ticket is live, remembered and not due for renewal, on a plain path the room covers,
 * with nothing else to do?" Yes only when the pipeline (middleware.ts) would take the session path and do
 * nothing on it but count the decision: no await, no cookie to write, no report to start, no rule, admin,
 * challenge or bypass to consult. Any doubt answers no, and the request goes the whole way unchanged.
 *
 * The room is assumed to be the only one on the request (the standalone proxy's app has one room, on `*`).
 * The transport owns what follows a yes (forwarding); the origin's commands are still the room's
 * (origin-command.ts `revokeSession`).
 */
import { ticketPosition } from '../coordination/positions.ts'
import type { Context } from 'hono'
import { minuteOf } from '../clock.ts'
import { anyAdmin } from './admin-routes.ts'
import { readCookie } from '../ticket/cookie.ts'
import { MAY_DIFFER } from './readings.ts'
import type { Room } from './room.ts'
import { freshenRevocations } from './pipeline/session.ts'

/** What the fast path reads of a request: cheap to get on every runtime. */
export interface PlainRequest {
  method: string
  /** The path as sent, before any decoding, without the query. */
  path: string
  /** The Cookie header (several lines joined with `; `), if any. */
  cookie: string | null | undefined
  /** Whether the request carries an Authorization header (an admin token is warned about on the whole path). */
  authorization: boolean
}

/** A yes: the session the request belongs to, for the origin's commands once it answers. */
export interface AdmittedPass {
  ticketId: string
  /** The minute the session is counted in (its last check-in: not renewed on this request). */
  countedMinute: number
  now: number
}

/**
 * The fast path's answer for `request` (`c` is read only where the whole path reads it too: the location
 * of a session from a lost state). A yes has counted the decision, as the session path does.
 */
export function admittedPass(room: Room, c: Context, request: PlainRequest, now: number): AdmittedPass | undefined {
  const { o, link, settings } = room
  // Ambiguous paths go the whole way: coverage, admin spellings and bypass rules read them there.
  if (MAY_DIFFER.test(request.path) || (anyAdmin() && request.authorization)) return undefined
  if (!room.plainCovers?.(request.method, request.path) || !room.rules.noneNow(now)) return undefined
  if (!settings.loaded || settings.reloading || settings.refreshDue(now)) return undefined
  const s = settings.at(now)
  if (s.suspended || s.disableSessionRenewal) return undefined
  const cookie = readCookie(request.cookie, o.cookieName)
  const opened = cookie === undefined ? undefined : room.knownSealer?.cached(cookie)
  if (!opened || opened.stale) return undefined
  const { ticket } = opened
  if (ticket.acceptedAt <= 0 || !room.live(ticket, now, s) || minuteOf(ticket.lastCheckInTime) < minuteOf(now)) return undefined
  // The whole path would report to learn the epoch, or wait for a first snapshot to check revocations.
  if (link.epoch === undefined) return undefined
  if (room.revokeEnabled) {
    freshenRevocations(room, c, now)
    const snapshot = link.snapshot(now)
    if (!snapshot || snapshot.revoked.has(ticket.ticketId)) return undefined
  }
  link.judgeSession(ticket, now, room.locationOf, c)
  room.metrics.decisions.session++
  return { ticketId: ticket.ticketId, countedMinute: ticketPosition(ticket), now }
}
