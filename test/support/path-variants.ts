/**
 * @module
 * Variants of URL paths that servers read differently, and a model of those readings, for the coverage
 * fuzz test: a generator (fast-check) of paths built from names, dot segments and separators in their
 * encoded forms (single, double, triple; upper and lower hex; overlong UTF-8), `;params`, NUL, case
 * changes, trailing slashes and query strings; and `readingsOf`, the paths a lenient origin might route.
 */
import fc from 'fast-check'

const NAMES = ['shop', 'SHOP', 'Shop', 'static', 'STATIC', 'product', '123', 'app.js', 'about', 'x', '%73hop', 'sh%6Fp', '%2573hop', 'shop;x=1', 'shop%00', '%00']
const DOTS = ['.', '..', '%2e', '%2E', '%2e%2e', '%2E%2e', '.%2e', '%2e.', '%252e%252e', '%25252E%25252E', '..;', '..;x=1', '%c0%ae%c0%ae', '%e0%80%ae%e0%80%ae', '%C0%AE.', '..%00']
const SEPARATORS = ['/', '/', '/', '//', '\\', '%2F', '%2f', '%5C', '%5c', '%252F', '%25252f', '%c0%af', '%e0%80%af', ';/', '%3B/']
const PREFIXES = ['', '/shop', '/static', '/about', '/shop/product/123', '/SHOP']
const TAILS = ['', '', '/', '?x=1', '?next=/shop', '?x=/../static', '#top', '%3Fx', '%23x', '%00', ';jsessionid=1', '/.', '/..']

/** One character percent-encoded `depth` times (`%2F`, `%252F`, `%25252F`), in either hex case. */
export function encodeChar(char: string, depth: number, upper: boolean): string {
  const hex = (code: number) => (upper ? code.toString(16).toUpperCase() : code.toString(16)).padStart(2, '0')
  const bytes = new TextEncoder().encode(char)
  let escape = [...bytes].map((byte) => `%${hex(byte)}`).join('')
  for (let i = 1; i < depth; i++) escape = escape.replace(/%/g, `%${hex(0x25)}`)
  return escape
}

interface Mutation {
  at: number
  kind: 'encode' | 'case'
  depth: number
  upper: boolean
}

/** Applies encodings and case flips at positions of the path (never its leading `/`, never inside the query). */
function mutate(path: string, mutations: Mutation[]): string {
  const end = path.search(/[?#]/)
  const chars = [...(end === -1 ? path : path.slice(0, end))]
  for (const { at, kind, depth, upper } of mutations) {
    if (chars.length < 2) break
    const index = 1 + (at % (chars.length - 1))
    const char = chars[index]!
    if (kind === 'case') chars[index] = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase()
    else if (char.length === 1) chars[index] = encodeChar(char, depth, upper)
  }
  return chars.join('') + (end === -1 ? '' : path.slice(end))
}

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('encode' as const, 'encode' as const, 'case' as const),
  depth: fc.integer({ min: 1, max: 3 }),
  upper: fc.boolean(),
})

const token = (list: string[]) => fc.constantFrom(...list)

/** Free-form: a prefix, then any mix of names, dot segments and separators. */
const freeForm = fc
  .record({
    prefix: token(PREFIXES),
    separator: token(SEPARATORS),
    body: fc.array(fc.oneof(token(NAMES), token(DOTS), token(SEPARATORS)), { maxLength: 7 }),
  })
  // A path starts with `/`; `\` too becomes one in the URL parser, so it may lead after a prefix only.
  .map(({ prefix, separator, body }) => (prefix === '' ? '/' : prefix + separator) + body.join(''))

/** Traversal: a prefix, one to four "up" steps (dot segment + separator), then a name, as in `/shop/..%2F..%2Fstatic`. */
const traversal = fc
  .record({
    prefix: token(PREFIXES.filter((prefix) => prefix !== '')),
    steps: fc.array(fc.tuple(token(SEPARATORS), token(DOTS)), { minLength: 1, maxLength: 4 }),
    separator: token(SEPARATORS),
    target: fc.oneof(token(NAMES), fc.constant('')),
  })
  .map(({ prefix, steps, separator, target }) => prefix + steps.map(([sep, dots]) => sep + dots).join('') + separator + target)

/** A request path (with maybe a query) to send as is. */
export const pathVariantArbitrary: fc.Arbitrary<string> = fc
  .record({ path: fc.oneof(freeForm, traversal), tail: token(TAILS), mutations: fc.array(mutationArbitrary, { maxLength: 3 }) })
  .map(({ path, tail, mutations }) => mutate(path + tail, mutations))

/** `count` distinct variants, the same ones on every run (fixed seed). */
export function pathVariants(count: number, seed = 14): string[] {
  const seen = new Set<string>()
  for (const variant of fc.sample(pathVariantArbitrary, { seed, numRuns: count * 3 })) {
    seen.add(variant)
    if (seen.size === count) break
  }
  return [...seen]
}

/**
 * The path part of what the URL parser makes of a request target (dot segments and `\` resolved), as
 * `app.request` and @hono/node-server build it: appended to the origin, so `//x` stays a path.
 */
export function wirePathOf(target: string): string {
  return new URL(`http://room.test${target}`).pathname
}

/** Overlong UTF-8 forms of `.`, `/` and `\` that lenient decoders fold into the ASCII character. */
const OVERLONG: [RegExp, string][] = [
  [/%c0%ae|%e0%80%ae/gi, '.'],
  [/%c0%af|%e0%80%af/gi, '/'],
  [/%c1%9c|%e0%81%9c/gi, '\\'],
]

function decodeOnce(path: string): string {
  try {
    return decodeURIComponent(path)
  } catch {
    return path.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  }
}

/** `..` and `.` resolved, empty segments merged, `\` as `/`, `;params` cut. */
function resolveLeniently(path: string): string {
  const segments: string[] = []
  for (const raw of path.replace(/\\/g, '/').split('/')) {
    const segment = raw.split(';')[0]!
    if (segment === '' || segment === '.') continue
    if (segment === '..') segments.pop()
    else segments.push(segment)
  }
  return '/' + segments.join('/')
}

/**
 * The paths some server might route for a path as it arrives: as sent, decoded once (most routers),
 * decoded until stable with overlong UTF-8 folded (stacked decoders, old IIS), then resolved leniently,
 * and cut at a NUL (C-string file APIs).
 */
export function readingsOf(wirePath: string): string[] {
  let stable = wirePath
  for (let i = 0; i < 4; i++) {
    let next = stable
    for (const [pattern, char] of OVERLONG) next = next.replace(pattern, char)
    next = decodeOnce(next)
    if (next === stable) break
    stable = next
  }
  const once = decodeOnce(wirePath)
  const readings = [wirePath, once, resolveLeniently(once), stable, resolveLeniently(stable), resolveLeniently(stable.split('\0')[0]!)]
  return [...new Set(readings)]
}
