/**
 * @module
 * Header rewriting for the reverse proxy (`createProxyApp`): what crosses the proxy in each direction.
 * The client's request headers reach the origin exactly as sent — same names, values, order and
 * repeats — except hop-by-hop headers (both ways), which describe one connection and never cross (RFC 9110 §7.6.1),
 * and the forwarding headers, which the proxy writes itself from what it trusts (./trust.ts) or, from an
 * untrusted client, drops ({@link isForwardingClaim}).
 */
import type { Forwarded } from './trust.ts'
import { isForwardingClaim } from './forwarding-claims.ts'
import { isLower } from './ascii.ts'

/** Hop-by-hop headers a proxy must not forward (RFC 9110 §7.6.1), besides every `proxy-*` header. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'trailers'])

/** The header an origin sends to command the room (`revoke`); a client must never send it on. */
export const COMMAND_HEADER = 'waiting-room-command'
/** Cloudflare's name for it (obeyed by a room in `compatibility: 'cloudflare'`); never crosses either. */
export const CF_COMMAND_HEADER = 'cf-waiting-room-command'

/** The answer to the room's challenge (src/challenge/provider.ts): the room's business, never the origin's. */
export const CHALLENGE_ANSWER_HEADER = 'waiting-room-challenge'

/**
 * Request headers the proxy replaces with its own (the origin's Host; forwarding headers it vouches for) or
 * drops (commands meant for the room; the challenge answer, a bearer proof the origin has no use for).
 */
const REPLACED = new Set(['host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', COMMAND_HEADER, CF_COMMAND_HEADER, CHALLENGE_ANSWER_HEADER])

export { FORWARDING_CLAIMS, isForwardingClaim } from './forwarding-claims.ts'

/**
 * Header lists as Node's `rawHeaders` has them: name, value, name, value, … — the one form that keeps
 * repeats and order, and what node:http's `request()` takes as is.
 */
export type HeaderList = string[]

/** The entries of a Headers as a {@link HeaderList}. */
export function headerListOf(headers: Headers): HeaderList {
  const list: HeaderList = []
  for (const [name, value] of headers) list.push(name, value)
  return list
}

/** The names a Connection header (every one of them, in `list`) marks as hop-by-hop for this hop. */
function connectionNamed(list: HeaderList): Set<string> | undefined {
  let named: Set<string> | undefined
  for (let i = 0; i < list.length; i += 2) {
    if (!isLower(list[i]!, 'connection')) continue
    named = connectionNamedOf(list[i + 1]!, named)
  }
  return named
}

/** {@link connectionNamed} of one Connection value, added to `named`; `keep-alive` and `close` alone (the usual values) name nothing not dropped already. */
export function connectionNamedOf(value: string, named?: Set<string>): Set<string> | undefined {
  if (isLower(value, 'keep-alive') || isLower(value, 'close')) return named
  for (const name of value.split(',')) {
    const trimmed = name.trim().toLowerCase()
    if (trimmed) (named ??= new Set()).add(trimmed)
  }
  return named
}

/** A header's fate by name: it passes, never crosses (hop-by-hop, replaced), crosses only from trusted proxies (a request's forwarding claim), is the origin's command or its Location (a response's). */
const Rule = { Pass: 0, Drop: 1, Claim: 2, Command: 3, Location: 4, Length: 5 } as const
type Rule = (typeof Rule)[keyof typeof Rule]
/** The rule of each name seen, so the classes (isForwardingClaim's prefixes and patterns) are worked out once per name, not per request. */
const requestRules = new Map<string, Rule>()

function requestRule(lower: string): Rule {
  let rule = requestRules.get(lower)
  if (rule === undefined) {
    // `:method` and friends: HTTP/2 pseudo-headers in a Node server's raw list describe this hop only.
    rule = lower.startsWith(':') || HOP_BY_HOP.has(lower) || REPLACED.has(lower) || lower.startsWith('proxy-') ? Rule.Drop : isForwardingClaim(lower) ? Rule.Claim : Rule.Pass
    // Bounded: names are the client's to choose. Past the bound a name is worked out each time, as before.
    if (requestRules.size < 1024) requestRules.set(lower, rule)
  }
  return rule
}

