/**
 * @module
 * Which requests the room covers. A path is judged as the router will route it (Hono's `c.req.path`, after
 * the URL parser has already resolved `.`/`..` and `\`), never as a normaliser of our own would rewrite it:
 * rewriting judged paths the router never saw (`/shop/..%2F` was "/" to us and `/shop/*` to Hono).
 * Where servers disagree on what a path means — encoded `/ \ . % ; ? #`, `;params`, `\`, `//`, dot segments,
 * control bytes, malformed or overlong UTF-8, Unicode look-alikes of `/` or `.` — the path is covered:
 * the room fails closed, and a bypass prefix only ever applies to a path that means one thing everywhere.
 * Coverage matches case-insensitively (an origin may be); bypass matches exactly. HEAD is judged as GET.
 */
import type { Context } from 'hono'
import { WaitingRoomError } from '../errors.ts'
import { hostOption, requestHost } from './hosts.ts'
import { MAY_DIFFER, plausibleReadings } from './readings.ts'

export interface CoverageOptions {
  /** Covered path prefixes (`/shop` covers `/shop` and `/shop/…`, any case; `*` matches one segment). Default: every path. */
  paths?: string[] | undefined
  /** Covered host names (case-insensitive, port ignored; IPv6 as `::1` or `[::1]`). Default: every host. */
  hosts?: string[] | undefined
  /** Requests that skip the room (not counted). Default: none. */
  bypass?: {
    /** Path prefixes, matched like `paths` but case-sensitively, and never for an ambiguous path. */
    paths?: string[] | undefined
    /** Methods, e.g. `['OPTIONS']`. HEAD follows GET. */
    methods?: string[] | undefined
    /** Any other rule. */
    when?: ((c: Context) => boolean | Promise<boolean>) | undefined
  } | undefined
  /**
   * Let verified crawlers through. `true` trusts only a platform's verification (Cloudflare's
   * `request.cf.botManagement.verifiedBot`); elsewhere pass your own check, since a user agent alone is forgeable.
   * Default false.
   */
  bypassCrawlers?: boolean | ((c: Context) => boolean | Promise<boolean>) | undefined
}

/** Why servers may disagree on what a path means. */
export type PathHazard = 'params' | 'backslash' | 'control' | 'empty-segment' | 'dot-segment' | 'encoded-delimiter' | 'malformed-escape' | 'lookalike'

