/**
 * @module
 * `waitingRoom()`: the Hono middleware that wires coverage, tickets, settings and events, the worker's
 * snapshot, the minute plan and the coordinator's counters together (DESIGN "The request pipeline").
 */
import type { Context, Env, MiddlewareHandler } from 'hono'
import { memoryCoordinator } from '../coordination/memory.ts'
import { minuteOf, MINUTE_MS } from '../clock.ts'
import { takeSlot, type Coordinator, type SlotResult } from '../coordination/coordinator.ts'
import { cookieHeaderOf, isHttps, readCookie, serializeCookie } from '../ticket/cookie.ts'
import { coverageCheck } from './coverage.ts'
import type { DecisionReason, RoomHandle, WaitingRoomEnv, WaitingRoomMiddleware } from './decision.ts'
import { normalizeEvents } from '../admission/events.ts'
import { deferTo, waitUntilOf } from './execution.ts'
import { defaultLocation } from '../admission/location.ts'
import { messagesFor } from '../page/messages.ts'
import { RoomMetrics } from './metrics.ts'
import { resolveOptions, type ResolvedOptions, type WaitingRoomOptions } from './options.ts'
import { fifoLimits, planMinute, randomLimits, releasedFraction, type CounterLimits, type MinutePlan } from '../admission/plan.ts'
import { renderQueuePage } from '../page/queue-page.ts'
import { ticketSealerOf } from '../ticket/secret.ts'
import { queueVariables } from '../page/queue-variables.ts'
import { SettingsSource, type EffectiveSettings } from '../admission/settings.ts'
import { waitingWindowMinutes, type Snapshot } from '../admission/snapshot.ts'
import { activeField, admittedField, anywhereAdmittedField, revokedField, trafficField, waitingField } from '../coordination/state.ts'
import { randomId, type OpenedTicket, type Ticket } from '../ticket/ticket.ts'
import { withTimeout, WorkerLink } from '../coordination/worker-link.ts'

export type {
  DecisionReason,
  RoomHandle,
  WaitingRoomDecision,
  WaitingRoomEnv,
  WaitingRoomMiddleware,
  WaitingRoomVariables,
} from './decision.ts'

