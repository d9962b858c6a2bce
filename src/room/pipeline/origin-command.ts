/**
 * @module
 * Commands from the origin, after it answered. `Waiting-Room-Command: revoke` ends the session at once: its
 * place is freed — once per ticket, however many requests, workers, processes or locations see the command,
 * and whichever cookie of the ticket (renewed or not) they carry, because the decrement travels as a `once`
 * delta keyed by the ticket alone, which the coordinator claims room-wide — every
 * worker refuses the ticket from its next snapshot on, and the cookie is cleared. The header never reaches
 * the client (nor does Cloudflare's `Cf-Waiting-Room-Command`, obeyed in `compatibility: 'cloudflare'`).
 */
import type { Context } from 'hono'
import { activeField, revocationKey, revokedField } from '../../coordination/state.ts'
import { minuteOf } from '../../clock.ts'
import type { Room } from '../room.ts'

const COMMAND_HEADER = 'waiting-room-command'
/** The header Cloudflare's docs name: obeyed with `compatibility: 'cloudflare'`, stripped in either mode. */
const CF_COMMAND_HEADER = 'cf-waiting-room-command'

/** @hono/node-server's response cache: `[status, body, headers as given]` under a symbol named `cache`. */
let nodeServerCache: symbol | undefined

/**
 * False when the origin's response certainly has no command header. Under @hono/node-server a Response made
 * from a string keeps its init until its `headers` are asked for, and asking builds a Fetch Headers and sends
 * the response down node-server's slower path: for an admitted user that was most of the room's cost over an
 * empty middleware (issue 16). So there the init is looked at as given; anything unexpected, and every other
 * runtime (whose Response headers are native), reads the headers.
 */
function mayCarryCommand(c: Context): boolean {
  if ((c.env as { incoming?: unknown } | undefined)?.incoming === undefined) return true
  const res = c.res as unknown as Record<symbol, unknown>
  nodeServerCache ??= Object.getOwnPropertySymbols(res).find((symbol) => symbol.description === 'cache')
  const cache = nodeServerCache === undefined ? undefined : res[nodeServerCache]
  if (!Array.isArray(cache) || cache.length !== 3 || typeof cache[0] !== 'number') return true
  const init: unknown = cache[2]
  if (init === undefined) return false
  if (init instanceof Headers || typeof init !== 'object' || init === null || Array.isArray(init)) return true
  for (const name in init) {
    const lower = name.toLowerCase()
    if (lower === COMMAND_HEADER || lower === CF_COMMAND_HEADER) return true
  }
  return false
}

/**
 * Removes both command headers from the origin's answer, on every path through the middleware (bypassed,
 * suspended, another room or none deciding, commands off): the header never reaches the client either way.
 */
export function stripOriginCommands(c: Context): void {
  if (!mayCarryCommand(c)) return
  const { headers } = c.res // asked once: on Bun and Deno each ask goes through the Response's getter
  if (!headers.has(COMMAND_HEADER) && !headers.has(CF_COMMAND_HEADER)) return
  const response = new Response(c.res.body, c.res) // origin headers may be immutable (a fetch Response)
  response.headers.delete(COMMAND_HEADER)
  response.headers.delete(CF_COMMAND_HEADER)
  c.res = undefined as never // replace rather than merge: Hono merges headers into a set response
  c.res = response
}

/**
 * Whether a command header's value asks to revoke. A field sent on several lines reaches us joined with
 * `, ` (RFC 9110 §5.3: `revoke, revoke`), and an origin may name several commands: the value is a
 * comma-separated list of tokens, each trimmed and read in any case; any `revoke` revokes.
 */
export function commandsRevoke(value: string | null): boolean {
  if (value === null) return false
  for (const token of value.split(',')) if (token.trim().toLowerCase() === 'revoke') return true
  return false
}

/** Only runs when the command is enabled; otherwise the middleware only strips the headers. */
export function applyOriginCommand(room: Room, c: Context, ticketId: string, countedMinute: number, now: number): void {
  if (!mayCarryCommand(c)) return
  const { headers } = c.res
  const own = headers.get(COMMAND_HEADER)
  const cf = headers.get(CF_COMMAND_HEADER)
  if (own === null && cf === null) return
  const revoke = commandsRevoke(own) || (room.o.compatibility === 'cloudflare' && commandsRevoke(cf))
  const response = new Response(c.res.body, c.res) // origin headers may be immutable (a fetch Response)
  response.headers.delete(COMMAND_HEADER)
  response.headers.delete(CF_COMMAND_HEADER)
  if (revoke) response.headers.append('Set-Cookie', revokeSession(room, c, ticketId, countedMinute, now))
  c.res = undefined as never // replace rather than merge: Hono merges headers into a set response
  c.res = response
}

/**
 * Ends the session of `ticketId` (counted in `countedMinute`) on the origin's command, and returns the
 * Set-Cookie that clears it; `https` when the caller knows the scheme without the request (the proxy's fast path).
 */
export function revokeSession(room: Room, c: Context, ticketId: string, countedMinute: number, now: number, https?: boolean): string {
  const location = room.locationOf(c)
  // The marker is dated by the revocation, not the session: it stays as long as any cookie of the ticket may.
  room.link.recordOnce(location, revocationKey(ticketId), { [activeField(countedMinute)]: -1, [revokedField(minuteOf(now), ticketId)]: 1 })
  room.report(c, location, now)
  room.metrics.revocations++
  return https === undefined ? room.cookie(c, '', 0) : room.cookieFor(https, '', 0)
}
