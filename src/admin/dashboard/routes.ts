/**
 * @module
 * The admin app's wiring for issue 18: the dashboard at its root, the refusal of cross-site writes, and the
 * marks that keep the admin API out of its own room (`../../room/admin-routes.ts`).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono'
import { ADMIN_ENDPOINT, registerAdmin } from '../../room/admin-routes.ts'
import type { RoomHandle } from '../../room/decision.ts'
import { openApiRoute } from '../openapi.ts'
import { dashboardPage } from './page.ts'

/** Seconds between two polls of the dashboard. */
export const DASHBOARD_POLL_MS = 5_000

/** No inline script but ours (by nonce), no request but to this origin, no framing of the dashboard. */
const csp = (nonce: string) =>
  `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; ` +
  `frame-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`

function nonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return btoa(String.fromCharCode(...bytes))
}

/** `GET /`: the dashboard page. Public on purpose: it holds no data, and signs in with the token. */
export function dashboardRoute(admin: Hono, room: RoomHandle): void {
  const page = (c: Context) => {
    const n = nonce()
    c.header('Content-Security-Policy', csp(n))
    c.header('X-Content-Type-Options', 'nosniff')
    c.header('Referrer-Policy', 'no-referrer')
    return c.html(dashboardPage({ nonce: n, roomId: room.roomId, pollMs: DASHBOARD_POLL_MS }))
  }
  admin.get('/', page)
  // `app.route('/_room', admin)` turns `/` into `/_room` only; a route whose path is '' becomes `/_room/`
  // (Hono's mergePath), so the dashboard answers with the trailing slash too. `admin.get('')` would store
  // '/', hence the record added by hand: `app.route()` copies `admin.routes`; the admin's own router (used
  // when it is served alone or mounted) already answers '/' for both.
  admin.routes.push({ basePath: '/', path: '', method: 'GET', handler: page })
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
const hostOf = (value: string): string => value.toLowerCase().replace(/:(80|443)$/, '')

/**
 * Every state-changing call refuses a cross-site request: a browser says where a request comes from in
 * `Sec-Fetch-Site` (trusted alone when present), older ones in `Origin` (compared with the Host). A client
 * that sends neither (curl, a script) is not a browser a page could drive, and still needs the token.
 */
export const sameOriginWrites: MiddlewareHandler = async (c, next) => {
  if (SAFE_METHODS.has(c.req.method)) return next()
  const site = c.req.header('sec-fetch-site')
  const origin = c.req.header('origin')
  let refused = false
  if (site !== undefined) refused = site !== 'same-origin' && site !== 'none'
  else if (origin !== undefined) {
    const host = c.req.header('host') ?? new URL(c.req.url).host
    try {
      refused = origin === 'null' || hostOf(new URL(origin).host) !== hostOf(host)
    } catch {
      refused = true
    }
  }
  if (refused) return c.json({ error: 'cross_site', message: 'state-changing calls must come from the same origin as the admin API' }, 403)
  return next()
}

/** Constant-time string equality (the lengths may leak; tokens are at least 16 characters). */
function sameText(a: string, b: string): boolean {
  let diff = a.length ^ b.length
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) | 0) ^ (b.charCodeAt(i) | 0)
  return diff === 0
}

type Marked = { [ADMIN_ENDPOINT]?: true }

/**
 * Marks every endpoint handler (not the `use('*')` middleware) and registers the app with its room, so the
 * room lets its requests through when mounted with `app.route`, or with `app.mount` at the declared
 * `mountPath`. Call once all routes are added.
 */
export function markAdminRoutes(admin: Hono, room: RoomHandle, tokens: readonly string[], mountPath?: string): void {
  for (const route of admin.routes) {
    if (route.path === '/*' || route.path === '*') continue
    ;(route.handler as Marked)[ADMIN_ENDPOINT] = true
  }
  registerAdmin(room, {
    mountPath,
    endpoint(method, path) {
      const [matches] = admin.router.match(method, path)
      return matches.some(([[handler]]) => (handler as Marked)[ADMIN_ENDPOINT] === true)
    },
    authorized(header) {
      const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header ?? '')
      return match !== null && tokens.some((token) => sameText(token, match[1]!))
    },
  })
}

/** What comes before the bearer token check: the refusal of cross-site writes, and the dashboard page. */
export function publicRoutes(admin: Hono, room: RoomHandle): void {
  admin.use('*', sameOriginWrites)
  dashboardRoute(admin, room)
}

/** What comes after every other route: `GET /openapi.json`, then the marks (which must see every route). */
export function finishAdmin(admin: Hono, room: RoomHandle, tokens: readonly string[], mountPath?: string): void {
  openApiRoute(admin)
  markAdminRoutes(admin, room, tokens, mountPath)
}