/** Whether a request header (lower-case name) goes to the origin. */
export function crosses(lower: string, forwarded: Forwarded, named: Set<string> | undefined): boolean {
  const rule = requestRule(lower)
  return rule === Rule.Pass ? !named?.has(lower) : rule === Rule.Claim && forwarded.trusted && !named?.has(lower)
}

/**
 * The request headers for the origin, from the client's `list`: Host set to the origin's, hop-by-hop
 * and forwarding headers dropped, then X-Forwarded-For/Proto/Host as the proxy concluded them.
 * `Forwarded` and every other {@link isForwardingClaim} pass on only from trusted proxies. `upgrade` (the client's Upgrade value) keeps the
 * connection-level request for a WebSocket: this hop's Connection and Upgrade are then re-sent.
 */
export function originRequestHeaders(list: HeaderList, forwarded: Forwarded, originHost: string, upgrade?: string): HeaderList {
  const named = connectionNamed(list)
  const out: HeaderList = ['Host', originHost]
  for (let i = 0; i < list.length; i += 2) if (crosses(list[i]!.toLowerCase(), forwarded, named)) out.push(list[i]!, list[i + 1]!)
  if (forwarded.chain.length > 0) out.push('X-Forwarded-For', forwarded.chain.join(', '))
  out.push('X-Forwarded-Proto', forwarded.proto)
  if (forwarded.host) out.push('X-Forwarded-Host', forwarded.host)
  if (upgrade) out.push('Connection', 'Upgrade', 'Upgrade', upgrade)
  return out
}

/**
 * `proxy-*` headers seen in practice, for the Headers-based functions below, which look names up rather
 * than iterate (iterating a Headers is slow on Bun and sorts it on undici). `proxy` is httpoxy's: a CGI
 * origin would take it for its HTTP_PROXY.
 */
const PROXY_HEADERS = ['proxy', 'proxy-authorization', 'proxy-authenticate', 'proxy-authentication-info', 'proxy-connection']

function deleteHopByHop(headers: Headers): void {
  const connection = headers.get('connection')
  if (connection) {
    for (const name of connection.split(',')) {
      const trimmed = name.trim()
      if (trimmed) headers.delete(trimmed)
    }
  }
  for (const name of HOP_BY_HOP) headers.delete(name)
  for (const name of PROXY_HEADERS) headers.delete(name)
}

/**
 * {@link originRequestHeaders} for fetch transports, from the request's Headers: a native copy, then
 * deletions, no iteration. Without Host (fetch derives it from the URL); names come out lower-case, as
 * every Headers has them.
 */
export function originRequestHeaderObject(incoming: Headers, forwarded: Forwarded, upgrade?: string): Headers {
  const headers = new Headers(incoming)
  deleteHopByHop(headers)
  for (const name of REPLACED) headers.delete(name)
  // A class of names cannot be deleted by name: read the names once (collected first: deleting while
  // iterating a Headers skips entries), only for an untrusted client.
  if (!forwarded.trusted) for (const name of [...headers.keys()]) if (isForwardingClaim(name)) headers.delete(name)
  if (forwarded.chain.length > 0) headers.set('x-forwarded-for', forwarded.chain.join(', '))
  headers.set('x-forwarded-proto', forwarded.proto)
  if (forwarded.host) headers.set('x-forwarded-host', forwarded.host)
  if (upgrade) {
    headers.set('connection', 'Upgrade')
    headers.set('upgrade', upgrade)
  }
  return headers
}

/** {@link endToEndHeaders} from a Headers (a fetch Response's): a native copy, then deletions. */
export function endToEndHeadersOf(incoming: Headers): Headers {
  const headers = new Headers(incoming)
  deleteHopByHop(headers)
  return headers
}

/**
 * The origin's response headers as the proxy passes them on: every header in order (each Set-Cookie on
 * its own), minus hop-by-hop ones and those the origin's Connection header names. Transports build their
 * response headers with this, so nothing iterates a Headers again (undici sorts it on every iteration).
 */
