/**
 * @module
 * Host names as rooms compare them: lower case, no port, no trailing dot, and an IPv6 address in the
 * bracketed, compressed form the URL parser gives (`[2001:db8::1]`). An option may name an IPv6 address bare
 * (`::1`, `2001:db8::1`) or bracketed, with or without a port: it is normalised, never cut at its last `:`
 * as if that were a port (which made `::1` cover nothing). A host that is not one is refused at build time.
 */
import { WaitingRoomError } from '../errors.ts'

/** The canonical `[…]` form of an IPv6 literal (bracketed or bare, with or without a port), or undefined. */
function ipv6(value: string): string | undefined {
  const bracketed = value.startsWith('[') ? value : /:.*:/.test(value) ? `[${value}]` : undefined
  if (bracketed === undefined) return undefined
  try {
    return new URL(`http://${bracketed}/`).hostname
  } catch {
    return undefined
  }
}

/** A request's host (the URL's or the `Host` header): never throws, a malformed one stays as written. */
export function requestHost(value: string): string {
  const lower = value.toLowerCase()
  if (lower.startsWith('[')) return ipv6(lower) ?? lower
  return lower.replace(/:\d*$/, '').replace(/\.$/, '')
}

/** A host option (`routes[i].host`, `hosts[i]`), normalised; refuses what no request could carry. */
export function hostOption(value: string, field: string): string {
  const lower = value.trim().toLowerCase()
  const v6 = ipv6(lower)
  if (v6 !== undefined) return v6
  if (lower.includes('[') || lower.includes(']') || /:.*:/.test(lower)) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option ${field}: ${JSON.stringify(value)} is not a host name or IPv6 address; write an IPv6 address as [::1]`)
  }
  return lower.replace(/:\d*$/, '').replace(/\.$/, '')
}
