/**
 * @module
 * A `Room`: everything `waitingRoom()` builds once from its options — the settings source, the worker's link
 * to the coordinator, the ticket sealer, the minute-plan cache, the cookie writer — so the request pipeline
 * (`pipeline/`) is plain functions of `(room, c, …)`.
 */
import type { Context } from 'hono'
import { minuteOf } from '../clock.ts'
import { normalizeEvents } from '../admission/events.ts'
import { defaultLocation } from '../admission/location.ts'
import { planMinute, previousPlan, type MinutePlan } from '../admission/plan.ts'
import { SettingsSource, type EffectiveSettings } from '../admission/settings.ts'
import { waitingWindowMinutes, type Snapshot } from '../admission/snapshot.ts'
import type { Coordinator } from '../coordination/coordinator.ts'
import { memoryCoordinator } from '../coordination/memory.ts'
import { WorkerLink } from '../coordination/worker-link.ts'
import { HistoryRecorder } from '../history/recorder.ts'
import { isHttps, requestHeaderOf, serializeCookie, type CookieAttributes } from '../ticket/cookie.ts'
import { ticketSealerOf } from '../ticket/secret.ts'
import { withEpoch, type Ticket, type TicketSealer } from '../ticket/ticket.ts'
import { coverageCheck, plainCoverage, type PlainCoverage } from './coverage.ts'
import { claimCookie, type RegisteredRoom } from './registry.ts'
import { legacyRoutes, routeScorer } from './routes.ts'
import type { RoomHandle } from './decision.ts'
import { waitUntilOf, deferTo } from './execution.ts'
import { rememberTicket } from './ticket-carry.ts'
import { RoomMetrics } from './metrics.ts'
import { Refusals } from './pipeline/refusals.ts'
import { RuleSource } from '../rules/store.ts'
import { settleWithin } from '../coordination/timeout.ts'
import type { ResolvedOptions } from './options.ts'
import { sealedTag } from '../coordination/session-epoch.ts'
import { positionEndsAt, ticketPosition } from '../coordination/positions.ts'

/** A queued ticket outlives this many refresh intervals after its last check-in. */
const QUEUED_TICKET_CHECK_INS = 3
/** A ticket checked in further in the future than this was not sealed by a sane clock: a new user. */
const CLOCK_SKEW_MS = 30_000
/** Longest a worker uses a snapshot (or settings) before refreshing them with nothing to report. */
const MAX_SNAPSHOT_AGE_MS = 5000
/** Report interval when neither the option nor the coordinator states one (remote backends). */
const DEFAULT_SYNC_INTERVAL_MS = 1000
/** Shortest time between two history writes of a worker (charts refresh every few seconds). */
const HISTORY_FLUSH_INTERVAL_MS = 10_000

/**
 * The request's X-Forwarded-Proto as the app sees it. The standalone proxy rewrites an untrusted one in the
 * Fetch headers (and says so with its `forwarded` variable), so there those are read; elsewhere a request
 * whose raw header list has none has none — under @hono/node-server, asking the Fetch headers builds them
 * for the whole request, a large share of a new user's cost (issue 16).
 */
function forwardedProtoOf(c: Context): string | undefined {
  const raw = requestHeaderOf(c, 'x-forwarded-proto')
  if ((raw === undefined || raw === null) && c.get('forwarded' as never) === undefined) return undefined
  return c.req.header('x-forwarded-proto')
}

/** Puts a ticket's Set-Cookie line on the answer the origin gives (and on the request the origin sees). */
function setTicketCookie(c: Context, line: string): void {
  c.header('Set-Cookie', line, { append: true })
  rememberTicket(c, line)
}

export class Room implements RegisteredRoom {
  readonly o: ResolvedOptions
  get roomId(): string {
    return this.o.roomId
  }
  get cookieName(): string {
    return this.o.cookieName
  }
  readonly settings: SettingsSource
  /** Bypass rules added at runtime (admin `POST /rules`), from the settings storage. */
  readonly rules: RuleSource
  readonly link: WorkerLink
  readonly metrics: RoomMetrics = new RoomMetrics()
  /** Slot requests refused this minute: a new user they answer costs no coordinator call. */
  readonly refusals: Refusals = new Refusals()
  readonly history: HistoryRecorder
  /** Undefined when the room covers every request. */
  readonly covers: ((c: Context) => boolean | Promise<boolean>) | undefined
  /** The same answer from the method and a plain path alone; undefined when coverage needs the whole request (fast-path.ts). */
  readonly plainCovers: PlainCoverage | undefined
  readonly revokeEnabled: boolean
  /** The specificity of the most specific route covering a request (undefined: none), to rank rooms in one app. */
  readonly scoreOf: (c: Context) => number | undefined
  readonly sharesApp: boolean
  readonly waitingWindow: number
  readonly sealerOf: ReturnType<typeof ticketSealerOf>
  readonly locationOf: (c: Context) => string
  readonly #fixedCoordinator: Coordinator | undefined
  readonly #cookie: CookieAttributes
  #plan: { plan: MinutePlan; snapshot: Snapshot; settings: EffectiveSettings } | undefined
  #lastMinutePlan: MinutePlan | undefined

