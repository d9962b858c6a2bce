/**
 * @module
 * Why the admin API is never behind its own room, however it is mounted (issue 18). A middleware cannot see
 * which routes were registered after it, but the router already matched them all for the request: the room
 * reads that list (`matchedRoutes(c)`, the path the router routed, so there is no second reading of the URL
 * to disagree with) and lets the request through when an endpoint of `waitingRoomAdmin()` will answer it.
 *
 * - `app.route(path, admin)`: the admin's endpoint handlers carry {@link ADMIN_ENDPOINT} (Hono keeps the
 *   original handler under `__COMPOSED_HANDLER` when it wraps one), so a matched marked handler is proof.
 * - `app.mount(path, admin.fetch)`: Hono's mount handler is an anonymous closure; the room cannot know the
 *   app behind it. It passes such a request only when the path under the mount is an admin endpoint AND the
 *   request carries one of the admin's bearer tokens — whoever holds it may use the admin API anyway.
 *
 * Nothing a client sends can mark a route: an ordinary path matches no admin endpoint, and a header alone
 * (even a valid token) passes nothing outside an admin path. A route of the app's own with a fixed path
 * (`app.get('/x', …)`), matched between the room and the admin's endpoint, would answer first: then the
 * room does not step aside.
 */
import type { Context } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { RoomHandle } from './decision.ts'

/** Set on every endpoint handler of a `waitingRoomAdmin()` app. */
export const ADMIN_ENDPOINT: unique symbol = Symbol.for('hono-waiting-room.admin-endpoint')

type Handler = ((...args: never[]) => unknown) & { [ADMIN_ENDPOINT]?: true; __COMPOSED_HANDLER?: Handler }

/** What the room needs to know of an admin app built on it (for `app.mount`). */
export interface AdminRegistration {
  /** True when `method path` (the path inside the admin app) is one of its endpoints. */
  endpoint(method: string, path: string): boolean
  /** True when the Authorization header carries one of its tokens (constant time). */
  authorized(header: string | undefined): boolean
}

const registry = new WeakMap<RoomHandle, AdminRegistration[]>()

/** Called by `waitingRoomAdmin(room)`: the room will consult this admin from now on. */
export function registerAdmin(room: RoomHandle, admin: AdminRegistration): void {
  const list = registry.get(room) ?? []
  list.push(admin)
  registry.set(room, list)
}

export function adminsOf(room: RoomHandle): readonly AdminRegistration[] | undefined {
  return registry.get(room)
}

function isAdminHandler(handler: Handler | undefined): boolean {
  for (let h = handler, depth = 0; h && depth < 8; h = h.__COMPOSED_HANDLER, depth++) {
    if (h[ADMIN_ENDPOINT]) return true
  }
  return false
}

/** The handler as written (Hono wraps a sub-app's handlers when that app has its own error handler). */
function original(handler: Handler): Handler {
  let h = handler
  for (let depth = 0; h.__COMPOSED_HANDLER && depth < 8; depth++) h = h.__COMPOSED_HANDLER
  return h
}

/**
 * A route a request passes through on its way to the admin: one for every method (`use()`, `all()`) whose
 * handler takes `next` — middleware. A fixed-method route, or a catch-all `(c) => …`, would answer instead.
 */
const isPassThrough = (route: { method: string; handler: unknown }) => route.method === 'ALL' && original(route.handler as Handler).length >= 2

/**
 * True when an admin endpoint will answer this request: a marked endpoint matched after the room (with
 * only pass-through routes between), or a mount whose inner path is an admin endpoint, with a valid token.
 */
export function answeredByAdmin(c: Context, admins: readonly AdminRegistration[]): boolean {
  let routes
  try {
    routes = matchedRoutes(c)
  } catch {
    return false // not dispatched by a Hono router (a bare call in a test): nothing to read
  }
  for (let i = c.req.routeIndex + 1; i < routes.length; i++) {
    const route = routes[i]!
    const kind = kindOf(route)
    if (kind === ADMIN) return true
    if (kind === MOUNT_OR_PASS && mountedAdmin(c, route.path, admins)) return true
    if (kind === STOP) return false
  }
  return false
}

const ADMIN = 0
const PASS = 1
const MOUNT_OR_PASS = 2
const STOP = 3
/** What a route is never changes: judged once per route (the router hands out the same objects every time). */
const kinds = new WeakMap<object, number>()

function kindOf(route: { method: string; path: string; handler: unknown }): number {
  let kind = kinds.get(route)
  if (kind === undefined) {
    if (isAdminHandler(route.handler as Handler)) kind = ADMIN
    else if (!isPassThrough(route)) kind = STOP
    else kind = route.path.endsWith('/*') && route.path.length > 2 && !/[:*]/.test(route.path.slice(0, -2)) ? MOUNT_OR_PASS : PASS
    kinds.set(route, kind)
  }
  return kind
}

/** `app.mount('/p', admin.fetch)` registers `ALL /p/*`: the admin would see the path after `/p`. */
function mountedAdmin(c: Context, routePath: string, admins: readonly AdminRegistration[]): boolean {
  // Not for a catch-all (`/*`: not a mount the room could tell apart) nor a prefix with parameters (kindOf).
  const prefix = routePath.slice(0, -2)
  const path = c.req.path
  if (!(path === prefix || path.startsWith(`${prefix}/`))) return false
  const inner = path.slice(prefix.length) || '/'
  const method = c.req.method === 'HEAD' ? 'GET' : c.req.method
  const header = c.req.header('authorization')
  return admins.some((admin) => admin.authorized(header) && admin.endpoint(method, inner))
}