/** Anything but RFC 3986 path characters (less `%` and `;`), an empty segment or a dot segment: the slow route (also routes.ts). */
export const UNUSUAL = /[^A-Za-z0-9\-._~!$&'()*+,=:@/]|\/\/|\/\.\.?(?:\/|$)/
const LITERAL_HAZARDS: [RegExp, PathHazard][] = [
  [/;/, 'params'],
  [/\\/, 'backslash'],
  [/[\x00-\x20\x7f]/, 'control'],
  [/\/\//, 'empty-segment'],
  [/\/\.\.?(?:\/|$)/, 'dot-segment'],
]
/** Escapes of `. / \ % ; ? #` and control bytes: decoding them changes the path's segments or meaning. */
const ENCODED_DELIMITER = /%(?:2[35eEfF]|3[bBfF]|5[cC]|[01][0-9a-fA-F]|7[fF])/
/** NFKC folds these (fullwidth `／ ． ＼ ％ ；`, one-dot leader, small full stop…) into delimiters. */
const DELIMITER = /[./\\%;?#]/

/** The decoded path, or why it is ambiguous. Overlong UTF-8 (`%c0%ae`) is malformed: decodeURIComponent rejects it. */
export function readPath(raw: string): { decoded: string; hazard?: undefined } | { hazard: PathHazard } {
  for (const [pattern, hazard] of LITERAL_HAZARDS) if (pattern.test(raw)) return { hazard }
  if (ENCODED_DELIMITER.test(raw)) return { hazard: 'encoded-delimiter' }
  let decoded: string
  try {
    decoded = decodeURIComponent(raw)
  } catch {
    return { hazard: 'malformed-escape' }
  }
  const wide = decoded.replace(/[\x00-\x7f]+/g, '')
  if (wide && DELIMITER.test(wide.normalize('NFKC'))) return { hazard: 'lookalike' }
  return { decoded }
}

/** Why a raw URL path (still percent-encoded) is ambiguous, or `undefined` when it means one thing. */
export function pathHazard(raw: string): PathHazard | undefined {
  return UNUSUAL.test(raw) ? readPath(raw).hazard : undefined
}

/** A path prefix option as one regex alternative, in decoded form or as the URL parser would encode it. */
function patternSource(pattern: string, encoded: boolean): string {
  return pattern
    .split('/')
    .map((segment) => {
      if (segment === '*') return '[^/]+'
      const text = encoded ? encodeURI(segment) : segment
      const source = text.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')
      // A client may send the escapes of a non-ASCII name in either hex case.
      return encoded ? source.replace(/%([0-9A-F])([0-9A-F])/g, (_, a: string, b: string) => `%[${a}${a.toLowerCase()}][${b}${b.toLowerCase()}]`) : source
    })
    .join('/')
}

export interface PathMatcher {
  /** Matches a raw (percent-encoded) URL path. */
  raw: (path: string) => boolean
  /** Matches a decoded path (the routed one, or the fully decoded one). */
  decoded: (path: string) => boolean
}

/** Compiles prefix patterns once into two regexes; a pattern of `/` (or `/*`) matches every path. */
export function pathMatcher(patterns: readonly string[], field: string, caseInsensitive: boolean): PathMatcher {
  const prefixes = patterns.map((pattern, index) => {
    const bad = /[?#;\\%\x00-\x1f\x7f]|\/\/|\/\.\.?(?:\/|$)/.exec(pattern.replace(/\/\*$/, ''))
    if (!pattern.startsWith('/') || bad) {
      const what = bad ? `${JSON.stringify(bad[0])} is not allowed` : 'it must start with /'
      throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option ${field}[${index}]: ${what} in ${JSON.stringify(pattern)}; write a plain decoded path prefix such as /shop or /events/*/tickets`)
    }
    return pattern.replace(/\/\*$/, '').replace(/\/$/, '')
  })
  if (prefixes.includes('')) return { raw: () => true, decoded: () => true }
  const flags = caseInsensitive ? 'i' : ''
  const compile = (encoded: boolean) => new RegExp(`^(?:${prefixes.map((p) => patternSource(p, encoded)).join('|')})(?:/|$)`, flags)
  const raw = compile(true)
  const decoded = compile(false)
  return { raw: (path) => raw.test(path), decoded: (path) => decoded.test(path) }
}

/**
 * Builds the path rule once: `(raw, routed) => covered`. `raw` is the URL's path as sent (after the URL
 * parser), `routed` the path the router matches (`c.req.path`; the same string for a plain path).
 */
export function pathCoverage(paths: readonly string[] | undefined, bypassPaths: readonly string[] | undefined): (raw: string, routed: string) => boolean {
  const covered = paths ? pathMatcher(paths, 'paths', true) : undefined
  const bypassed = bypassPaths?.length ? pathMatcher(bypassPaths, 'bypass.paths', false) : undefined
  const judge = (raw: string, routed: string): boolean => {
    if (!MAY_DIFFER.test(raw)) {
      // The fast route: nothing to decode, so Hono routes the URL's path as is (unless a custom getPath maps it).
      const same = raw === routed
      if (covered && !covered.raw(raw) && (same || !covered.decoded(routed))) return false
      return !(bypassed && bypassed.raw(raw) && (same || bypassed.decoded(routed)))
    }
    const read = UNUSUAL.test(raw) ? readPath(raw) : { decoded: raw }
    if (read.hazard) return true
    // Origins differ on decoding (Hono leaves `%40`, others decode all, some none) and on trailing `.`/spaces
    // (readings.ts): covered if any reading is, bypassed only if every reading is.
    if (covered && !covered.raw(raw) && !covered.decoded(routed) && !covered.decoded(read.decoded) && !plausibleReadings(raw).some(covered.decoded)) return false
    return !(bypassed && bypassed.raw(raw) && bypassed.decoded(routed) && bypassed.decoded(read.decoded))
  }
  // The answer is a function of the two strings alone; a site's requests mostly repeat a few paths.
  const known = new PathAnswers()
  return (raw, routed) => {
    if (raw !== routed) return judge(raw, routed)
    let answer = known.get(raw)
    if (answer === undefined) known.set(raw, (answer = judge(raw, routed)))
    return answer
  }
}

/** Paths judged per room, at most this many twice over (two generations: a flood of distinct paths churns, never grows). */
const PATH_ANSWERS = 1024
/** Longer paths are judged every time (an attacker's long paths would make every entry costly to hash and hold). */
const MAX_REMEMBERED_PATH = 256

/** Remembered coverage answers by path: the newer generation, and the one before it. */
class PathAnswers {
  #recent = new Map<string, boolean>()
  #older = new Map<string, boolean>()

  get(path: string): boolean | undefined {
    return this.#recent.get(path) ?? this.#older.get(path)
  }

  set(path: string, answer: boolean): void {
    if (path.length > MAX_REMEMBERED_PATH) return
    if (this.#recent.size >= PATH_ANSWERS) {
      this.#older = this.#recent
      this.#recent = new Map()
    }
    this.#recent.set(path, answer)
  }
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

/**
 * A host is covered when the URL's host or the `Host` header names a covered one: the two disagree only for an
 * absolute-form request target (`GET http://other/… ` with `Host: shop`), and origins and proxies differ on which
 * they believe — so either one covering it is enough (fail-closed).
 */
function hostCovered(hostSet: Set<string>, c: Context): boolean {
  if (hostSet.has(requestHost(new URL(c.req.url).host))) return true
  const header = c.req.header('host')
  return header !== undefined && hostSet.has(requestHost(header))
}

/** Builds the check once; `undefined` when every request is covered (the common case costs nothing). */
export function coverageCheck(options: CoverageOptions): CoverageCheck | undefined {
  const { paths, hosts, bypass, bypassCrawlers } = options
  if (!paths && !hosts && !bypass && !bypassCrawlers) return undefined
  const pathCovered = paths || bypass?.paths?.length ? pathCoverage(paths, bypass?.paths) : undefined
  const hostSet = hosts ? new Set(hosts.map((h, i) => hostOption(h, `hosts[${i}]`))) : undefined
  const methods = new Set((bypass?.methods ?? []).map((m) => m.toUpperCase()))
  const when = bypass?.when
  const crawler =
    typeof bypassCrawlers === 'function'
      ? bypassCrawlers
      : bypassCrawlers
        ? (c: Context) => (c.req.raw as { cf?: { botManagement?: { verifiedBot?: boolean } } }).cf?.botManagement?.verifiedBot === true
        : undefined
  const byRule = async (c: Context): Promise<boolean> => !((when && (await when(c))) || (crawler && (await crawler(c))))

  // Synchronous unless a rule function is given: no promise per request on the hot path.
  return (c) => {
    if (hostSet && !hostCovered(hostSet, c)) return false
    if (pathCovered && !pathCovered(rawPathOf(c.req.url), c.req.path)) return false
    if (methods.size > 0 && methods.has(c.req.method === 'HEAD' ? 'GET' : c.req.method.toUpperCase())) return false
    return when || crawler ? byRule(c) : true
  }
}

/** Coverage from the method and a path that means one thing everywhere (no `MAY_DIFFER` character in it). */
export type PlainCoverage = (method: string, plainPath: string) => boolean

/**
 * {@link coverageCheck}'s answer for a plain path, without the request: the fast path (fast-path.ts) asks
 * it. Undefined when the answer needs more of the request (hosts, a `when` or crawler rule): the fast path
 * then steps back. A plain path is routed as sent (Hono decodes only `%`), so its raw and routed forms agree.
 */
export function plainCoverage(options: CoverageOptions): PlainCoverage | undefined {
  const { paths, hosts, bypass, bypassCrawlers } = options
  if (hosts || bypass?.when || bypassCrawlers) return undefined
  const pathCovered = paths || bypass?.paths?.length ? pathCoverage(paths, bypass?.paths) : undefined
  const methods = new Set((bypass?.methods ?? []).map((m) => m.toUpperCase()))
  return (method, path) => {
    if (pathCovered && !pathCovered(path, path)) return false
    return !(methods.size > 0 && methods.has(method === 'HEAD' ? 'GET' : method.toUpperCase()))
  }
}
