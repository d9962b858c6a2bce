/**
 * Which requests the room covers: paths judged as Hono routes them, ambiguous paths covered (fail closed),
 * bypass prefixes only for paths that mean one thing. The generated variants are in coverage-fuzz.test.ts.
 */
import { Hono } from 'hono'
import { getPath } from 'hono/utils/url'
import { describe, expect, it } from 'vitest'
import { coverageCheck, pathCoverage, pathHazard, pathMatcher, rawPathOf } from '../src/room/coverage.ts'
import { waitingRoom } from '../src/index.ts'
import { roomHarness } from './support/room-harness.ts'

/** The raw and the routed path of a request target, as the URL parser and Hono's router see them. */
function pathsOf(target: string): [raw: string, routed: string] {
  const request = new Request(`http://room.test${target}`)
  return [rawPathOf(request.url), getPath(request)]
}

describe('pathHazard: what servers may read differently', () => {
  it.each([
    ['/shop/..;/', 'params'],
    ['/shop;jsessionid=1', 'params'],
    ['/shop\\cart', 'backslash'],
    ['/shop//cart', 'empty-segment'],
    ['//shop', 'empty-segment'],
    ['/static/../shop', 'dot-segment'], // not from a Request (the URL parser resolves it), but from any other caller
    ['/shop/..%2F', 'encoded-delimiter'],
    ['/shop/%2e%2e%2f', 'encoded-delimiter'],
    ['/shop/..%252F', 'encoded-delimiter'], // double encoding
    ['/%2573hop', 'encoded-delimiter'],
    ['/shop/..%5C', 'encoded-delimiter'],
    ['/shop/..%3b/', 'encoded-delimiter'],
    ['/shop%00', 'encoded-delimiter'],
    ['/shop%3Fx', 'encoded-delimiter'],
    ['/shop/%c0%ae%c0%ae/', 'malformed-escape'], // overlong UTF-8 `..`
    ['/shop/%e0%80%ae', 'malformed-escape'],
    ['/shop/%ed%a0%80', 'malformed-escape'], // a lone surrogate
    ['/shop/%zz', 'malformed-escape'],
    ['/static/%EF%BC%8F..%EF%BC%8Fshop', 'lookalike'], // fullwidth solidus
    ['/static/%E2%80%A4%E2%80%A4/shop', 'lookalike'], // one-dot leaders: `..` after NFKC
  ])('%s: %s', (raw, hazard) => {
    expect(pathHazard(raw)).toBe(hazard)
  })

  it.each(['/', '/shop', '/shop/', '/shop/product/123', '/%73hop', '/static/caf%C3%A9.png', '/static/a%20b.css', '/a/b:c@d', '/a/[x]'])('%s is plain', (raw) => {
    expect(pathHazard(raw)).toBeUndefined()
  })
})

describe('pathCoverage: covered when any reading is, bypassed only when every reading is', () => {
  const shopOnly = pathCoverage(['/shop'], ['/static'])
  const everything = pathCoverage(undefined, ['/static'])

  it.each([
    ['/shop', true],
    ['/shop/', true],
    ['/SHOP/Cart', true], // an origin may be case-insensitive
    ['/%73hop', true], // routed as /shop
    ['/shop/product/123?x=1', true],
    ['/shop/..%2F', true], // the filed variants: Hono routes each to a /shop handler
    ['/shop/..%252F', true],
    ['/shop/product/123%2F..%2F..%2F..%2F..', true],
    ['/about/..%2Fshop', true], // ambiguous: fail closed, though Hono would 404 it
    ['/static/..;/shop', true],
    ['/shopping', false],
    ['/about', false],
    ['/', false],
    ['/static/app.js', false],
    ['/static/..%2F', true], // under a bypass prefix, but ambiguous
  ])('paths /shop: %s covered %s', (target, covered) => {
    expect(shopOnly(...pathsOf(target))).toBe(covered)
  })

  it.each([
    ['/static/app.js', false],
    ['/static/', false],
    ['/static/caf%C3%A9.png', false],
    ['/static/css/site%20v2.css', false],
    ['/STATIC/app.js', true], // bypass matches exactly: a case-sensitive router sends this elsewhere
    ['/%73tatic/app.js', true], // an origin that routes before decoding sends this elsewhere
    ['/static/..%2Fshop', true],
    ['/static/%2e%2e%2fshop', true],
    ['/static;x=1/app.js', true],
    ['/staticky', true],
  ])('every path, bypass /static: %s covered %s', (target, covered) => {
    expect(everything(...pathsOf(target))).toBe(covered)
  })

  it('matches a custom getPath too: covered if either path is, bypassed only if both are', () => {
    expect(shopOnly('/x', '/shop/x')).toBe(true)
    expect(everything('/static/x', '/tenant/static/x')).toBe(true)
    expect(everything('/static/x', '/static/x')).toBe(false)
  })
})

