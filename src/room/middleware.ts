/**
 * @module
 * `waitingRoom()`: the Hono middleware. It builds a {@link Room} once from the options, then runs each request
 * through the pipeline (DESIGN "The request pipeline"), one stage a file in `pipeline/`:
 *
 *   step aside (another room, coverage, the admin API, bypass rules) → settings → session (admitted: no
 *   coordinator call) → challenge (src/challenge/) → decide (slot or queue) → respond
 */
import { ticketPosition } from '../coordination/positions.ts'
import type { Context, Env, MiddlewareHandler, Next } from 'hono'
import { minuteOf } from '../clock.ts'
import { challengeView, checkChallenge, heldResponse } from '../challenge/gate.ts'
import type { WaitingRoomEnv, WaitingRoomMiddleware } from './decision.ts'
import { resolveOptions, type ResolvedOptions, type WaitingRoomOptions } from './options.ts'
import { decide } from './pipeline/decide.ts'
import { applyOriginCommand, stripOriginCommands } from './pipeline/origin-command.ts'
import { carryTicket } from './ticket-carry.ts'
import { queueResponse, queueView } from './pipeline/respond.ts'
import { continueSession, readTicket, sessionNow, ticketCookieOf, type TicketRead } from './pipeline/session.ts'
import { Room } from './room.ts'
import { registerHandler } from './registry.ts'
import { stepAside, type Aside } from './pipeline/step-aside.ts'
import { tooEarlyNow } from './pipeline/too-early.ts'
import type { EffectiveSettings } from '../admission/settings.ts'
import type { Ticket } from '../ticket/ticket.ts'

export type {
  DecisionReason,
  RoomHandle,
  WaitingRoomDecision,
  WaitingRoomEnv,
  WaitingRoomMiddleware,
  WaitingRoomVariables,
} from './decision.ts'

/** The origin answers without the room; its command headers are still stripped (origin-command.ts). */
async function passThrough(c: Context, next: Next): Promise<void> {
  await next()
  stripOriginCommands(c)
}

/**
 * An admitted user whose session stage was answered without an await (session.ts `sessionNow`): the
 * origin's answer, then its commands. Nothing was sealed, so there is no ticket to carry.
 */
async function passAdmitted(room: Room, c: Context, next: Next, ticket: Ticket, now: number): Promise<void> {
  room.metrics.decisions.session++
  c.set('waitingRoom', { outcome: 'admitted', reason: 'session', ticketId: ticket.ticketId, acceptedAt: ticket.acceptedAt })
  await next()
  if (room.revokeEnabled) applyOriginCommand(room, c, ticket.ticketId, ticketPosition(ticket), now)
  else stripOriginCommands(c)
}

/** The pipeline once nothing stepped aside and the settings are known: synchronous up to the origin for most admitted users. */
function withSettings(room: Room, c: Context, next: Next, now: number, s: EffectiveSettings): Promise<Response | void> {
  if (s.suspended) {
    room.metrics.decisions.suspended++
    c.set('waitingRoom', { outcome: 'bypassed', reason: 'suspended' })
    return passThrough(c, next)
  }
  const cookie = ticketCookieOf(room, c)
  const ticket = sessionNow(room, c, cookie, now, s)
  if (ticket !== undefined) return passAdmitted(room, c, next, ticket, now)
  // A queued user's refresh spam: the page again, without the awaits of the whole way (pipeline/too-early.ts).
  const early = cookie === undefined ? undefined : tooEarlyNow(room, c, cookie, now, s)
  return early !== undefined ? Promise.resolve(early) : decideAwaiting(room, c, next, now, s, cookie ?? null)
}

/** The pipeline once the step-aside stage answered. */
function afterAside(room: Room, c: Context, next: Next, now: number, aside: Aside): Promise<Response | void> {
  if (aside === 'other-room') return passThrough(c, next)
  if (aside !== undefined) {
    room.metrics.decisions.bypass++
    c.set('waitingRoom', { outcome: 'bypassed', reason: 'bypass' })
    return passThrough(c, next)
  }
  const current = room.settingsAt(c, now)
  return current instanceof Promise ? current.then((s) => withSettings(room, c, next, now, s)) : withSettings(room, c, next, now, current)
}

/** What {@link readTicket} answers for a request without a ticket cookie. */
const NO_TICKET: TicketRead = Object.freeze({ ticket: undefined, stale: false })

