/**
 * @module
 * How rooms in one process know each other.
 *
 * Deciding: several rooms mounted in one Hono app (`app.use(a); app.use(b)`) each see a request in turn.
 * Each finds the others on the request itself — the handlers Hono matched for it (`c.req.matchedRoutes`) that
 * are rooms — and only the room whose route (or mount path) is most specific decides; the others pass the
 * request through untouched (ties: each tied room decides, fail-closed). Rooms in other apps never match the request, so they never
 * interfere. Costs nothing while the process has built one room.
 *
 * Cookie names: a room that shares an app by design (built with `routes`, or in `compatibility: 'cloudflare'`)
 * may not write the cookie name of another live room with a different `roomId` in the process: that throws at
 * build time. The same room built twice (same `roomId`: a test, a hot reload, a second app) is no conflict.
 */
import type { Context } from 'hono'
import { WaitingRoomError } from '../errors.ts'

/** What the registry needs of a room. */
export interface RegisteredRoom {
  readonly roomId: string
  readonly cookieName: string
  /** Built with `routes` or in Cloudflare compatibility: meant to share an app with other rooms. */
  readonly sharesApp: boolean
  /** The specificity of the room's most specific route covering the request; undefined if it covers none. */
  scoreOf(c: Context): number | undefined
}

const roomOfHandler = new WeakMap<object, RegisteredRoom>()
const byCookie = new Map<string, WeakRef<RegisteredRoom>[]>()
let built = 0

/** Refuses a room whose cookie name a live room of another id already writes (when either shares an app). */
export function claimCookie(room: RegisteredRoom): void {
  const live = (byCookie.get(room.cookieName) ?? []).filter((ref) => ref.deref() !== undefined)
  const other = live.map((ref) => ref.deref()!).find((r) => r.roomId !== room.roomId && (r.sharesApp || room.sharesApp))
  if (other) {
    throw new WaitingRoomError(
      'ERR_WR_OPTIONS',
      `invalid option cookie: rooms "${other.roomId}" and "${room.roomId}" would both write the cookie "${room.cookieName}"; ` +
        'give one a cookie.suffix (Cloudflare: cookie_suffix) or cookie.name',
    )
  }
  live.push(new WeakRef(room))
  byCookie.set(room.cookieName, live)
}

/** Makes the middleware function findable on a request's matched handlers. */
export function registerHandler(handler: object, room: RegisteredRoom): void {
  roomOfHandler.set(handler, room)
  built++
}

/** The room a middleware function made by `waitingRoom()` runs (the proxy's fast path asks its room directly). */
export function registeredRoomOf(handler: object): RegisteredRoom | undefined {
  return roomOfHandler.get(handler)
}

/** The room a matched handler runs (a sub-app with its own onError wraps each handler, keeping the original as __COMPOSED_HANDLER). */
function roomOf(handler: object): RegisteredRoom | undefined {
  const composed = (handler as { __COMPOSED_HANDLER?: object }).__COMPOSED_HANDLER
  return roomOfHandler.get(handler) ?? (composed ? roomOfHandler.get(composed) : undefined)
}

/** Whether two or more of the matched handlers are rooms (only then does any room step aside). */
function severalRooms(matched: readonly { handler: object }[]): boolean {
  let rooms = 0
  for (const route of matched) if (roomOf(route.handler) && ++rooms === 2) return true
  return false
}

/**
 * How specific the path a room is mounted on is (`app.use('/checkout/*', room)`, a sub-app's `app.route`
 * prefix, a `basePath`), on the scale of routes.ts's scores: 2 per literal segment, 1 per segment with a
 * `*` or a `:param` (it matches any segment). Hono routed the request to that path, so the room covers only
 * requests under it: it ranks as the more specific of its mount and its own routes.
 */
function mountScore(path: string): number {
  let score = mountScores.get(path)
  if (score === undefined) mountScores.set(path, (score = scoreMount(path)))
  return score
}

/** Mount paths are the app's registered route paths (a bounded set): each is scored once. */
const mountScores = new Map<string, number>()

function scoreMount(path: string): number {
  const prefix = path.replace(/\/?\*$/, '').replace(/\/$/, '')
  if (prefix === '') return 0
  let specificity = 0
  for (const segment of prefix.slice(1).split('/')) specificity += segment.includes('*') || segment.startsWith(':') ? 1 : 2
  return specificity * 2
}

/**
 * The room that decides `c`; undefined when `room` is alone on it (or not found among the matched handlers).
 * Each room ranks by the more specific of its own route covering `c` and the path it is mounted on. Ties are
 * ambiguous — which of two rooms as specific as each other is the stricter cannot be known before both
 * decide — so, fail-closed, no tied room steps aside: each returns itself and decides (the request passes
 * only if every one of them admits it). Only a strictly less specific room steps aside.
 */
export function deciderOf(c: Context, room: RegisteredRoom): RegisteredRoom | undefined {
  if (built < 2) return undefined
  // Most requests of a process with several rooms meet one of them: found without scoring any route.
  const matched = c.req.matchedRoutes
  if (!severalRooms(matched)) return undefined
  let rooms = 0
  let found = false
  let best: RegisteredRoom | undefined
  let bestScore = -1
  let ownScore = -1
  for (const route of matched) {
    const other = roomOf(route.handler)
    if (!other) continue
    rooms++
    const own = other.scoreOf(c)
    // The host bit (routes.ts: a route naming its host) is kept over a mount score, which names none.
    const score = own === undefined ? undefined : Math.max(own, mountScore(route.path) + (own % 2))
    if (other === room) {
      found = true
      if (score !== undefined) ownScore = Math.max(ownScore, score)
    }
    if (score !== undefined && score > bestScore) {
      best = other
      bestScore = score
    }
  }
  if (rooms < 2 || !found) return undefined
  return ownScore >= 0 && ownScore === bestScore ? room : best
}
