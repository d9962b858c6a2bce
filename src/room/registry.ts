/**
 * @module
 * How rooms in one process know each other.
 *
 * Deciding: several rooms mounted in one Hono app (`app.use(a); app.use(b)`) each see a request in turn.
 * Each finds the others on the request itself — the handlers Hono matched for it (`c.req.matchedRoutes`) that
 * are rooms — and only the room whose route is most specific decides; the others pass the request through
 * untouched (ties: the room mounted first). Rooms in other apps never match the request, so they never
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

/** The room that decides `c`; undefined when `room` is alone on it (or not found among the matched handlers). */
export function deciderOf(c: Context, room: RegisteredRoom): RegisteredRoom | undefined {
  if (built < 2) return undefined
  let rooms = 0
  let found = false
  let best: RegisteredRoom | undefined
  let bestScore = -1
  for (const route of c.req.matchedRoutes) {
    const handler = route.handler as { __COMPOSED_HANDLER?: object }
    // A sub-app with its own onError wraps each handler, keeping the original as __COMPOSED_HANDLER.
    const other = roomOfHandler.get(handler) ?? (handler.__COMPOSED_HANDLER ? roomOfHandler.get(handler.__COMPOSED_HANDLER) : undefined)
    if (!other) continue
    rooms++
    if (other === room) found = true
    const score = other.scoreOf(c)
    if (score !== undefined && score > bestScore) {
      best = other
      bestScore = score
    }
  }
  return rooms < 2 || !found ? undefined : best
}