/** Every other request from the session stage on: a ticket to open, a renewal, a challenge, a decision. */
async function decideAwaiting(room: Room, c: Context, next: Next, now: number, s: EffectiveSettings, sent: string | null): Promise<Response | void> {
  // Session: an admitted user with a live ticket goes through with no coordinator call.
  const read = sent === null ? NO_TICKET : await readTicket(room, c, now, s, sent) // no cookie: nothing to wait for
  let { ticket } = read
  const countedMinute = ticket && ticket.acceptedAt > 0 ? await continueSession(room, c, ticket, read.stale, now, s) : undefined
  if (ticket && ticket.acceptedAt > 0 && countedMinute === undefined) ticket = undefined // counted nowhere: its session ended
  if (ticket && countedMinute !== undefined) {
    room.metrics.decisions.session++
    c.set('waitingRoom', { outcome: 'admitted', reason: 'session', ticketId: ticket.ticketId, acceptedAt: ticket.acceptedAt })
    await next()
    carryTicket(c)
    if (room.revokeEnabled) applyOriginCommand(room, c, ticket.ticketId, countedMinute, now)
    else stripOriginCommands(c)
    return
  }

  // Challenge (src/challenge/): answered before, answered now, or held in the infinite queue.
  const challenge = room.o.challenge && (await checkChallenge(room, c, ticket, now))
  // Held before any decision under `always`, and always for a queued ticket without the claim (minted before
  // the challenge was on, or by a `log` room with the same secret): it answers first, then keeps its bucket.
  if (challenge && challenge.held && (room.o.challenge!.when === 'always' || ticket)) return heldResponse(room, c, s, now)

  // Decide: a slot, or a place in line.
  const decision = await decide(room, c, s, ticket, now, !challenge || !challenge.held)
  if (challenge && challenge.held && decision.outcome === 'queued') return heldResponse(room, c, s, now)
  room.metrics.decisions[decision.reason]++
  const { ticketId, bucketId } = decision
  // The claim as a field of every ticket (undefined: none, sealed alike), not a spread: the literals keep one shape.
  const claim = challenge && challenge.passed ? (1 as const) : undefined
  if (decision.outcome === 'admitted') {
    const admitted = { roomId: room.o.roomId, ticketId, bucketId: bucketId!, acceptedAt: now, lastCheckInTime: now, refreshIntervalSeconds: 0, challenge: claim }
    const set = room.setTicket(c, admitted, now, s)
    if (set) await set // sealed already most often: no await
    c.set('waitingRoom', { outcome: 'admitted', reason: decision.reason, ticketId, acceptedAt: now, bucketId })
    await next()
    carryTicket(c)
    if (room.revokeEnabled) applyOriginCommand(room, c, ticketId, minuteOf(now), now)
    else stripOriginCommands(c)
    return
  }

  // Respond: the queue page, with the ticket that keeps the user's place (none for a rejection).
  let cookie: string | undefined
  if (decision.outcome === 'rejected') c.set('waitingRoom', { outcome: 'rejected', reason: decision.reason })
  else {
    if (decision.reason === 'too-early' && ticket && challenge && challenge.passed && ticket.challenge !== 1) {
      cookie = await room.ticketCookie(c, { ...ticket, challenge: 1 }, now, s) // answered early: the claim is kept, nothing counted
    } else if (decision.reason !== 'too-early' && decision.reason !== 'queue-full') {
      const queuedTicket = { roomId: room.o.roomId, ticketId, bucketId: bucketId!, acceptedAt: 0, lastCheckInTime: now, refreshIntervalSeconds: decision.refresh, challenge: claim }
      const sealed = room.ticketCookie(c, queuedTicket, now, s)
      cookie = typeof sealed === 'string' ? sealed : await sealed // most often sealed already: no await
    }
    c.set('waitingRoom', { outcome: 'queued', reason: decision.reason, ticketId, bucketId })
  }
  // `log` mode: the page still carries the challenge until it is answered.
  const shown = challenge && !challenge.passed && decision.outcome === 'queued' ? await challengeView(room, c, now) : undefined
  return queueResponse(room, c, s, queueView(decision, cookie, shown), now)
}

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
  const handle = room.handle()

  // No await before the origin unless a stage has to wait (an async rule, a first load, a cookie to open, a
  // renewal): each await costs an admitted request more than the rest of the room (issue 16, on Deno most).
  const middleware: MiddlewareHandler<E & WaitingRoomEnv> = function waitingRoom(c, next) {
    try {
      // Another room decides, the room does not cover it, its admin API answers it, or a bypass rule matches.
      const now = room.o.clock()
      const stepping = stepAside(room, c, now)
      return stepping instanceof Promise ? stepping.then((aside) => afterAside(room, c, next, now, aside)) : afterAside(room, c, next, now, stepping)
    } catch (error) {
      return Promise.reject(error) // a middleware's failure is a rejection, as from an async function
    }
  }

  registerHandler(middleware, room)
  return Object.assign(middleware, { room: handle })
}