  constructor(o: ResolvedOptions) {
    this.o = o
    const { totalActiveUsers, newUsersPerMinute, sessionDurationMinutes, disableSessionRenewal, queueingMethod } = o
    const runtime = { totalActiveUsers, newUsersPerMinute, sessionDurationMinutes, disableSessionRenewal, queueingMethod }
    const more = { queueAll: o.queueAll, suspended: o.suspended, queueingStatusCode: o.queueingStatusCode, template: o.template }
    this.settings = new SettingsSource(o.roomId, { ...runtime, ...more }, normalizeEvents(o.events), o.storage, MAX_SNAPSHOT_AGE_MS)
    this.rules = new RuleSource(o.roomId, this.settings.storage, MAX_SNAPSHOT_AGE_MS, { clientIp: o.clientIp, clientCountry: o.clientCountry }, o.coordinatorTimeoutMs)
    this.#fixedCoordinator = typeof o.coordinator === 'function' ? undefined : (o.coordinator ?? memoryCoordinator())
    this.locationOf = o.location ?? defaultLocation
    this.waitingWindow = waitingWindowMinutes(o.refreshIntervalSeconds)
    this.link = new WorkerLink({
      roomId: o.roomId,
      sessionDurationMinutes: o.sessionDurationMinutes,
      syncIntervalMs: o.syncIntervalMs ?? this.#fixedCoordinator?.preferredSyncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS,
      maxSnapshotAgeMs: MAX_SNAPSHOT_AGE_MS,
      timeoutMs: o.coordinatorTimeoutMs,
      clock: o.clock,
      waitingWindowMinutes: this.waitingWindow,
    })
    const { routes, coverage } = o
    const rest = coverageCheck(coverage) // with routes: only the bypass rules
    this.scoreOf = routes ? routeScorer(routes, o.ignorePathCase) : routeScorer(legacyRoutes(coverage.hosts, coverage.paths), true, 'paths', false)
    this.covers = routes ? (c) => this.scoreOf(c) !== undefined && (rest ? rest(c) : true) : rest
    this.plainCovers = routes ? undefined : plainCoverage(coverage)
    this.sharesApp = routes !== undefined || o.compatibility === 'cloudflare'
    claimCookie(this)
    const retentionMinutes = o.analyticsRetentionDays * 24 * 60
    this.history = new HistoryRecorder({ roomId: o.roomId, retentionMinutes, flushIntervalMs: HISTORY_FLUSH_INTERVAL_MS, clock: o.clock })
    this.revokeEnabled = o.enabledOriginCommands.includes('revoke')
    this.#cookie = { sameSite: o.sameSite, secure: o.secure, domain: o.cookieDomain, partitioned: o.cookiePartitioned }
    const sealerOf = ticketSealerOf(o.roomId, o.secret)
    this.sealerOf = (c) => (this.knownSealer = sealerOf(c))
    if (o.secret) this.knownSealer = sealerOf(undefined as never) // fixed by the options: the request plays no part
  }

  /** The ticket sealer once the first request (or the options) fixed it: the fast path reads no environment. */
  knownSealer: TicketSealer | undefined

  coordinatorOf(c: Context): Coordinator {
    return this.#fixedCoordinator ?? (this.o.coordinator as (c: Context) => Coordinator)(c)
  }

