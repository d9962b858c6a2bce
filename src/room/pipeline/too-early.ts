/**
 * @module
 * A queued user checking in before their refresh interval is over (refresh spam): the page again, nothing
 * decided or counted (DESIGN "Refresh spam buys nothing"). decide.ts `tooEarlyDecision` is the decide stage's
 * answer for it; {@link tooEarlyNow} answers it in one synchronous step when nothing on the way would wait — a
 * remembered cookie, no challenge, a snapshot to check revocations against — without the awaits of the
 * session and decide stages (three async frames and their turns of the microtask queue: about a tenth of a
 * too-early check-in's CPU on Node, issue 16). It does exactly what those stages do for such a ticket, in the
 * same order; anything else goes the whole way.
 */
import type { Context } from 'hono'
import type { EffectiveSettings } from '../../admission/settings.ts'
import type { Room } from '../room.ts'
import { checksInTooEarly, tooEarlyDecision } from './decide.ts'
import { queueResponse, queueView } from './respond.ts'
import { freshenRevocations } from './session.ts'

/**
 * The queue answer for a remembered, live, unrevoked queued ticket checking in too early, in one synchronous
 * step; undefined (nothing done but what the session stage does first: freshening revocations) when any
 * stage on the way would do more — a cookie to open, a challenge, a `reject` room, a cold worker's first
 * snapshot, a check-in that counts.
 */
export function tooEarlyNow(room: Room, c: Context, cookie: string, now: number, s: EffectiveSettings): Response | undefined {
  if (room.o.challenge || s.queueingMethod === 'reject') return undefined
  const opened = room.sealerOf(c).cached(cookie)
  if (opened === undefined) return undefined
  const { ticket } = opened
  if (ticket.acceptedAt > 0 || !room.live(ticket, now, s) || !checksInTooEarly(ticket, now)) return undefined
  if (room.revokeEnabled) {
    // session.ts readTicket: a revoked ticket is no ticket (a new user), and a cold worker waits for its snapshot.
    freshenRevocations(room, c, now)
    const snapshot = room.link.snapshot(now)
    if (snapshot === undefined || snapshot.revoked.has(ticket.ticketId)) return undefined
  }
  // Committed from here on: what decide and the middleware do for a too-early check-in.
  room.link.setSessionDuration(s.sessionDurationMinutes, now)
  const decision = tooEarlyDecision(room, c, ticket, now, room.locationOf(c), room.coordinatorOf(c))
  room.metrics.decisions['too-early']++
  c.set('waitingRoom', { outcome: 'queued', reason: 'too-early', ticketId: ticket.ticketId, bucketId: ticket.bucketId })
  return queueResponse(room, c, s, queueView(decision), now)
}
