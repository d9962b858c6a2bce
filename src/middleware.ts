/**
 * @module
 * `waitingRoom()`: the Hono middleware that wires tickets, the worker's snapshot, the minute plan and the
 * coordinator's counters together (DESIGN "The request pipeline").
 */
import type { Context, Env, MiddlewareHandler } from 'hono'
import { env as runtimeEnv } from 'hono/adapter'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { minuteOf, MINUTE_MS } from './clock.ts'
import { takeSlot, type Coordinator, type SlotResult } from './coordinator.ts'
import { isHttps, readCookie, serializeCookie } from './cookie.ts'
import { resolveOptions, type ResolvedOptions, type WaitingRoomOptions } from './options.ts'
import { fifoLimits, planMinute, randomLimits, releasedFraction, type CounterLimits, type MinutePlan } from './plan.ts'
import { formatWait, messagesFor, renderQueuePage, type TemplateVariables } from './queue-page.ts'
import { WAITING_WINDOW_MINUTES, type Snapshot } from './snapshot.ts'
import { activeField, admittedField, trafficField, waitingField } from './state.ts'
import { randomId, TicketSealer, type Ticket } from './ticket.ts'
import { estimateFifoWait, estimateRandomWait, usersAhead } from './wait.ts'
import { withTimeout, WorkerLink } from './worker-link.ts'
import { defaultLocation } from './location.ts'

/** Why a request got its outcome. */
export type DecisionReason =
  | 'session' // a live admitted ticket
  | 'slot' // admitted now through a counter
  | 'passthrough' // queueing method passthrough: admitted and counted
  | 'suspended' // the room is suspended: no ticket
  | 'fail-open' // the coordinator failed and failMode is open
  | 'no-slot' // queued: no slot this minute
  | 'not-eligible' // queued: older buckets come first (FIFO)
  | 'too-early' // queued: check-in before the refresh interval; nothing decided
  | 'queue-all' // queued: the room queues everyone
  | 'fail-closed' // queued: the coordinator failed and failMode is closed
  | 'reject' // queueing method reject

/** The decision, available to the origin as `c.get('waitingRoom')`. */
export interface WaitingRoomDecision {
  outcome: 'admitted' | 'queued' | 'rejected' | 'bypassed'
  reason: DecisionReason
  ticketId?: string
  /** ms of admission, for admitted users. */
  acceptedAt?: number
  /** Minute number of the user's queue bucket. */
  bucketId?: number
}

export type WaitingRoomVariables = { waitingRoom: WaitingRoomDecision }
/** Add to your app's Env (`new Hono<WaitingRoomEnv>()`) to type `c.get('waitingRoom')`. */
export type WaitingRoomEnv = { Variables: WaitingRoomVariables }

const RANDOM_JITTER = 0.1
/** A check-in this much before its refresh interval is over still counts (browser timers are not exact). */
const CHECK_IN_TOLERANCE_MS = 1000
/** A ticket checked in further in the future than this was not sealed by a sane clock: a new user. */
const CLOCK_SKEW_MS = 30_000
/** Longest a worker uses a snapshot before refreshing it with nothing to report. */
const MAX_SNAPSHOT_AGE_MS = 5000
/** Preferred report interval when the coordinator states none (remote backends). */
const DEFAULT_SYNC_INTERVAL_MS = 1000

/** Refresh interval for one check-in: the base ± 10%, so check-ins spread over time (seed 002). */
function jitteredRefresh(base: number): number {
  const spread = Math.max(1, Math.round(base * RANDOM_JITTER))
  return base + Math.round((Math.random() * 2 - 1) * spread)
}