/** Refresh intervals vary by ±10% per check-in, so check-ins spread out (seed 002). */
const REFRESH_JITTER = 0.1
/** A queued ticket outlives this many refresh intervals after its last check-in. */
const QUEUED_TICKET_CHECK_INS = 3
/** A check-in this much before its refresh interval is over still counts (browser timers are not exact). */
const CHECK_IN_TOLERANCE_MS = 1000
/** A ticket checked in further in the future than this was not sealed by a sane clock: a new user. */
const CLOCK_SKEW_MS = 30_000
/** Longest a worker uses a snapshot (or settings) before refreshing them with nothing to report. */
const MAX_SNAPSHOT_AGE_MS = 5000
/** Report interval when neither the option nor the coordinator states one (remote backends). */
const DEFAULT_SYNC_INTERVAL_MS = 1000
/** Prequeued users of a shuffled event get one of this many buckets before the start, at random. */
const SHUFFLE_BUCKETS = 60
const COMMAND_HEADER = 'waiting-room-command'

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
  const o = resolveOptions(options) as unknown as ResolvedOptions
  const settings = new SettingsSource(
    o.roomId,
    {
      totalActiveUsers: o.totalActiveUsers,
      newUsersPerMinute: o.newUsersPerMinute,
      sessionDurationMinutes: o.sessionDurationMinutes,
      disableSessionRenewal: o.disableSessionRenewal,
      queueingMethod: o.queueingMethod,
      queueAll: o.queueAll,
      suspended: o.suspended,
      queueingStatusCode: o.queueingStatusCode,
      template: o.template,
    },
    normalizeEvents(o.events),
    o.storage,
    MAX_SNAPSHOT_AGE_MS,
  )
  const fixedCoordinator: Coordinator | undefined =
    typeof o.coordinator === 'function' ? undefined : (o.coordinator ?? memoryCoordinator())
  const coordinatorOf = (c: Context): Coordinator => fixedCoordinator ?? (o.coordinator as (c: Context) => Coordinator)(c)
  const locationOf: (c: Context) => string = o.location ?? defaultLocation
  const waitingWindow = waitingWindowMinutes(o.refreshIntervalSeconds)
  const link = new WorkerLink({
    roomId: o.roomId,
    sessionDurationMinutes: o.sessionDurationMinutes,
    syncIntervalMs: o.syncIntervalMs ?? fixedCoordinator?.preferredSyncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS,
    maxSnapshotAgeMs: MAX_SNAPSHOT_AGE_MS,
    timeoutMs: o.coordinatorTimeoutMs,
    clock: o.clock,
    waitingWindowMinutes: waitingWindow,
  })
  const metrics = new RoomMetrics()
  const covers = coverageCheck(o.coverage)
  const revokeEnabled = o.enabledOriginCommands.includes('revoke')
  const cookieAttributes = { sameSite: o.sameSite, secure: o.secure, domain: o.cookieDomain, partitioned: o.cookiePartitioned }

  const sealerOf = ticketSealerOf(o.roomId, o.secret)

  let plan: MinutePlan | undefined
  let planKey: [Snapshot, EffectiveSettings] | undefined
  const planOf = (snapshot: Snapshot, s: EffectiveSettings): MinutePlan => {
    if (!plan || planKey![0] !== snapshot || planKey![1] !== s) {
      plan = planMinute(snapshot, s)
      planKey = [snapshot, s]
    }
    return plan
  }

  /** The settings now; awaits only the very first load (an unreachable storage leaves the options in force). */
  const settingsAt = (c: Context, now: number): EffectiveSettings | Promise<EffectiveSettings> => {
    if (!settings.loaded) return settings.load(now).then(() => settings.at(now), () => settings.at(now))
    if (settings.refreshDue(now)) settings.maybeRefresh(now, waitUntilOf(c))
    return settings.at(now)
  }

  /** A session lasts through minute m + sessionDurationMinutes of its last check-in, so it leaves the count exactly then. */
  const sessionEndsAt = (ticket: Ticket, s: EffectiveSettings): number => {
    const session =
      (minuteOf(ticket.acceptedAt > 0 && s.disableSessionRenewal ? ticket.acceptedAt : ticket.lastCheckInTime) + s.sessionDurationMinutes + 1) *
      MINUTE_MS
    // A queued ticket is the user's place in line: it must outlive the refresh interval (and a missed
    // check-in or two) whatever the session length, or a slow refresh sends the user to the back.
    if (ticket.acceptedAt > 0) return session
    return Math.max(session, ticket.lastCheckInTime + QUEUED_TICKET_CHECK_INS * ticket.refreshIntervalSeconds * 1000)
  }
  const live = (ticket: Ticket, now: number, s: EffectiveSettings): boolean =>
    ticket.lastCheckInTime <= now + CLOCK_SKEW_MS && now < sessionEndsAt(ticket, s)

  const setTicket = async (c: Context, ticket: Ticket, now: number, s: EffectiveSettings): Promise<void> => {
    const value = await sealerOf(c).seal(ticket)
    const https = isHttps(c.req.url, c.req.header('x-forwarded-proto'))
    const maxAge = (sessionEndsAt(ticket, s) - now) / 1000
    c.header('Set-Cookie', serializeCookie(o.cookieName, value, maxAge, cookieAttributes, https), { append: true })
  }

  /** Counts a queued user's check-in in `minute`, moving them out of the minute of their previous one. */
  const countQueueCheckIn = (location: string, ticket: Ticket | undefined, bucketId: number, minute: number, ticketId: string): void => {
    if (!link.firstCheckIn(ticketId, minute)) return
    link.record(location, trafficField(minute), 1)
    const previous = ticket && ticket.acceptedAt === 0 ? minuteOf(ticket.lastCheckInTime) : undefined
    if (previous === minute) return
    if (previous !== undefined && previous > minute - waitingWindow) link.record(location, waitingField(previous, bucketId), -1)
    link.record(location, waitingField(minute, bucketId), 1)
  }

  const queueResponse = (
    c: Context,
    s: EffectiveSettings,
    snapshot: Snapshot | undefined,
    bucketId: number | undefined,
    refresh: number,
    now: number,
    newlyQueued = false,
  ): Response => {
    const messages = messagesFor(c.req.header('accept-language'), o.defaultTemplateLanguage)
    const variables = queueVariables({
      settings: s,
      snapshot,
      plan: snapshot ? planOf(snapshot, s) : undefined,
      bucketId,
      newlyQueued,
      refreshIntervalSeconds: refresh,
      now,
      messages,
    })
    c.header('Cache-Control', 'no-store')
    if (refresh > 0) c.header('Refresh', String(refresh))
    if (o.jsonResponseEnabled && (c.req.header('accept') ?? '').includes('application/json')) {
      return c.json({ waitingRoom: variables }, s.queueingStatusCode)
    }
    return c.html(renderQueuePage(variables, s.template, messages), s.queueingStatusCode)
  }

  /**
   * After the origin answered: a `Waiting-Room-Command: revoke` ends the session at once — its slot is
   * freed, every worker refuses the ticket from the next snapshot on, the cookie is cleared — and the
   * header never reaches the client. Only runs when the command is enabled (reading headers after
   * `next()` has a cost on Node).
   */
  const applyOriginCommand = (c: Context, ticketId: string, countedMinute: number, now: number): void => {
    const command = c.res.headers.get(COMMAND_HEADER)
    if (command === null) return
    const response = new Response(c.res.body, c.res) // origin headers may be immutable (a fetch Response)
    response.headers.delete(COMMAND_HEADER)
    if (command.trim().toLowerCase() === 'revoke') {
      const location = locationOf(c)
      const minute = minuteOf(now)
      link.record(location, activeField(countedMinute), -1)
      link.record(location, revokedField(minute, ticketId), 1)
      link.maybeSync(coordinatorOf(c), location, now, deferTo(c))
      metrics.revocations++
      const https = isHttps(c.req.url, c.req.header('x-forwarded-proto'))
      response.headers.append('Set-Cookie', serializeCookie(o.cookieName, '', 0, cookieAttributes, https))
    }
    c.res = undefined as never // replace rather than merge: Hono merges headers into a set response
    c.res = response
  }

  const room: RoomHandle = {
    roomId: o.roomId,
    options: o,
    settings,
    metrics,
    link,
    coordinatorOf,
    locationOf,
    flush: () => link.flush(),
    async status(c) {
      const now = o.clock()
      const s = await settingsAt(c, now)
      link.setSessionDuration(s.sessionDurationMinutes, now)
      const coordinator = coordinatorOf(c)
      const location = locationOf(c)
      const snapshot = await link.ready(coordinator, location, now)
      link.maybeSync(coordinator, location, now, deferTo(c))
      return { settings: s, snapshot, plan: planOf(snapshot, s) }
    },
  }

  const middleware: MiddlewareHandler<E & WaitingRoomEnv> = async function waitingRoom(c, next) {
    if (covers && !(await covers(c))) {
      metrics.decisions.bypass++
      c.set('waitingRoom', { outcome: 'bypassed', reason: 'bypass' })
      return next()
    }
    const now = o.clock()
    const current = settingsAt(c, now)
    const s = current instanceof Promise ? await current : current
    if (s.suspended) {
      metrics.decisions.suspended++
      c.set('waitingRoom', { outcome: 'bypassed', reason: 'suspended' })
      return next()
    }
    const cookie = readCookie(cookieHeaderOf(c), o.cookieName)
    let opened: OpenedTicket | undefined
    if (cookie !== undefined) {
      const sealer = sealerOf(c)
      // A remembered ticket is answered without an await; only a new cookie text is opened.
      opened = sealer.cached(cookie) ?? (await sealer.open(cookie))
    }
    const ticket =
      opened && live(opened.ticket, now, s) && !(revokeEnabled && link.snapshot(now)?.revoked.has(opened.ticket.ticketId))
        ? opened.ticket
        : undefined
    const minute = minuteOf(now)

    // Admitted with a live session: no coordinator call; a new cookie only once a minute (or after rotation).
    if (ticket && ticket.acceptedAt > 0) {
      const lastMinute = minuteOf(ticket.lastCheckInTime)
      let countedMinute = lastMinute
      if (lastMinute < minute && !s.disableSessionRenewal) {
        const location = locationOf(c)
        if (link.firstCheckIn(ticket.ticketId, minute)) {
          link.record(location, activeField(lastMinute), -1)
          link.record(location, activeField(minute), 1)
          link.record(location, trafficField(minute), 1)
          link.maybeSync(coordinatorOf(c), location, now, deferTo(c))
        }
        countedMinute = minute
        await setTicket(c, { ...ticket, lastCheckInTime: now }, now, s)
      } else if (opened!.stale) {
        await setTicket(c, ticket, now, s)
      } else if (s.disableSessionRenewal && link.firstCheckIn(ticket.ticketId, minute)) {
        link.record(locationOf(c), trafficField(minute), 1)
      }
      metrics.decisions.session++
      c.set('waitingRoom', { outcome: 'admitted', reason: 'session', ticketId: ticket.ticketId, acceptedAt: ticket.acceptedAt })
      await next()
      if (revokeEnabled) applyOriginCommand(c, ticket.ticketId, countedMinute, now)
      return
    }

    if (s.queueingMethod === 'reject') {
      metrics.decisions.reject++
      c.set('waitingRoom', { outcome: 'rejected', reason: 'reject' })
      return queueResponse(c, s, undefined, undefined, 0, now)
    }

    const queued = ticket !== undefined // a live ticket that is not admitted is a queued one
    const location = locationOf(c)
    const coordinator = coordinatorOf(c)
    const ticketId = ticket?.ticketId ?? randomId()
    const waitUntil = deferTo(c)
    link.setSessionDuration(s.sessionDurationMinutes, now)

    // Refresh spam buys nothing: a check-in before the interval is over gets the page again, undecided.
    if (queued && now < ticket.lastCheckInTime + ticket.refreshIntervalSeconds * 1000 - CHECK_IN_TOLERANCE_MS) {
      metrics.decisions['too-early']++
      c.set('waitingRoom', { outcome: 'queued', reason: 'too-early', ticketId, bucketId: ticket.bucketId })
      const left = Math.max(1, Math.ceil((ticket.lastCheckInTime + ticket.refreshIntervalSeconds * 1000 - now) / 1000))
      link.maybeSync(coordinator, location, now, waitUntil)
      return queueResponse(c, s, link.snapshot(now), ticket.bucketId, left, now)
    }

    let bucketId = ticket?.bucketId ?? minute
    let snapshot: Snapshot | undefined
    let result: SlotResult = { admitted: false, roundTrips: 0 }
    let reason: DecisionReason = 'no-slot'
    try {
      snapshot = await link.ready(coordinator, location, now)
      const event = s.phase.event
      if (s.phase.prequeueing && event) {
        reason = 'prequeue'
        // Prequeued users go before everyone arriving after the start; shuffled, in a random order among themselves.
        if (!queued && event.shuffleAtEventStart) bucketId = minuteOf(event.eventStartTime) - 1 - Math.floor(o.random() * SHUFFLE_BUCKETS)
      } else if (s.queueingMethod === 'passthrough') {
        result = { admitted: true, roundTrips: 0 }
        reason = 'passthrough'
      } else if (s.queueAll) {
        reason = 'queue-all'
      } else {
        const minutePlan = planOf(snapshot, s)
        const limits: CounterLimits | undefined =
          s.queueingMethod === 'random'
            ? randomLimits(minutePlan, location, releasedFraction(o.roomId, minute, now - minute * MINUTE_MS))
            : fifoLimits(minutePlan, location, queued ? bucketId : undefined)
        if (!limits) reason = 'not-eligible'
        else if (limits.localLimit > 0 || limits.anywhereLimit > 0) {
          result = await withTimeout(
            takeSlot(coordinator, {
              roomId: o.roomId,
              location,
              minute,
              ...limits,
              localPreviousReported: snapshot.takenLastMinute.locations[location] ?? 0,
              anywherePreviousReported: snapshot.takenLastMinute.anywhere,
              token: ticketId,
            }),
            o.coordinatorTimeoutMs,
            coordinator.name,
          )
          metrics.counterRoundTrips += result.roundTrips
          if (result.admitted) reason = 'slot'
        }
      }
    } catch (error) {
      link.failed(error, now)
      result = { admitted: o.failMode === 'open', roundTrips: 0 }
      reason = o.failMode === 'open' ? 'fail-open' : 'fail-closed'
    }
    metrics.decisions[reason]++

    if (result.admitted) {
      // Counted once per worker and minute. A repeat answer usually means a replayed cookie (already counted),
      // but for a queued ticket it can also mean our earlier attempt took the slot and its reply was lost (a
      // timeout): then nobody counted it yet, and this worker does.
      if ((!result.repeat || queued) && link.firstCheckIn(`admitted:${ticketId}`, minute)) {
        link.record(location, activeField(minute), 1)
        link.record(location, admittedField(minute), 1)
        if (result.via === 'anywhere') link.record(location, anywhereAdmittedField(minute), 1)
        if (link.firstCheckIn(ticketId, minute)) link.record(location, trafficField(minute), 1)
        const previous = queued ? minuteOf(ticket.lastCheckInTime) : undefined
        if (previous !== undefined && previous > minute - waitingWindow) link.record(location, waitingField(previous, bucketId), -1)
      }
      link.maybeSync(coordinator, location, now, waitUntil)
      await setTicket(c, { roomId: o.roomId, ticketId, bucketId, acceptedAt: now, lastCheckInTime: now, refreshIntervalSeconds: 0 }, now, s)
      c.set('waitingRoom', { outcome: 'admitted', reason, ticketId, acceptedAt: now, bucketId })
      await next()
      if (revokeEnabled) applyOriginCommand(c, ticketId, minute, now)
      return
    }

    const base = o.refreshIntervalSeconds
    const spread = Math.max(1, Math.round(base * REFRESH_JITTER))
    const refresh = base + Math.round((o.random() * 2 - 1) * spread)
    countQueueCheckIn(location, ticket, bucketId, minute, ticketId)
    link.maybeSync(coordinator, location, now, waitUntil)
    await setTicket(c, { roomId: o.roomId, ticketId, bucketId, acceptedAt: 0, lastCheckInTime: now, refreshIntervalSeconds: refresh }, now, s)
    c.set('waitingRoom', { outcome: 'queued', reason, ticketId, bucketId })
    return queueResponse(c, s, snapshot, bucketId, refresh, now, !queued)
  }

  return Object.assign(middleware, { room })
}
