/**
 * @module
 * Longer than 250 lines because every option's documentation, schema and default belong side by side.
 * The middleware's options: typed, documented with their defaults, validated once with zod when
 * `waitingRoom()` is called. A bad value throws a {@link WaitingRoomError} naming the field and what it allows.
 */
import { z } from 'zod'
import type { Context, Env } from 'hono'
import type { Coordinator } from '../coordination/coordinator.ts'
import type { CoverageOptions } from './coverage.ts'
import { cookieNameOf, routeOptionFields, type Compatibility, type RouteInput, type RouteOptions } from './route-options.ts'
import { eventSchema, type WaitingRoomEventInput } from '../admission/events.ts'
import { templateError } from '../page/template-check.ts'
import { WaitingRoomError } from '../errors.ts'
import { TEMPLATE_LANGUAGES, templateLanguageOf } from '../page/messages.ts'
import type { QueueingMethod } from '../admission/plan.ts'
import type { RoomSettings, SettingsStorage } from '../admission/settings.ts'
import { challengeSchema, resolveChallenge, type ChallengeOption, type ResolvedChallenge } from '../challenge/options.ts'
import { intRange } from '../admission/int-range.ts'

export type SameSite = 'auto' | 'lax' | 'strict' | 'none'
export type SecureMode = 'auto' | 'always' | 'never'
export type FailMode = 'open' | 'closed'

export interface CookieOptions {
  /** Cookie name. Default `__wroom` (`__cfwaitingroom` with `compatibility: 'cloudflare'`; `__wroom_<roomId>` for a room with `routes`). */
  name?: string | undefined
  /** Appended as `name_suffix`, e.g. to run two rooms on one host. Default none. */
  suffix?: string | undefined
  /** `auto` (default): `None` over HTTPS (needs Secure, allows iframes), else `Lax` (seed 002). */
  sameSite?: SameSite | undefined
  /** `auto` (default): Secure exactly when the request is HTTPS. `never` cannot go with sameSite `none`. */
  secure?: SecureMode | undefined
  /** Cookie Domain attribute. Default none (host-only). */
  domain?: string | undefined
  /**
   * Add `Partitioned` (CHIPS) when the cookie is SameSite=None: an embedded room keeps its ticket where
   * third-party cookies are blocked, in a separate cookie per embedding site. Default false.
   */
  partitioned?: boolean | undefined
}

