/**
 * @module
 * Which requests the room covers. Paths are normalised before matching — percent-decoding (repeated, so
 * double encoding does not help), case, backslashes, `//`, `.`/`..` segments, `;params`, a trailing
 * slash — so that a variant of a protected path cannot slip past, and a bypassed prefix cannot be used
 * to reach a protected one (`/static/../shop`). HEAD is judged as GET.
 */
import type { Context } from 'hono'

export interface CoverageOptions {
  /** Covered path prefixes (`/shop` covers `/shop` and `/shop/…`; `*` matches one segment). Default: every path. */
  paths?: string[]
  /** Covered host names (case-insensitive, port ignored). Default: every host. */
  hosts?: string[]
  /** Requests that skip the room (not counted). Default: none. */
  bypass?: {
    /** Path prefixes, matched like `paths`. */
    paths?: string[]
    /** Methods, e.g. `['OPTIONS']`. HEAD follows GET. */
    methods?: string[]
    /** Any other rule. */
    when?: (c: Context) => boolean | Promise<boolean>
  }
  /**
   * Let verified crawlers through. `true` trusts only a platform's verification (Cloudflare's
   * `request.cf.botManagement.verifiedBot`); elsewhere pass your own check, since a user agent alone is forgeable.
   * Default false.
   */
  bypassCrawlers?: boolean | ((c: Context) => boolean | Promise<boolean>)
}

const HEX = /%([0-9a-fA-F]{2})/g

/** Decodes valid %XX escapes (as bytes, UTF-8), leaving malformed ones as they are. */
function percentDecode(text: string): string {
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return text.replace(HEX, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  }
}

/** The canonical form of a URL path: `/`, or `/a/b` with no trailing slash. */
export function normalizePath(path: string): string {
  let decoded = path
  for (let i = 0; i < 3; i++) {
    const next = percentDecode(decoded)
    if (next === decoded) break
    decoded = next
  }
  const segments: string[] = []
  for (const raw of decoded.toLowerCase().replace(/\\/g, '/').split('/')) {
    const segment = raw.split(';')[0]!
    if (segment === '' || segment === '.') continue
    if (segment === '..') segments.pop()
    else segments.push(segment)
  }
  return '/' + segments.join('/')
}

/** A matcher for normalised paths against prefix patterns. */
export function pathMatcher(patterns: readonly string[]): (normalizedPath: string) => boolean {
  const compiled = patterns.map((pattern) => {
    const normalized = normalizePath(pattern.replace(/\/\*$/, ''))
    if (normalized === '/') return () => true
    if (!normalized.includes('*')) return (path: string) => path === normalized || path.startsWith(normalized + '/')
    const source = normalized
      .split('/')
      .map((segment) => (segment === '*' ? '[^/]+' : segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')))
      .join('/')
    const regex = new RegExp(`^${source}(?:/|$)`)
    return (path: string) => regex.test(path)
  })
  return (path) => compiled.some((match) => match(path))
}

/** The raw path of a URL, before any decoding (Hono's `c.req.path` decodes some escapes already). */
export function rawPathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start === -1) return '/'
  const query = url.indexOf('?', start)
  const hash = url.indexOf('#', start)
  const end = query === -1 ? (hash === -1 ? url.length : hash) : query
  return url.slice(start, end)
}

export type CoverageCheck = (c: Context) => boolean | Promise<boolean>

/** Builds the check once; `undefined` when every request is covered (the common case costs nothing). */
export function coverageCheck(options: CoverageOptions): CoverageCheck | undefined {
  const { paths, hosts, bypass, bypassCrawlers } = options
  if (!paths && !hosts && !bypass && !bypassCrawlers) return undefined
  const covered = paths ? pathMatcher(paths) : () => true
  const bypassed = bypass?.paths ? pathMatcher(bypass.paths) : () => false
  const hostSet = hosts ? new Set(hosts.map((h) => h.toLowerCase().replace(/\.$/, ''))) : undefined
  const methods = new Set((bypass?.methods ?? []).map((m) => m.toUpperCase()))
  const crawler =
    typeof bypassCrawlers === 'function'
      ? bypassCrawlers
      : bypassCrawlers
        ? (c: Context) => (c.req.raw as { cf?: { botManagement?: { verifiedBot?: boolean } } }).cf?.botManagement?.verifiedBot === true
        : undefined

  return async (c) => {
    if (hostSet) {
      const host = new URL(c.req.url).hostname.toLowerCase().replace(/\.$/, '')
      if (!hostSet.has(host)) return false
    }
    const path = normalizePath(rawPathOf(c.req.url))
    if (!covered(path)) return false
    if (bypassed(path)) return false
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method.toUpperCase()
    if (methods.has(method)) return false
    if (bypass?.when && (await bypass.when(c))) return false
    if (crawler && (await crawler(c))) return false
    return true
  }
}
