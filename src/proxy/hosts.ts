/**
 * @module
 * The proxy's public host names (`publicHosts`). The Host a request names becomes the origin's
 * X-Forwarded-Host and the proxy's rewritten redirects; origins build absolute links from it (password
 * reset mails, canonical URLs), so a proxy that answers for any Host lets anyone choose them. Pinned,
 * a request for another host gets 421 Misdirected Request and never reaches the origin or the room.
 */
import { WaitingRoomError } from '../errors.ts'
import { isHostSyntax } from './trust.ts'

/** Tells whether a Host (`name` or `name:port`) is one of ours. */
export type HostMatcher = (host: string) => boolean

interface Pattern {
  /** Lower-case name, without a leading `*.` for a wildcard. */
  name: string
  wildcard: boolean
  /** Required port, or undefined for any. */
  port: string | undefined
}

/**
 * Validates `publicHosts` at build time: names with an optional port (`shop.example`, `shop.example:8443`,
 * `[::1]:8787`), or `*.example.com` for any one or more labels under it. No scheme, path or spaces.
 * A name without a port matches on any port. Undefined or empty: every host is accepted.
 */
export function parsePublicHosts(hosts: string | readonly string[] | undefined): HostMatcher | undefined {
  if (hosts === undefined) return undefined
  const entries = (typeof hosts === 'string' ? [hosts] : [...hosts]).flatMap((entry) => String(entry).split(',')).map((entry) => entry.trim()).filter(Boolean)
  if (entries.length === 0) return undefined
  const patterns = entries.map(parsePattern)
  return (host) => {
    const { name, port } = splitHost(host.toLowerCase())
    return patterns.some((pattern) => {
      if (pattern.port !== undefined && pattern.port !== port) return false
      return pattern.wildcard ? name.endsWith(`.${pattern.name}`) : name === pattern.name
    })
  }
}

function parsePattern(entry: string): Pattern {
  const wildcard = entry.startsWith('*.')
  const rest = wildcard ? entry.slice(2) : entry
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) || !isHostSyntax(rest) || rest.includes('*')) {
    throw new WaitingRoomError(
      'ERR_WR_OPTIONS',
      `invalid option publicHosts: ${JSON.stringify(entry)} is not a host name (expected e.g. shop.example, shop.example:8443 or *.shop.example; no scheme or path)`,
    )
  }
  const { name, port } = splitHost(rest.toLowerCase())
  return { name, wildcard, port }
}

function splitHost(host: string): { name: string; port: string | undefined } {
  const match = /^(.*?)(?::(\d+))?$/.exec(host)!
  const name = match[1]!.endsWith('.') ? match[1]!.slice(0, -1) : match[1]! // `example.com.` is the same host
  return { name, port: match[2] }
}