export interface WaitingRoomOptions<E extends Env = Env> extends CoverageOptions, RouteOptions, ChallengeOption {
  /** Identifies the room in counters, state keys and tickets. Default `default`. */
  roomId?: string | undefined
  /** Users allowed on the protected routes at once. Default 200. */
  totalActiveUsers?: number | undefined
  /** Users allowed to enter in any one minute. Default 200. */
  newUsersPerMinute?: number | undefined
  /** Minutes an admitted user counts as active after their last request (1–30). Default 5. */
  sessionDurationMinutes?: number | undefined
  /** Sessions end `sessionDurationMinutes` after admission, however active the user is. Default false. */
  disableSessionRenewal?: boolean | undefined
  /** `fifo` (default) or `random`; `passthrough` queues nobody; `reject` shows a static page. */
  queueingMethod?: QueueingMethod | undefined
  /** Queue every new user regardless of slots (wait unknown). Default false. */
  queueAll?: boolean | undefined
  /** Let everyone through without a ticket. Default false. */
  suspended?: boolean | undefined
  /** Status of the queue page: 200 (default), 202 or 429. */
  queueingStatusCode?: 200 | 202 | 429 | undefined
  /** Answer `Accept: application/json` with the template variables as JSON. Default false. */
  jsonResponseEnabled?: boolean | undefined
  /** Seconds between a queued user's check-ins (5–300), jittered per check-in. Default 20. */
  refreshIntervalSeconds?: number | undefined
  /**
   * Seconds a queued user keeps their place after their last check-in (60–86400), whatever the session length:
   * closing the tab for a minute must not send anyone to the back of the line. Never less than three refresh
   * intervals. Default 300.
   */
  queuePlaceKeptSeconds?: number | undefined
  /**
   * Days of per-minute history (the admin API's `/analytics`) the coordinator keeps (1–90); older minutes are
   * deleted by the next write. Storage is minutes × locations, never users. Default 7.
   */
  analyticsRetentionDays?: number | undefined
  cookie?: CookieOptions | undefined
  /**
   * Ticket keys, at least 32 characters each; the first seals, all open (rotation: put the new key first).
   * Default: the `WAITING_ROOM_SECRET` environment variable or binding; with neither, a random key per
   * process and one warning (tickets then do not survive a restart or work across processes).
   */
  secret?: string | string[] | undefined
  /** A Mustache template replacing the default queue page. Default: the built-in page. */
  template?: string | undefined
  /**
   * Language of the default page when the browser's is not offered: one of `en`, `es`, `fr`, `de`, `it`, `pt`,
   * `nl`, `pl`, `ja`, `zh` (Simplified), `zh-Hant` (Traditional), `ko`, `ar`, `he`, `hi`, `tr`, `ru`, `uk`, `id`,
   * `fa`, `bg`, `hr`, `cs`, `da`, `fi`, `lt`, `lv`, `ms`, `nb`, `ro`, `el`, `hu`, `sr`, `sk`, `sl`, `sv`, `tl`,
   * `th`, `vi` — or Cloudflare's code for it (`en-US`, `pt-BR`, `zh-TW`, …). Default `en`.
   */
  defaultTemplateLanguage?: string | undefined
  /** Where the request is decided: a location name. Default: Cloudflare `cf.colo`, `DENO_REGION`, Vercel region, else `local`. */
  location?: ((c: Context<E>) => string) | undefined
  /** The shared state: an adapter, or a function of the request (for per-request bindings). Default: in-memory. */
  coordinator?: Coordinator | ((c: Context<E>) => Coordinator) | undefined
  /** What new users get when the coordinator fails or times out: `open` admits, `closed` (default) queues. */
  failMode?: FailMode | undefined
  /** Per-call timeout for the coordinator, in ms. Default 1000. */
  coordinatorTimeoutMs?: number | undefined
  /**
   * The most any worker's clock may be off, in ms (0–10000). No new slot is granted that close to a minute's start
   * or end by the worker's clock (admission/minute-edges.ts), so `newUsersPerMinute` holds in every minute of any
   * clock within this of every worker's, not only of each worker's own. Default 0: clocks taken as one.
   */
  clockSkewToleranceMs?: number | undefined
  /** Shortest interval between background reports, in ms. Default: the coordinator's preference, else 1000. */
  syncIntervalMs?: number | undefined
  /** Scheduled events with their own limits and optional prequeue (no two may overlap). Default none. */
  events?: WaitingRoomEventInput[] | undefined
  /** Origin response headers the room obeys: `['revoke']` lets `Waiting-Room-Command: revoke` end a session. Default none. */
  enabledOriginCommands?: 'revoke'[] | undefined
  /**
   * Where settings and events changed at runtime (admin API) are kept, shared by every worker: anything with
   * `getItem`/`setItem`, such as an unstorage storage (fs, Redis, Cloudflare KV, Deno KV…). Default: in memory,
   * per process.
   */
  storage?: SettingsStorage | undefined
  /** The clock, in ms since the epoch. Default `Date.now`; tests pass a fake one. */
  clock?: (() => number) | undefined
  /** Randomness for refresh jitter and prequeue shuffles, in [0, 1). Default `Math.random`; tests pass a seeded one. */
  random?: (() => number) | undefined
}

const positiveInt = (max: number) => intRange(1, max)
const fn = <T>(label: string) => z.custom<T>((value) => typeof value === 'function', { message: `expected ${label}` })

const cookieSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only').optional(),
  suffix: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only').optional(),
  sameSite: z.enum(['auto', 'lax', 'strict', 'none']).optional(),
  secure: z.enum(['auto', 'always', 'never']).optional(),
  domain: z.string().min(1).optional(),
  partitioned: z.boolean().optional(),
})

