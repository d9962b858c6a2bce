/**
 * @module
 * The options issue 19 added, in Cloudflare Waiting Room's terms: routes (host + path pairs, its
 * `additional_routes`), a queue ceiling (`queueIsFull`), and the Cloudflare compatibility mode. Kept apart from
 * `options.ts` so that file stays readable; `WaitingRoomOptions` extends {@link RouteOptions}.
 */
import type { Context } from 'hono'
import { z } from 'zod'
import { intRange } from '../admission/int-range.ts'

/** One covered route: a host and a path prefix, as a Cloudflare room's `host` + `path` or one of its `additional_routes`. */
export interface RouteInput {
  /** Host name (case-insensitive, port ignored); an IPv6 address bare (`::1`) or bracketed (`[::1]`). Default: any host. */
  host?: string | undefined
  /** Path prefix (`/shop` covers `/shop` and `/shop/…`; `*` matches one segment). Default `/`. */
  path?: string | undefined
}

export type Compatibility = 'default' | 'cloudflare'

export interface RouteOptions {
  /**
   * The host + path pairs the room covers (Cloudflare's `host`/`path` and `additional_routes`), instead of
   * `hosts` × `paths` (not together with them). Paths match case-sensitively, as Cloudflare's do, unless
   * `ignorePathCase`. Several rooms in one app: the room whose route is most specific decides a request
   * (README "Several rooms in one app"). A room with routes and no cookie name writes `__wroom_<roomId>`.
   * Default: every request (or `hosts`/`paths`).
   */
  routes?: readonly RouteInput[] | undefined
  /** Match `routes` paths case-insensitively (for an origin that ignores case). Default false. */
  ignorePathCase?: boolean | undefined
  /**
   * The queue is full at this many waiting users: new users then get the page with `queueIsFull: true` and
   * no place in line (not counted as waiting, no ticket). Users already in line keep their place. Default: no limit.
   */
  maxQueuedUsers?: number | undefined
  /**
   * `cloudflare`: behave as Cloudflare Waiting Room does for clients — the JSON envelope is `cfWaitingRoom`,
   * JSON is answered only to exactly `Accept: application/json`, the cookie is `__cfwaitingroom` (plus
   * `_<cookie.suffix>`), and the origin may also send `Cf-Waiting-Room-Command`. Default `default`.
   */
  compatibility?: Compatibility | undefined
  /**
   * The client's address for runtime bypass rules (`ip` conditions). Default: the proxy's conclusion,
   * `CF-Connecting-IP` on Cloudflare Workers, else the socket's peer (Node, Bun, Deno); unknown elsewhere.
   */
  clientIp?: ((c: Context) => string | undefined) | undefined
  /** The client's country (ISO alpha-2) for `country` conditions. Default: `request.cf.country`, else `CF-IPCountry`. */
  clientCountry?: ((c: Context) => string | undefined) | undefined
}

const routePath = z
  .string()
  .startsWith('/', 'paths start with /')
  .refine((path) => !/[?#;\\%\x00-\x1f\x7f]|\/\/|\/\.\.?(?:\/|$)/.test(path.replace(/\/\*$/, '')), 'a plain decoded path prefix such as /shop (no ? # ; \\ % // or dot segments)')

/** The zod fields of {@link RouteOptions}, spread into the options schema. */
export const routeOptionFields = {
  routes: z
    .array(z.strictObject({ host: z.string().min(1).regex(/^[^/\s*]+$/, 'a host name, without scheme, path or wildcard').optional(), path: routePath.optional() }))
    .min(1)
    .optional(),
  ignorePathCase: z.boolean().optional(),
  maxQueuedUsers: intRange(1, 100_000_000).optional(),
  compatibility: z.enum(['default', 'cloudflare'], "'default' or 'cloudflare'").optional(),
  clientIp: z.custom<(c: Context) => string | undefined>((value) => typeof value === 'function', { message: 'expected a function (c) => string | undefined' }).optional(),
  clientCountry: z.custom<(c: Context) => string | undefined>((value) => typeof value === 'function', { message: 'expected a function (c) => string | undefined' }).optional(),
}

/** The room's cookie name: an explicit `cookie.name`, else the mode's base, with `_suffix` (or `_roomId` for a routed room). */
export function cookieNameOf(o: { roomId?: string | undefined; routes?: unknown; compatibility?: Compatibility | undefined; cookie?: { name?: string | undefined; suffix?: string | undefined } | undefined }): string {
  const cloudflare = o.compatibility === 'cloudflare'
  const base = o.cookie?.name ?? (cloudflare ? '__cfwaitingroom' : '__wroom')
  const suffix = o.cookie?.suffix ?? (o.cookie?.name === undefined && !cloudflare && o.routes && o.roomId && o.roomId !== 'default' ? o.roomId : undefined)
  return suffix ? `${base}_${suffix}` : base
}