export function endToEndHeaders(list: HeaderList): Headers {
  const named = connectionNamed(list)
  const headers = new Headers()
  for (let i = 0; i < list.length; i += 2) {
    const lower = list[i]!.toLowerCase()
    if (HOP_BY_HOP.has(lower) || lower.startsWith('proxy-') || named?.has(lower)) continue
    headers[lower === 'content-length' ? 'set' : 'append'](list[i]!, list[i + 1]!) // a repeated (equal) length once: `n, n` is no length
  }
  return headers
}

/**
 * Rewrites the origin's end-to-end response headers (from {@link endToEndHeaders}, owned by the proxy)
 * for the client, in place: a Location on the origin is pointed at the proxy, as nginx's
 * `proxy_redirect default` does, and `Waiting-Room-Command` stays only when the room obeys origin
 * commands — the room strips it then.
 */
export function clientResponseHeaders(headers: Headers, originBase: URL, proxyBase: string, keepCommand: boolean): Headers {
  if (!keepCommand) {
    headers.delete(COMMAND_HEADER)
    headers.delete(CF_COMMAND_HEADER)
  }
  const location = headers.get('location')
  if (location) {
    const rewritten = rewriteLocation(location, originBase, proxyBase)
    if (rewritten !== location) headers.set('location', rewritten)
  }
  return headers
}

/**
 * {@link endToEndHeaders} then {@link clientResponseHeaders} on a list, for a transport that writes the
 * answer itself: undefined when the answer carries an origin command and `keepCommand` (the room, which
 * reads it from a Response, obeys and strips it then). `proxyBase` is asked only for a Location.
 */
export function clientResponseHeaderList(list: HeaderList, originBase: URL, proxyBase: () => string, keepCommand: boolean): HeaderList | undefined {
  const named = connectionNamed(list)
  const out: HeaderList = []
  let lengths = 0
  for (let i = 0; i < list.length; i += 2) {
    const name = list[i]!
    const rule = responseRule(name)
    // A repeated Content-Length (equal: the readers refuse others) as one line: Bun's node:http and Headers merge it into `n, n`, which no client reads as a length.
    if (rule === Rule.Drop || (rule === Rule.Length && lengths++ > 0) || named?.has(name.toLowerCase())) continue
    if (rule === Rule.Command) {
      if (keepCommand) return undefined
      continue
    }
    out.push(name, rule === Rule.Location ? rewriteLocation(list[i + 1]!, originBase, proxyBase()) : list[i + 1]!)
  }
  return out
}

/** The rule of each response header name seen, as sent (no lower-cased copy per answer); bounded, as {@link requestRules}. */
const responseRules = new Map<string, Rule>()

function responseRule(name: string): Rule {
  let rule = responseRules.get(name)
  if (rule === undefined) {
    const lower = name.toLowerCase()
    rule = HOP_BY_HOP.has(lower) || lower.startsWith('proxy-') ? Rule.Drop : lower === COMMAND_HEADER || lower === CF_COMMAND_HEADER ? Rule.Command : lower === 'location' ? Rule.Location : lower === 'content-length' ? Rule.Length : Rule.Pass
    if (responseRules.size < 1024) responseRules.set(name, rule)
  }
  return rule
}

/**
 * The client's headers when the room set some of its own (a ticket) before the origin answered, merged as
 * Hono's `c.newResponse` merges them: each Set-Cookie kept, any other name the origin sent is the origin's.
 */
export function withRoomHeaders(list: HeaderList, room: Headers): HeaderList {
  let merged: HeaderList | undefined
  for (const [name, value] of room) {
    if (name !== 'set-cookie' && hasHeader(list, name)) continue
    ;(merged ??= []).push(name, value)
  }
  return merged ? [...merged, ...list] : list
}

/** Whether a list has a header of this (lower-case) name. */
export function hasHeader(list: HeaderList, name: string): boolean {
  for (let i = 0; i < list.length; i += 2) if (list[i]!.length === name.length && list[i]!.toLowerCase() === name) return true
  return false
}

function rewriteLocation(location: string, originBase: URL, proxyBase: string): string {
  const originPrefix = originBase.origin + originBase.pathname.replace(/\/$/, '')
  if (location !== originPrefix && !location.startsWith(`${originPrefix}/`) && !location.startsWith(`${originPrefix}?`)) {
    return location
  }
  return proxyBase + location.slice(originPrefix.length)
}
