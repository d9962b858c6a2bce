/**
 * @module
 * `waitingRoom()`: the Hono middleware. It builds a {@link Room} once from the options, then runs each request
 * through the pipeline (DESIGN "The request pipeline"), one stage a file in `pipeline/`:
 *
 *   coverage → settings → session (admitted: no coordinator call) → decide (slot or queue) → respond
 */
import type { Env, MiddlewareHandler } from 'hono'
import { minuteOf } from '../clock.ts'
import type { WaitingRoomEnv, WaitingRoomMiddleware } from './decision.ts'
import { resolveOptions, type ResolvedOptions, type WaitingRoomOptions } from './options.ts'
import { decide } from './pipeline/decide.ts'
import { applyOriginCommand } from './pipeline/origin-command.ts'
import { queueResponse } from './pipeline/respond.ts'
import { continueSession, readTicket } from './pipeline/session.ts'
import { Room } from './room.ts'

export type {
  DecisionReason,
  RoomHandle,
  WaitingRoomDecision,
  WaitingRoomEnv,
  WaitingRoomMiddleware,
  WaitingRoomVariables,
} from './decision.ts'

/**
 * A virtual waiting room in front of the routes it is mounted on.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono'
 * import { waitingRoom, type WaitingRoomEnv } from 'hono-waiting-room'
 *
 * const app = new Hono<WaitingRoomEnv>()
 * app.use('/*', waitingRoom({ totalActiveUsers: 500, newUsersPerMinute: 100 }))
 * app.get('/', (c) => c.text(`you are ${c.get('waitingRoom').outcome}`))
 * ```
 */
export function waitingRoom<E extends Env = Env>(options: WaitingRoomOptions<E> = {}): WaitingRoomMiddleware<E> {
  // The user's functions take the app's Context<E>; inside, every Context is the plain one.
  const room = new Room(resolveOptions(options) as unknown as ResolvedOptions)
  const { metrics } = room

  const middleware: MiddlewareHandler<E & WaitingRoomEnv> = async function waitingRoom(c, next) {
    // Coverage: requests the room does not cover pass, uncounted (no await unless a rule is asynchronous).
    const covered = room.covers ? room.covers(c) : true
    if (covered !== true && !(await covered)) {
      metrics.decisions.bypass++
      c.set('waitingRoom', { outcome: 'bypassed', reason: 'bypass' })
      return next()
    }
    const now = room.o.clock()
    const current = room.settingsAt(c, now)
    const s = current instanceof Promise ? await current : current
    if (s.suspended) {
      metrics.decisions.suspended++
      c.set('waitingRoom', { outcome: 'bypassed', reason: 'suspended' })
      return next()
    }

    // Session: an admitted user with a live ticket goes through with no coordinator call.
    const { ticket, stale } = await readTicket(room, c, now, s)
    if (ticket && ticket.acceptedAt > 0) {
      const countedMinute = await continueSession(room, c, ticket, stale, now, s)
      metrics.decisions.session++
      c.set('waitingRoom', { outcome: 'admitted', reason: 'session', ticketId: ticket.ticketId, acceptedAt: ticket.acceptedAt })
      await next()
      if (room.revokeEnabled) applyOriginCommand(room, c, ticket.ticketId, countedMinute, now)
      return
    }

    // Decide: a slot, or a place in line.
    const decision = await decide(room, c, s, ticket, now)
    metrics.decisions[decision.reason]++
    const { ticketId, bucketId } = decision
    if (decision.outcome === 'admitted') {
      const admitted = { roomId: room.o.roomId, ticketId, bucketId: bucketId!, acceptedAt: now, lastCheckInTime: now, refreshIntervalSeconds: 0 }
      await room.setTicket(c, admitted, now, s)
      c.set('waitingRoom', { outcome: 'admitted', reason: decision.reason, ticketId, acceptedAt: now, bucketId })
      await next()
      if (room.revokeEnabled) applyOriginCommand(room, c, ticketId, minuteOf(now), now)
      return
    }

    // Respond: the queue page, with the ticket that keeps the user's place (none for a rejection).
    if (decision.outcome === 'rejected') c.set('waitingRoom', { outcome: 'rejected', reason: decision.reason })
    else {
      if (decision.reason !== 'too-early') {
        const queuedTicket = { roomId: room.o.roomId, ticketId, bucketId: bucketId!, acceptedAt: 0, lastCheckInTime: now, refreshIntervalSeconds: decision.refresh }
        await room.setTicket(c, queuedTicket, now, s)
      }
      c.set('waitingRoom', { outcome: 'queued', reason: decision.reason, ticketId, bucketId })
    }
    return queueResponse(room, c, s, decision, now)
  }

  return Object.assign(middleware, { room: room.handle() })
}