const optionsSchema = z
  .strictObject({
    roomId: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, '1–64 letters, digits, _ . or -').optional(),
    totalActiveUsers: positiveInt(10_000_000).optional(),
    newUsersPerMinute: positiveInt(10_000_000).optional(),
    sessionDurationMinutes: positiveInt(30).optional(),
    disableSessionRenewal: z.boolean().optional(),
    queueingMethod: z.enum(['fifo', 'random', 'passthrough', 'reject']).optional(),
    queueAll: z.boolean().optional(),
    suspended: z.boolean().optional(),
    queueingStatusCode: z.union([z.literal(200), z.literal(202), z.literal(429)], { error: 'expected 200, 202 or 429' }).optional(),
    jsonResponseEnabled: z.boolean().optional(),
    refreshIntervalSeconds: intRange(5, 300).optional(),
    queuePlaceKeptSeconds: intRange(60, 86_400).optional(),
    analyticsRetentionDays: intRange(1, 90).optional(),
    cookie: cookieSchema.optional(),
    secret: z
      .union([z.string().min(32, 'at least 32 characters'), z.array(z.string().min(32, 'at least 32 characters')).min(1)])
      .optional(),
    template: z.string().min(1).refine((t) => templateError(t) === undefined, { error: (i) => templateError(String(i.input)) ?? 'invalid template' }).optional(),
    defaultTemplateLanguage: z.preprocess(templateLanguageOf, z.enum(TEMPLATE_LANGUAGES, `one of ${TEMPLATE_LANGUAGES.join(', ')} (any case)`)).optional(),
    location: fn<(c: Context) => string>('a function (c) => string').optional(),
    coordinator: z
      .custom<Coordinator | ((c: Context) => Coordinator)>(
        (value) =>
          typeof value === 'function' ||
          (typeof value === 'object' && value !== null && 'increment' in value && 'sync' in value),
        { message: 'expected a coordinator (an adapter with increment and sync) or a function returning one' },
      )
      .optional(),
    failMode: z.enum(['open', 'closed']).optional(),
    coordinatorTimeoutMs: intRange(1, 60_000).optional(),
    clockSkewToleranceMs: intRange(0, 10_000).optional(),
    syncIntervalMs: intRange(0, 60_000).optional(),
    clock: fn<() => number>('a function returning ms since the epoch').optional(),
    random: fn<() => number>('a function returning a number in [0, 1)').optional(),
    events: z.array(eventSchema).optional(),
    enabledOriginCommands: z.array(z.enum(['revoke'])).optional(),
    storage: z.custom<SettingsStorage>((value) => typeof value === 'object' && value !== null && 'getItem' in value && 'setItem' in value, {
      message: 'expected a storage with getItem and setItem (an unstorage storage: createStorage(...))',
    }).optional(),
    paths: z.array(z.string().startsWith('/', 'paths start with /')).min(1).optional(),
    hosts: z.array(z.string().min(1)).min(1).optional(),
    bypass: z
      .strictObject({
        paths: z.array(z.string().startsWith('/', 'paths start with /')).optional(),
        methods: z.array(z.string().regex(/^[A-Za-z]+$/, 'HTTP method names')).optional(),
        when: fn<(c: Context) => boolean>('a function (c) => boolean').optional(),
      })
      .optional(),
    bypassCrawlers: z.union([z.boolean(), fn<(c: Context) => boolean>('a function (c) => boolean')]).optional(),
    ...routeOptionFields,
    challenge: challengeSchema.optional(),
  })
  .superRefine((options, ctx) => {
    if (options.routes && (options.paths || options.hosts)) {
      ctx.addIssue({ code: 'custom', path: ['routes'], message: 'give either routes or hosts/paths, not both (a route is a host + path pair)' })
    }
    if (options.cookie?.sameSite === 'none' && options.cookie.secure === 'never') {
      ctx.addIssue({
        code: 'custom',
        path: ['cookie', 'sameSite'],
        message: "sameSite 'none' requires a Secure cookie: set secure to 'auto' or 'always'",
      })
    }
  })

