/**
 * @module
 * The ticket cookie set before the handler ran, carried onto the handler's own answer. Hono carries headers
 * set with `c.header` only into answers made with `c.text`/`c.json`/...; a handler returning its own
 * `Response` (a `fetch` to an origin, a file, a framework's renderer) would drop it, and the admitted user,
 * holding no ticket, would be counted as a new user on every request.
 */
import type { Context } from 'hono'
import { ALREADY_SENT_HEADER } from './execution.ts'

/** The ticket cookie each request was given, until the origin's answer is known. */
const setCookies = new WeakMap<Context, string>()

/** Notes the Set-Cookie line the room put on this request's answer (Room.setTicket). */
export function rememberTicket(c: Context, cookie: string): void {
  setCookies.set(c, cookie)
}

/** After `next()`: the ticket cookie set before the handler ran is on the answer, once. */
export function carryTicket(c: Context): void {
  const cookie = setCookies.get(c)
  if (cookie === undefined) return
  setCookies.delete(c)
  const headers = c.res.headers
  // Written to the socket already by the handler (the proxy's Node transport writes the ticket itself).
  if (headers.has(ALREADY_SENT_HEADER)) return
  if (!headers.getSetCookie().includes(cookie)) c.header('Set-Cookie', cookie, { append: true })
}
