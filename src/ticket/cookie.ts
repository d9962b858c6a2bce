/**
 * @module
 * The ticket cookie, read and written by hand: only our one cookie is ever looked at, so a scan with
 * `indexOf` replaces parsing the whole header (hono's `getCookie` costs a third of bare throughput here).
 */
import type { Context } from 'hono'
import type { SameSite, SecureMode } from '../room/options.ts'

interface NodeBindings {
  incoming?: { headers?: Record<string, string | string[] | undefined>; rawHeaders?: readonly string[] }
}

/**
 * The request's Cookie header. Under @hono/node-server, `c.env.incoming` is Node's request: reading its
 * raw header list avoids building a Fetch `Headers` for the whole request, which alone costs about a
 * quarter of bare throughput there — and also Node's own `headers` object, which Node builds on first
 * access from every header line. Several Cookie lines are joined with "; ", as Node does. Everywhere
 * else, the Fetch headers.
 */
export function cookieHeaderOf(c: Context): string | null | undefined {
  return headerOf(c, 'cookie', '; ')
}

/**
 * Any request header, by its lower-case name, the way {@link cookieHeaderOf} reads the Cookie header: from
 * Node's raw header list under @hono/node-server, else the Fetch headers. Several lines are joined with
 * ", " (Fetch's rule for every header but Cookie). For the headers a queue response reads (Accept,
 * Accept-Language, X-Forwarded-Proto): `c.req.header()` builds a Fetch `Headers` of the whole request
 * under node-server, on every queued user.
 */
export function requestHeaderOf(c: Context, name: string): string | null | undefined {
  return headerOf(c, name, ', ')
}

function headerOf(c: Context, name: string, separator: string): string | null | undefined {
  const incoming = (c.env as NodeBindings | undefined)?.incoming
  const raw = incoming?.rawHeaders
  if (Array.isArray(raw)) {
    let value: string | undefined
    const first = name.charCodeAt(0) | 32
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const line = raw[i]!
      // Length and first letter (either case) before lower-casing: most lines differ there already.
      if (line.length !== name.length || (line.charCodeAt(0) | 32) !== first || line.toLowerCase() !== name) continue
      value = value === undefined ? raw[i + 1]! : `${value}${separator}${raw[i + 1]!}`
    }
    return value
  }
  const headers = incoming?.headers
  if (headers && typeof headers === 'object') {
    const value = headers[name]
    if (typeof value === 'string') return value
    return Array.isArray(value) ? value.join(separator) : undefined
  }
  return c.req.raw.headers.get(name)
}

/** The value of cookie `name` in a Cookie header, or undefined. */
export function readCookie(header: string | undefined | null, name: string): string | undefined {
  if (!header) return undefined
  let from = 0
  for (;;) {
    const at = header.indexOf(name, from)
    if (at === -1) return undefined
    const end = at + name.length
    // A match must start the header or follow ";" (spaces allowed), and be followed by "=".
    let before = at - 1
    while (before >= 0 && header.charCodeAt(before) === 32) before--
    if ((before < 0 || header.charCodeAt(before) === 59) && header.charCodeAt(end) === 61) {
      const stop = header.indexOf(';', end + 1)
      return header.slice(end + 1, stop === -1 ? undefined : stop).trim()
    }
    from = end
  }
}

export interface CookieAttributes {
  sameSite: SameSite
  secure: SecureMode
  domain: string | undefined
  partitioned?: boolean
}

/**
 * The Set-Cookie value. `auto` follows seed 002: SameSite=None with Secure when the request came over
 * HTTPS (so an embedding iframe keeps its ticket), otherwise Lax without Secure. SameSite=None always
 * carries Secure, since browsers drop it otherwise.
 */
export function serializeCookie(
  name: string,
  value: string,
  maxAgeSeconds: number,
  attributes: CookieAttributes,
  https: boolean,
): string {
  let secure = attributes.secure === 'always' || (attributes.secure === 'auto' && https)
  let sameSite: string
  switch (attributes.sameSite) {
    case 'auto':
      sameSite = secure ? 'None' : 'Lax'
      break
    case 'none':
      sameSite = 'None'
      secure = true
      break
    case 'lax':
      sameSite = 'Lax'
      break
    case 'strict':
      sameSite = 'Strict'
      break
  }
  let cookie = `${name}=${value}; Max-Age=${Math.max(0, Math.ceil(maxAgeSeconds))}; Path=/; HttpOnly; SameSite=${sameSite}`
  if (secure) cookie += '; Secure'
  if (attributes.partitioned && sameSite === 'None') cookie += '; Partitioned'
  if (attributes.domain) cookie += `; Domain=${attributes.domain}`
  return cookie
}

/** Whether the request reached us over HTTPS (directly, or per the proxy's X-Forwarded-Proto). */
export function isHttps(url: string, forwardedProto: string | undefined): boolean {
  if (forwardedProto) return forwardedProto.split(',')[0]!.trim().toLowerCase() === 'https'
  return url.startsWith('https:')
}
