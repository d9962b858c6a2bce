/**
 * @module
 * Why the admin API is never behind a room, however it is mounted (issue 18), and why nothing else passes.
 * A middleware cannot see which routes were registered after it, but the router already matched them all
 * for the request: the room reads that list (`matchedRoutes(c)`, the path the router routed, so there is
 * no second reading of the URL to disagree with).
 *
 * - `app.route(path, admin)`: the admin's endpoint handlers carry {@link ADMIN_ENDPOINT} (Hono keeps the
 *   original handler under `__COMPOSED_HANDLER` when it wraps one). A matched marked handler, with only
 *   middleware between the room and it, will answer: every room steps aside for it, whichever room the
 *   admin was built on (a site room on `/*` decides `/_checkout/status` of a checkout room's admin).
 * - `app.mount(path, admin.fetch)` after the room: Hono's mount handler is a closure; no room can see the
 *   app behind it, and the token a request carries does not prove which admin (if any) is there. So the
 *   room guesses nothing: a request passes (the room calls next() and never answers it itself) only when
 *   the matched mount is at the full path an admin declared (`waitingRoomAdmin(room, { mountPath })`) and
 *   the rest of the path is an endpoint of that admin. An undeclared mount is decided like any other (and warns once).
 *   A mount is told from a middleware of the user's own (`app.use('/api/*', cors())`) by its source.
 *
 * Nothing a client sends can mark a route, and a token alone passes nothing: on a path no admin endpoint
 * answers, a request carrying an admin token is decided like any other, and a one-time warning says so.
 */
import type { Context } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { RoomHandle } from './decision.ts'

/** Set on every endpoint handler of a `waitingRoomAdmin()` app. */
export const ADMIN_ENDPOINT: unique symbol = Symbol.for('hono-waiting-room.admin-endpoint')

type Handler = ((...args: never[]) => unknown) & { [ADMIN_ENDPOINT]?: true; __COMPOSED_HANDLER?: Handler }

/** What a room needs to know of an admin app. */
export interface AdminRegistration {
  /** Where the operator declared it is mounted with `app.mount` after the room; undefined: not declared. */
  mountPath: string | undefined
  /** True when `method path` (the path inside the admin app) is one of its endpoints. */
  endpoint(method: string, path: string): boolean
  /** True when the Authorization header carries one of its tokens (constant time): only for the warning. */
  authorized(header: string | undefined): boolean
}

/** Every admin app built in this isolate: any of them passes every room (several rooms, one app). */
const everyAdmin: { room: RoomHandle; admin: AdminRegistration }[] = []

/** Called by `waitingRoomAdmin(room)`: every room will consult this admin from now on. */
export function registerAdmin(room: RoomHandle, admin: AdminRegistration): void {
  everyAdmin.push({ room, admin })
}

/** True once any admin app exists: until then, no room reads the matched routes. */
export const anyAdmin = (): boolean => everyAdmin.length > 0

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
 * Hono's `app.mount()` handler: `async (c, next) => { const res = await applicationHandler(replaceRequest
 * ? replaceRequest(c.req.raw) : defaultReplaceRequest(c), ...getOptions(c)); … }` — its shape, any names.
 */
const MOUNT_SOURCE = /applicationHandler\s*\(|\?\s*[\w$]+\(\s*[\w$]+\.req\.raw\s*\)\s*:\s*[\w$]+\(\s*[\w$]+\s*\)\s*,\s*\.\.\.[\w$]+\(/
const isMount = (handler: Handler): boolean => MOUNT_SOURCE.test(Function.prototype.toString.call(handler))

/**
 * Whether an admin endpoint will answer this request, so the room lets it pass: a marked endpoint matched
 * after the room (with only middleware between), or a mount at a declared `mountPath` whose inner path is
 * an endpoint of the admin that declared it. The token plays no part.
 */
export function answeredByAdmin(c: Context): boolean {
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
    if (kind === MOUNT) return declaredMount(c, route.path)
    if (kind === STOP) return false
  }
  return false
}

const ADMIN = 0
const PASS = 1
const MOUNT = 2
const STOP = 3
/** What a route is never changes: judged once per route (the router hands out the same objects every time). */
const kinds = new WeakMap<object, number>()

function kindOf(route: { method: string; path: string; handler: unknown }): number {
  let kind = kinds.get(route)
  if (kind === undefined) {
    const handler = original(route.handler as Handler)
    if (isAdminHandler(route.handler as Handler)) kind = ADMIN
    // Middleware (`use()`, `all()` with `next`) lets the request on; a fixed method or `(c) => …` answers.
    else if (route.method !== 'ALL' || handler.length < 2) kind = STOP
    else if (route.path.endsWith('/*') && !/[:*]/.test(route.path.slice(0, -2)) && isMount(handler)) kind = MOUNT
    else kind = PASS
    kinds.set(route, kind)
  }
  return kind
}

/**
 * `app.mount('/p', x.fetch)` registers `ALL /p/*`; `x` would see the path after `/p`. Any mount answers the
 * request (it ends the search): it passes only when `/p` is an admin's declared `mountPath` and that admin
 * has the endpoint (the dashboard page too: `/p` and `/p/` are its `/`).
 */
function declaredMount(c: Context, routePath: string): boolean {
  const prefix = routePath.slice(0, -2)
  const path = c.req.path
  if (!(path === prefix || path.startsWith(`${prefix}/`))) return false
  const inner = path.slice(prefix.length) || '/'
  const method = c.req.method === 'HEAD' ? 'GET' : c.req.method
  return everyAdmin.some((a) => a.admin.mountPath !== undefined && a.admin.mountPath === prefix && a.admin.endpoint(method, inner))
}

const warned = new Set<string>()

function warnOnce(kind: string, message: string): void {
  if (warned.has(kind)) return
  warned.add(kind)
  console.warn(`hono-waiting-room: ${message} This warning is shown once.`)
}

/** Once per isolate: a request with an admin token was decided by a room (no admin endpoint answers it). */
export function warnTokenDecided(c: Context): void {
  if (warned.has('decided')) return
  const header = c.req.header('authorization')
  if (!header || !everyAdmin.some((a) => a.admin.authorized(header))) return
  warnOnce(
    'decided',
    `a request to ${c.req.path} carries an admin token, but no admin endpoint answers it there, so the room decided it ` +
      'like any other. If the admin API is meant to be at this path, mount it with app.route(path, admin), mount it ' +
      'before the room, or, for app.mount(path, admin.fetch) after the room, declare that path: waitingRoomAdmin(room, { token, mountPath: path }).',
  )
}