describe('pathMatcher', () => {
  it('matches prefixes on segment boundaries, with * for one segment or part of one', () => {
    const { decoded: matches } = pathMatcher(['/shop', '/events/*/tickets', '/files/*.pdf'], 'paths', true)
    expect(['/shop', '/SHOP/cart', '/events/42/tickets', '/events/42/tickets/7', '/files/a.pdf'].map(matches)).toEqual([true, true, true, true, true])
    expect(['/shopping', '/events/42', '/events//tickets', '/files/a.pdfx'].map(matches)).toEqual([false, false, false, false])
  })

  it('matches a non-ASCII prefix in its raw form, in either hex case', () => {
    const matcher = pathMatcher(['/café'], 'bypass.paths', false)
    expect([matcher.raw('/caf%C3%A9/x'), matcher.raw('/caf%c3%a9'), matcher.decoded('/café/x'), matcher.raw('/cafe')]).toEqual([true, true, true, false])
  })

  it.each([
    [{ paths: ['/shop?x=1'] }, /invalid option paths\[0\]: "\?" is not allowed/],
    [{ paths: ['/shop', '/a/../b'] }, /invalid option paths\[1\]: "\/\.\.\/" is not allowed/],
    [{ paths: ['/%73hop'] }, /invalid option paths\[0\]: "%" is not allowed/],
    [{ bypass: { paths: ['/static;x'] } }, /invalid option bypass\.paths\[0\]: ";" is not allowed/],
    [{ bypass: { paths: ['/a//b'] } }, /invalid option bypass\.paths\[0\]: "\/\/" is not allowed/],
  ])('rejects %j at build time', (options, message) => {
    expect(() => waitingRoom({ secret: 'coverage-test-secret-0123456789-abcdef', ...options })).toThrow(message)
  })
})

describe('coverage and bypass in the room', () => {
  /** A full room (limit 1, taken) protecting /shop, with static files and OPTIONS bypassed. */
  async function protectedShop() {
    const room = roomHarness({ totalActiveUsers: 1, paths: ['/shop'], bypass: { paths: ['/static'], methods: ['OPTIONS'] } })
    expect((await room.visit(undefined, { path: '/shop' })).outcome).toBe('admitted')
    return room
  }

  it('catches every variant of a protected path', async () => {
    const room = await protectedShop()
    const variants = ['/shop', '/SHOP', '/Shop/', '/shop/', '//shop', '/%73hop', '/%2573hop', '/shop;x=1', '/static/../shop', '/static/%2e%2e/shop', '/./shop', '/shop/cart?x=1', '/%2Fshop', '/shop/..%2F', '/shop/product/123%2F..%2F..']
    for (const path of variants) {
      const visit = await room.visit(undefined, { path })
      expect({ path, outcome: visit.outcome }).toEqual({ path, outcome: 'queued' })
    }
    const head = await room.visit(undefined, { path: '/shop', method: 'HEAD' })
    expect(head.response.headers.get('refresh')).not.toBeNull() // HEAD is judged as GET: queued
  })

  it('lets uncovered paths, bypassed paths and methods through without counting them', async () => {
    const room = await protectedShop()
    for (const [path, method] of [
      ['/', 'GET'],
      ['/shopping', 'GET'],
      ['/static/app.js', 'GET'],
      ['/STATIC/app.js', 'GET'], // not covered: only /shop is
      ['/shop', 'OPTIONS'],
    ] as const) {
      const visit = await room.visit(undefined, { path, method })
      expect({ path, method, reason: visit.response.headers.get('x-origin') }).toEqual({ path, method, reason: 'bypass' })
    }
  })

  it('with every path covered, bypasses only the exact, unambiguous prefix', async () => {
    const room = roomHarness({ totalActiveUsers: 1, bypass: { paths: ['/static'] } })
    await room.visit()
    const outcomes = []
    for (const path of ['/static/app.js', '/STATIC/app.js', '/%73tatic/app.js', '/static/..%2Fshop', '/static%2Fapp.js']) {
      const visit = await room.visit(undefined, { path })
      outcomes.push(visit.response.headers.get('x-origin') ?? visit.outcome)
    }
    expect(outcomes).toEqual(['bypass', 'queued', 'queued', 'queued', 'queued'])
  })

  it('covers only the listed hosts, and bypasses by rule and for verified crawlers', async () => {
    const room = roomHarness({
      totalActiveUsers: 1,
      hosts: ['shop.example'],
      bypass: { when: (c) => c.req.header('x-health') === '1' },
      bypassCrawlers: (c) => c.req.header('x-verified-bot') === 'yes',
    })
    await room.visit(undefined, { path: 'http://shop.example/' })
    expect((await room.visit(undefined, { path: 'http://SHOP.example./' })).outcome).toBe('queued')
    expect((await room.visit(undefined, { path: 'http://blog.example/' })).response.headers.get('x-origin')).toBe('bypass')
    expect((await room.visit(undefined, { path: 'http://shop.example/', headers: { 'x-health': '1' } })).response.headers.get('x-origin')).toBe('bypass')
    expect((await room.visit(undefined, { path: 'http://shop.example/', headers: { 'x-verified-bot': 'yes' } })).response.headers.get('x-origin')).toBe('bypass')
  })

  it('answers without a promise unless a rule function is given (the hot path awaits nothing)', async () => {
    const sync = coverageCheck({ paths: ['/shop'], bypass: { paths: ['/static'], methods: ['OPTIONS'] } })!
    const withRule = coverageCheck({ paths: ['/shop'], bypass: { when: () => false } })!
    const app = new Hono().get('*', (c) => c.json([sync(c), withRule(c) instanceof Promise]))
    expect(await (await app.request('/shop/cart')).json()).toEqual([true, true])
    expect(coverageCheck({})).toBeUndefined()
  })
})