/** Validates options; throws naming the first bad field and what it allows. */
export function validateOptions<E extends Env>(options: WaitingRoomOptions<E>): WaitingRoomOptions<E> {
  const result = optionsSchema.safeParse(options)
  if (result.success) return options
  const messages = result.error.issues.map((issue) => {
    const field = issue.path.join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : '(options)')
    return `${field}: ${issue.message}`
  })
  throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option ${messages.join('; ')}`)
}

/** Every option with its default applied; the settings that can change at runtime are `RoomSettings`. */
export interface ResolvedOptions<E extends Env = Env> extends RoomSettings {
  roomId: string
  jsonResponseEnabled: boolean
  refreshIntervalSeconds: number
  queuePlaceKeptSeconds: number
  analyticsRetentionDays: number
  cookieName: string
  sameSite: SameSite
  secure: SecureMode
  cookieDomain: string | undefined
  cookiePartitioned: boolean
  secret: string[] | undefined
  defaultTemplateLanguage: string
  location: ((c: Context<E>) => string) | undefined
  coordinator: Coordinator | ((c: Context<E>) => Coordinator) | undefined
  failMode: FailMode
  coordinatorTimeoutMs: number
  clockSkewToleranceMs: number
  syncIntervalMs: number | undefined
  clock: () => number
  random: () => number
  events: WaitingRoomEventInput[]
  enabledOriginCommands: 'revoke'[]
  storage: SettingsStorage | undefined
  coverage: CoverageOptions
  routes: readonly RouteInput[] | undefined
  ignorePathCase: boolean
  maxQueuedUsers: number | undefined
  compatibility: Compatibility
  clientIp: ((c: Context) => string | undefined) | undefined
  clientCountry: ((c: Context) => string | undefined) | undefined
  challenge: ResolvedChallenge | undefined
}

export function resolveOptions<E extends Env>(input: WaitingRoomOptions<E> = {}): ResolvedOptions<E> {
  const options = validateOptions(input)
  return {
    roomId: options.roomId ?? 'default',
    totalActiveUsers: options.totalActiveUsers ?? 200,
    newUsersPerMinute: options.newUsersPerMinute ?? 200,
    sessionDurationMinutes: options.sessionDurationMinutes ?? 5,
    disableSessionRenewal: options.disableSessionRenewal ?? false,
    queueingMethod: options.queueingMethod ?? 'fifo',
    queueAll: options.queueAll ?? false,
    suspended: options.suspended ?? false,
    queueingStatusCode: options.queueingStatusCode ?? 200,
    jsonResponseEnabled: options.jsonResponseEnabled ?? false,
    refreshIntervalSeconds: options.refreshIntervalSeconds ?? 20,
    queuePlaceKeptSeconds: options.queuePlaceKeptSeconds ?? 300,
    analyticsRetentionDays: options.analyticsRetentionDays ?? 7,
    cookieName: cookieNameOf(options),
    sameSite: options.cookie?.sameSite ?? 'auto',
    secure: options.cookie?.secure ?? 'auto',
    cookieDomain: options.cookie?.domain,
    cookiePartitioned: options.cookie?.partitioned ?? false,
    secret: options.secret === undefined ? undefined : Array.isArray(options.secret) ? options.secret : [options.secret],
    template: options.template,
    defaultTemplateLanguage: options.defaultTemplateLanguage ?? 'en',
    location: options.location,
    coordinator: options.coordinator,
    failMode: options.failMode ?? 'closed',
    coordinatorTimeoutMs: options.coordinatorTimeoutMs ?? 1000,
    clockSkewToleranceMs: options.clockSkewToleranceMs ?? 0,
    syncIntervalMs: options.syncIntervalMs,
    clock: options.clock ?? Date.now,
    random: options.random ?? Math.random,
    events: options.events ?? [],
    enabledOriginCommands: options.enabledOriginCommands ?? [],
    storage: options.storage,
    coverage: { paths: options.paths, hosts: options.hosts, bypass: options.bypass, bypassCrawlers: options.bypassCrawlers },
    routes: options.routes,
    ignorePathCase: options.ignorePathCase ?? false,
    maxQueuedUsers: options.maxQueuedUsers,
    compatibility: options.compatibility ?? 'default',
    clientIp: options.clientIp as ((c: Context) => string | undefined) | undefined,
    clientCountry: options.clientCountry as ((c: Context) => string | undefined) | undefined,
    challenge: resolveChallenge(options.challenge),
  }
}