function waitUntilOf(c: Context): ((promise: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx
    return ctx.waitUntil.bind(ctx)
  } catch {
    return undefined // not on a runtime with an execution context
  }
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
export function waitingRoom<E extends Env = Env>(options: WaitingRoomOptions<E> = {}): MiddlewareHandler<E & WaitingRoomEnv> {
  const o: ResolvedOptions<E> = resolveOptions(options)
  const fixedCoordinator: Coordinator | undefined =
    typeof o.coordinator === 'function' ? undefined : (o.coordinator ?? memoryCoordinator())
  // The user's functions take the app's own Context<E>; ours carries the waiting room's variables too.
  const coordinatorOf = (c: Context): Coordinator =>
    fixedCoordinator ?? (o.coordinator as (c: Context) => Coordinator)(c)
  const locationOf = (o.location ?? defaultLocation) as (c: Context) => string
  const syncIntervalMs =
    o.syncIntervalMs ?? fixedCoordinator?.preferredSyncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS
  const link = new WorkerLink({
    roomId: o.roomId,
    sessionDurationMinutes: o.sessionDurationMinutes,
    syncIntervalMs,
    maxSnapshotAgeMs: MAX_SNAPSHOT_AGE_MS,
    timeoutMs: o.coordinatorTimeoutMs,
  })
  const sessionMinutes = o.sessionDurationMinutes

  let sealer: TicketSealer | undefined = o.secret ? new TicketSealer(o.roomId, o.secret) : undefined
  const sealerOf = (c: Context): TicketSealer => {
    if (sealer) return sealer
    let secret: string | undefined
    try {
      secret = runtimeEnv<{ WAITING_ROOM_SECRET?: string }>(c).WAITING_ROOM_SECRET
    } catch {
      secret = undefined // no environment on this runtime
    }
    if (secret && secret.length >= 32) {
      sealer = new TicketSealer(o.roomId, [secret])
    } else {
      console.warn(
        '[hono-waiting-room] no secret: set the `secret` option or WAITING_ROOM_SECRET (32+ characters). ' +
          'Using a random key for this process: tickets will not survive a restart or work across processes.',
      )
      sealer = new TicketSealer(o.roomId, [randomId() + randomId() + randomId()])
    }
    return sealer
  }

  let plan: MinutePlan | undefined
  let planSnapshot: Snapshot | undefined
  const planOf = (snapshot: Snapshot): MinutePlan => {
    if (planSnapshot !== snapshot || !plan) {
      plan = planMinute(snapshot, o)
      planSnapshot = snapshot
    }
    return plan
  }

  /** A session lasts through minute m + sessionDurationMinutes of its last check-in, so it leaves the count exactly then. */
  const sessionEndsAt = (ticket: Ticket): number =>
    (minuteOf(o.disableSessionRenewal ? ticket.acceptedAt : ticket.lastCheckInTime) + sessionMinutes + 1) * MINUTE_MS
  const live = (ticket: Ticket, now: number): boolean =>
    ticket.lastCheckInTime <= now + CLOCK_SKEW_MS && now < sessionEndsAt(ticket)

  const setTicket = async (c: Context, ticket: Ticket, now: number): Promise<void> => {
    const value = await sealerOf(c).seal(ticket)
    const https = isHttps(c.req.url, c.req.header('x-forwarded-proto'))
    const attributes = { sameSite: o.sameSite, secure: o.secure, domain: o.cookieDomain }
    c.header('Set-Cookie', serializeCookie(o.cookieName, value, (sessionEndsAt(ticket) - now) / 1000, attributes, https), {
      append: true,
    })
  }

  /** Counts a queued user's check-in in minute `minute`, moving them out of their previous minute. */
  const countQueueCheckIn = (location: string, ticket: Ticket | undefined, bucketId: number, minute: number, ticketId: string): void => {
    if (!link.firstCheckIn(ticketId, minute)) return
    link.record(location, trafficField(minute), 1)
    const previous = ticket && ticket.acceptedAt === 0 ? minuteOf(ticket.lastCheckInTime) : undefined
    if (previous === minute) return
    if (previous !== undefined && previous > minute - WAITING_WINDOW_MINUTES) link.record(location, waitingField(previous, bucketId), -1)
    link.record(location, waitingField(minute, bucketId), 1)
  }

  const queueVariables = (c: Context, snapshot: Snapshot | undefined, bucketId: number | undefined, refresh: number, now: number) => {
    const messages = messagesFor(c.req.header('accept-language'), o.defaultTemplateLanguage)
    const method = o.queueingMethod
    let waitTime: number | undefined
    const percentiles: [number | undefined, number | undefined, number | undefined] = [undefined, undefined, undefined]
    if (snapshot && !o.queueAll && method !== 'reject') {
      // Admissions per minute, or before any were seen, the rate at which sessions turn over.
      const rate = snapshot.admissionsPerMinute || Math.min(o.newUsersPerMinute, o.totalActiveUsers / (sessionMinutes + 1))
      if (method === 'random') {
        const waiting = Math.max(1, snapshot.waitingUsers)
        percentiles[0] = estimateRandomWait(rate, waiting, 0.25)
        percentiles[1] = estimateRandomWait(rate, waiting, 0.5)
        percentiles[2] = estimateRandomWait(rate, waiting, 0.75)
        waitTime = percentiles[1]
      } else {
        const ahead = usersAhead(planOf(snapshot).buckets, bucketId ?? snapshot.minute)
        waitTime = estimateFifoWait(Math.max(1, ahead), rate)
        percentiles[0] = percentiles[1] = percentiles[2] = waitTime
      }
    }
    const variables: TemplateVariables = {
      inWaitingRoom: method !== 'reject',
      waitTimeKnown: waitTime !== undefined,
      waitTime: waitTime ?? 0,
      waitTime25Percentile: percentiles[0] ?? 0,
      waitTime50Percentile: percentiles[1] ?? 0,
      waitTime75Percentile: percentiles[2] ?? 0,
      waitTimeFormatted: formatWait(waitTime, messages),
      queueIsFull: false,
      queueAll: o.queueAll,
      lastUpdated: new Date(now).toISOString(),
      refreshIntervalSeconds: refresh,
      queueingMethod: method,
      isFIFOQueue: method === 'fifo',
      isRandomQueue: method === 'random',
      isPassthroughQueue: method === 'passthrough',
      isRejectQueue: method === 'reject',
      isEventActive: false,
      isEventPrequeueing: false,
      timeUntilEventStart: 0,
      timeUntilEventEnd: 0,
      shuffleAtEventStart: false,
    }
    return { variables, messages }
  }

  const queueResponse = (c: Context, snapshot: Snapshot | undefined, bucketId: number | undefined, refresh: number, now: number): Response => {
    const { variables, messages } = queueVariables(c, snapshot, bucketId, refresh, now)
    c.header('Cache-Control', 'no-store')
    if (refresh > 0) c.header('Refresh', String(refresh))
    if (o.jsonResponseEnabled && (c.req.header('accept') ?? '').includes('application/json')) {
      return c.json({ waitingRoom: variables }, o.queueingStatusCode)
    }
    return c.html(renderQueuePage(variables, o.template, messages), o.queueingStatusCode)
  }

  return async function waitingRoom(c, next) {
    if (o.suspended) {
      c.set('waitingRoom', { outcome: 'bypassed', reason: 'suspended' })
      return next()
    }
    const now = o.clock()
    const cookie = readCookie(c.req.raw.headers.get('cookie'), o.cookieName)
    let opened = cookie === undefined ? undefined : sealer?.cached(cookie)
    if (cookie !== undefined && !opened) opened = await sealerOf(c).open(cookie)
    const ticket = opened && live(opened.ticket, now) ? opened.ticket : undefined
    const minute = minuteOf(now)

    // Admitted with a live session: no coordinator call; a new cookie only once a minute (or after rotation).
    if (ticket && ticket.acceptedAt > 0) {
      const lastMinute = minuteOf(ticket.lastCheckInTime)
      if (lastMinute < minute && !o.disableSessionRenewal) {
        const location = locationOf(c)
        if (link.firstCheckIn(ticket.ticketId, minute)) {
          link.record(location, activeField(lastMinute), -1)
          link.record(location, activeField(minute), 1)
          link.record(location, trafficField(minute), 1)
          link.maybeSync(coordinatorOf(c), location, now, waitUntilOf(c))
        }
        await setTicket(c, { ...ticket, lastCheckInTime: now }, now)
      } else if (opened!.stale) {
        await setTicket(c, ticket, now)
      } else if (o.disableSessionRenewal && link.firstCheckIn(ticket.ticketId, minute)) {
        link.record(locationOf(c), trafficField(minute), 1)
      }
      c.set('waitingRoom', { outcome: 'admitted', reason: 'session', ticketId: ticket.ticketId, acceptedAt: ticket.acceptedAt })
      return next()
    }

    const queued = ticket !== undefined // a live ticket that is not admitted is a queued one
    const ticketId = ticket?.ticketId ?? randomId()
    const bucketId = ticket?.bucketId ?? minute
    const location = locationOf(c)
    const coordinator = coordinatorOf(c)

    if (o.queueingMethod === 'reject') {
      c.set('waitingRoom', { outcome: 'rejected', reason: 'reject' })
      return queueResponse(c, undefined, undefined, 0, now)
    }

    // Refresh spam buys nothing: a check-in before the interval is over gets the page again, undecided.
    if (queued && now < ticket.lastCheckInTime + ticket.refreshIntervalSeconds * 1000 - CHECK_IN_TOLERANCE_MS) {
      c.set('waitingRoom', { outcome: 'queued', reason: 'too-early', ticketId, bucketId })
      return queueResponse(c, link.snapshot(now), bucketId, Math.max(1, Math.ceil((ticket.lastCheckInTime + ticket.refreshIntervalSeconds * 1000 - now) / 1000)), now)
    }

    let snapshot: Snapshot | undefined
    let result: SlotResult = { admitted: false, roundTrips: 0 }
    let reason: DecisionReason = 'no-slot'
    try {
      snapshot = await link.ready(coordinator, location, now, waitUntilOf(c))
      if (o.queueingMethod === 'passthrough') {
        result = { admitted: true, roundTrips: 0 }
        reason = 'passthrough'
      } else if (o.queueAll) {
        reason = 'queue-all'
      } else {
        const minutePlan = planOf(snapshot)
        const limits: CounterLimits | undefined =
          o.queueingMethod === 'random'
            ? randomLimits(minutePlan, location, releasedFraction(o.roomId, minute, now - minute * MINUTE_MS))
            : fifoLimits(minutePlan, location, queued ? bucketId : undefined)
        if (!limits) reason = 'not-eligible'
        else if (limits.localLimit > 0 || limits.anywhereLimit > 0) {
          result = await withTimeout(
            takeSlot(coordinator, { roomId: o.roomId, location, minute, ...limits, token: ticketId }),
            o.coordinatorTimeoutMs,
            coordinator.name,
          )
          if (result.admitted) reason = 'slot'
        }
      }
    } catch (error) {
      link.failed(error, now)
      result = { admitted: o.failMode === 'open', roundTrips: 0 }
      reason = o.failMode === 'open' ? 'fail-open' : 'fail-closed'
    }

    if (result.admitted) {
      if (!result.repeat) {
        link.record(location, activeField(minute), 1)
        link.record(location, admittedField(minute), 1)
        if (link.firstCheckIn(ticketId, minute)) link.record(location, trafficField(minute), 1)
        const previous = queued ? minuteOf(ticket.lastCheckInTime) : undefined
        if (previous !== undefined && previous > minute - WAITING_WINDOW_MINUTES) link.record(location, waitingField(previous, bucketId), -1)
      }
      link.maybeSync(coordinator, location, now, waitUntilOf(c))
      await setTicket(c, { roomId: o.roomId, ticketId, bucketId, acceptedAt: now, lastCheckInTime: now, refreshIntervalSeconds: 0 }, now)
      c.set('waitingRoom', { outcome: 'admitted', reason, ticketId, acceptedAt: now, bucketId })
      return next()
    }

    const refresh = jitteredRefresh(o.refreshIntervalSeconds)
    countQueueCheckIn(location, ticket, bucketId, minute, ticketId)
    link.maybeSync(coordinator, location, now, waitUntilOf(c))
    await setTicket(c, { roomId: o.roomId, ticketId, bucketId, acceptedAt: 0, lastCheckInTime: now, refreshIntervalSeconds: refresh }, now)
    c.set('waitingRoom', { outcome: 'queued', reason, ticketId, bucketId })
    return queueResponse(c, snapshot, bucketId, refresh, now)
  }
}
