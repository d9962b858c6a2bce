/**
 * @module
 * Who the client is, how it reached us and which host it asked for — and when a forwarding header may
 * say so. Anyone can send `X-Forwarded-Proto: https` or `X-Forwarded-For: 1.2.3.4`; believing them lets a
 * plain-HTTP client be told it has a Secure cookie, or an origin log (and rate limit) a forged address.
 * So the X-Forwarded-* headers count only with `trustProxy`: a number of proxies in front of us (each
 * appends to X-Forwarded-For), or the address ranges they connect from, walked from our peer leftwards
 * as Express's `trust proxy` does. Otherwise the proxy's own view replaces them.
 *
 * Only X-Forwarded-* is read: proxies that set it (nginx, HAProxy, Traefik, Caddy, Envoy, load
 * balancers) outnumber those that set only `Forwarded` (RFC 7239), and reading both would let a client
 * forge whichever one its proxy does not overwrite. `Forwarded` still reaches the origin from trusted
 * proxies, for the origin to judge.
 */
import { WaitingRoomError } from '../errors.ts'
import { inCidr, parseAddress, parseCidr, plainAddress, type Cidr } from './ip.ts'

/**
 * Which forwarding headers to believe: a hop count (`1`: one proxy such as nginx in front), or the
 * addresses and CIDR ranges of the proxies in front (`['10.0.0.0/8', '::1']`, or one comma list).
 */
export type TrustProxy = number | string | readonly string[]

/** A validated {@link TrustProxy}. */
export type TrustPolicy = { hops: number } | { ranges: Cidr[] }

/** The most hops anyone has in front of a site; a larger number is a typo. */
const MAX_HOPS = 32

/** Validates `trustProxy` once, at build time; throws naming the option and what it accepts. */
export function parseTrustProxy(value: TrustProxy | undefined): TrustPolicy {
  if (value === undefined) return { hops: 0 }
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > MAX_HOPS) {
      throw invalid(`expected a whole number of proxies in front, 0 to ${MAX_HOPS}, got ${value}`)
    }
    return { hops: value }
  }
  const entries = (typeof value === 'string' ? [value] : [...value]).flatMap((entry) => String(entry).split(',')).map((entry) => entry.trim()).filter(Boolean)
  if (entries.length === 0) throw invalid('expected a number of proxies or a list of their addresses / CIDR ranges, got an empty list')
  const ranges = entries.map((entry) => {
    try {
      return parseCidr(entry)
    } catch (error) {
      throw invalid((error as Error).message)
    }
  })
  return { ranges }
}

function invalid(what: string): WaitingRoomError {
  return new WaitingRoomError('ERR_WR_OPTIONS', `invalid option trustProxy: ${what}`)
}

/** What the proxy concluded about one request. */
export interface Forwarded {
  /** The client's address: our peer, or what trusted proxies reported. Undefined when unknown. */
  clientAddress: string | undefined
  /** X-Forwarded-For for the origin: the client, then each trusted proxy; empty when the peer is unknown. */
  chain: string[]
  /** `http` or `https`, as the client used it. */
  proto: string
  /** The host the client asked for (`example.com`, `example.com:8443`). Undefined: no Host at all. */
  host: string | undefined
  /** Whether the headers came through trusted proxies (then a `Forwarded` header may pass on). */
  trusted: boolean
}

/** What the proxy knows by itself: its peer's address, and the scheme and Host of the request it got. */
export interface OwnView {
  peer: string | undefined
  proto: string
  host: string | undefined
}

/**
 * The scheme the client reached this server by, as a server's handler sees it: the socket's when
 * @hono/node-server (or proxyUpgrades) put the IncomingMessage in `env` — node-server takes an absolute-form
 * request target (`GET https://shop.example/x HTTP/1.1`) as the URL, scheme and authority as the client wrote
 * them, on any listener — else the URL's (Bun.serve builds it from its own listener and the Host header). The
 * request line is the client's to write, as X-Forwarded-Proto is: only the listener, or trusted proxies, say https.
 */
export function ownProtoOf(url: string, env: unknown): 'http' | 'https' {
  const socket = (env as { incoming?: { socket?: { encrypted?: boolean } } } | undefined)?.incoming?.socket
  if (socket) return socket.encrypted ? 'https' : 'http'
  return url.startsWith('https:') ? 'https' : 'http'
}

const HOST_SYNTAX = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+;=%-]+)(?::\d{1,5})?$/

/** Whether `value` is a plausible Host header (a name or address, an optional port; nothing else). */
export function isHostSyntax(value: string): boolean {
  return HOST_SYNTAX.test(value)
}

/** Applies `policy` to one request's headers and the proxy's own view of it. */
export function resolveForwarded(headers: Headers, ownView: OwnView, policy: TrustPolicy): Forwarded {
  const peer = ownView.peer && plainAddress(ownView.peer)
  const own = peer === ownView.peer ? ownView : { ...ownView, peer }
  const untrusted: Forwarded = { clientAddress: own.peer, chain: own.peer ? [own.peer] : [], proto: own.proto, host: own.host, trusted: false }
  if ('hops' in policy ? policy.hops === 0 : !own.peer) return untrusted
  const reported = listOf(headers.get('x-forwarded-for'))
  // The peer is the last hop. In hop mode a peer the runtime does not tell still counts as one hop.
  const full = own.peer || 'hops' in policy ? [...reported, own.peer ?? ''] : reported
  let client: number
  if ('hops' in policy) {
    client = Math.max(0, full.length - 1 - policy.hops)
  } else {
    const trustedAddress = (entry: string): boolean => {
      const bytes = parseAddress(entry)
      return bytes !== undefined && policy.ranges.some((range) => inCidr(bytes, range))
    }
    if (!trustedAddress(full[full.length - 1]!)) return untrusted
    client = full.length - 1
    while (client > 0 && trustedAddress(full[client]!)) client--
  }
  const chain = full.slice(client).filter(Boolean)
  const trustedHops = Math.max(1, full.length - 1 - client)
  // Each proxy that appends writes the value it saw; the farthest trusted one saw the client.
  const pick = (list: string[]): string | undefined => list[Math.max(0, list.length - trustedHops)]
  const proto = pick(listOf(headers.get('x-forwarded-proto')))?.toLowerCase()
  const host = pick(listOf(headers.get('x-forwarded-host')))
  return {
    clientAddress: full[client] || undefined,
    chain,
    proto: proto === 'http' || proto === 'https' ? proto : own.proto,
    host: host !== undefined && isHostSyntax(host) ? host : own.host,
    trusted: true,
  }
}

function listOf(header: string | null): string[] {
  if (!header) return []
  return header
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
}

/** One line for logs and the CLI banner: what is believed. */
export function describeTrust(policy: TrustPolicy): string {
  if ('hops' in policy) {
    return policy.hops === 0 ? 'forwarding headers not trusted' : `forwarding headers trusted from ${policy.hops} proxy hop${policy.hops === 1 ? '' : 's'}`
  }
  return `forwarding headers trusted from ${policy.ranges.map((range) => range.text).join(', ')}`
}