  /** The minute's plan, computed once per snapshot and settings. */
  planOf(snapshot: Snapshot, settings: EffectiveSettings): MinutePlan {
    const cached = this.#plan
    if (cached && cached.snapshot === snapshot && cached.settings === settings) return cached.plan
    // The last plan of the minute before bounds what that minute granted that this snapshot may not show yet.
    if (cached && cached.plan.minute < snapshot.minute) this.#lastMinutePlan = cached.plan
    this.#lastMinutePlan = previousPlan(this.#lastMinutePlan, snapshot.minute, settings, () => this.link.snapshotBefore(snapshot.minute))
    const plan = planMinute(snapshot, settings, this.#lastMinutePlan)
    this.#plan = { plan, snapshot, settings }
    return plan
  }

  /** The settings now; awaits only the very first load (an unreachable storage leaves the options in force). */
  settingsAt(c: Context, now: number): EffectiveSettings | Promise<EffectiveSettings> {
    const { settings } = this
    if (!settings.loaded) return settings.load(now).then(() => settings.at(now), () => settings.at(now))
    if (settings.refreshDue(now)) settings.maybeRefresh(now, waitUntilOf(c))
    // Settings older than one refresh: wait for the reload (bounded), so a worker back from idle applies a change made elsewhere.
    if (settings.reloading) return settleWithin(settings.reloading, this.o.coordinatorTimeoutMs).then(() => settings.at(now))
    return settings.at(now)
  }

  /**
   * A session lasts as long as its count, `sessionDurationMinutes + 1` minutes past its position (positions.ts). A queued ticket is the user's place in line: it lives `queuePlaceKeptSeconds` (and at least
   * three refresh intervals) after the last check-in, whatever the session length, so a closed tab or a slow
   * refresh keeps the place.
   */
  sessionEndsAt(ticket: Ticket, s: EffectiveSettings): number {
    // Without renewal the count stays in its minute, else where the cookie says; a pending renewal lasts from its minute.
    const position = s.disableSessionRenewal ? minuteOf(ticket.acceptedAt > 0 ? ticket.acceptedAt : ticket.lastCheckInTime) : ticketPosition(ticket)
    const session = positionEndsAt(ticket.pending === undefined || s.disableSessionRenewal ? position : Math.max(position, ticket.pending), s.sessionDurationMinutes)
    if (ticket.acceptedAt > 0) return session
    const kept = Math.max(this.o.queuePlaceKeptSeconds * 1000, QUEUED_TICKET_CHECK_INS * ticket.refreshIntervalSeconds * 1000)
    return Math.max(session, ticket.lastCheckInTime + kept)
  }

  live(ticket: Ticket, now: number, s: EffectiveSettings): boolean {
    return ticket.lastCheckInTime <= now + CLOCK_SKEW_MS && now < this.sessionEndsAt(ticket, s)
  }

  /**
   * Seals `ticket` into the cookie, for as long as it lives, on the answer the origin gives: at once where the
   * seal needs no await (undefined returned), else once the returned promise settles.
   */
  setTicket(c: Context, ticket: Ticket, now: number, s: EffectiveSettings): Promise<void> | undefined {
    const cookie = this.ticketCookie(c, ticket, now, s)
    if (typeof cookie !== 'string') return cookie.then((line) => setTicketCookie(c, line))
    setTicketCookie(c, cookie) // sealed already: nothing for the caller to wait for
    return undefined
  }

  /**
   * The Set-Cookie line that carries `ticket` for as long as it lives (the queue answer sets it itself): a
   * string where the seal needs no await (ticket.ts `sealNow`), so a queued user's answer waits for nothing.
   */
  ticketCookie(c: Context, ticket: Ticket, now: number, s: EffectiveSettings): string | Promise<string> {
    // An admitted session is sealed with the epoch of the state it is counted in (session-epoch.ts).
    const epoch = ticket.acceptedAt > 0 ? this.link.epoch : undefined
    const sealed = epoch === undefined ? ticket : withEpoch(ticket, sealedTag(epoch, this.link.generation))
    const value = this.sealerOf(c).sealNow(sealed)
    const line = (text: string): string => this.cookie(c, text, (this.sessionEndsAt(sealed, s) - now) / 1000)
    return typeof value === 'string' ? line(value) : value.then(line)
  }

  /** The ticket cookie's header value (an empty value with max-age 0 clears it). */
  cookie(c: Context, value: string, maxAgeSeconds: number): string {
    return this.cookieFor(isHttps(c.req.url, forwardedProtoOf(c)), value, maxAgeSeconds)
  }

  /** {@link cookie} for a request whose scheme the caller already knows. */
  cookieFor(https: boolean, value: string, maxAgeSeconds: number): string {
    return serializeCookie(this.o.cookieName, value, maxAgeSeconds, this.#cookie, https)
  }

  /** Starts a background report if one is due (never waits for it). */
  report(c: Context, location: string, now: number, coordinator: Coordinator = this.coordinatorOf(c)): void {
    this.link.maybeSync(coordinator, location, now, deferTo(c))
    const snapshot = this.link.snapshot(now)
    if (snapshot && this.settings.loaded) {
      const { totalActiveUsers: limit, newUsersPerMinute } = this.settings.at(now)
      this.history.gauges(now, location, { activeUsers: snapshot.activeUsers, waitingUsers: snapshot.waitingUsers, limit, newUsersPerMinute }, snapshot)
    }
    this.history.maybeFlush(coordinator, now, deferTo(c))
  }

  /** What the admin API and servers hold on to. */
  handle(): RoomHandle {
    const room = this
    return {
      roomId: this.o.roomId,
      options: this.o,
      settings: this.settings,
      rules: this.rules,
      metrics: this.metrics,
      link: this.link,
      history: this.history,
      coordinatorOf: (c) => this.coordinatorOf(c),
      locationOf: this.locationOf,
      flush: () => Promise.all([this.link.flush(), this.history.flushPending()]).then(() => {}), // reports and history
      async status(c) {
        const now = room.o.clock()
        const s = await room.settingsAt(c, now)
        room.link.setSessionDuration(s.sessionDurationMinutes, now)
        const coordinator = room.coordinatorOf(c)
        const location = room.locationOf(c)
        const snapshot = await room.link.ready(coordinator, location, now)
        room.report(c, location, now, coordinator)
        return { settings: s, snapshot, plan: room.planOf(snapshot, s) }
      },
    }
  }
}
