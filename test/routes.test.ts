/**
 * Routes as Cloudflare has them and several rooms in one app: host + path pairs (not hosts × paths),
 * case-sensitive paths unless `ignorePathCase`, ambiguous paths covered (fail-closed), the most specific room
 * decides (checked against a reference over generated rooms and requests, several seeds), each room on its own
 * cookie, and two rooms that would write one cookie refused at build time.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { waitingRoom, type WaitingRoomEnv, type WaitingRoomOptions } from '../src/index.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'
import { pathVariants, readingsOf, wirePathOf } from './support/path-variants.ts'

const base = { secret: TEST_SECRET, clock: () => START, totalActiveUsers: 1000, newUsersPerMinute: 1000 }

/** An app with these rooms mounted in order; the origin echoes the decision it saw. */
function appWith(rooms: WaitingRoomOptions[]) {
  const app = new Hono<WaitingRoomEnv>()
  const built = rooms.map((options) => waitingRoom({ ...base, ...options }))
  for (const room of built) app.use('*', room)
  app.all('*', (c) => c.json(c.get('waitingRoom') ?? null))
  const request = async (url: string, cookie?: string) => {
    const response = await app.request(url, { headers: cookie ? { cookie } : {} })
    return { response, cookies: response.headers.getSetCookie().map((c) => c.split('=')[0]!), decision: response.headers.get('content-type')?.includes('json') ? await response.json() : undefined }
  }
  return { app, built, request }
}

describe('routes: host + path pairs', () => {
  const { request } = appWith([{ roomId: 'pairs', routes: [{ host: 'a.test', path: '/shop' }, { host: 'b.test', path: '/blog' }] }])

  it.each([
    ['http://a.test/shop', 'admitted'],
    ['http://a.test/shop/cart', 'admitted'],
    ['http://b.test/blog', 'admitted'],
    ['http://a.test/blog', 'bypassed'], // hosts × paths would cover it
    ['http://b.test/shop', 'bypassed'],
    ['http://c.test/shop', 'bypassed'],
    ['http://a.test/SHOP', 'bypassed'], // case-sensitive, as Cloudflare
    ['http://a.test/shopping', 'bypassed'],
    ['http://a.test/x/..%2fshop', 'admitted'], // ambiguous: covered for a host the room has a route for
    ['http://a.test/shop;x=1', 'admitted'],
    ['http://A.TEST:8080/shop', 'admitted'],
  ])('%s → %s', async (url, outcome) => {
    expect((await request(url)).decision.outcome).toBe(outcome)
  })

  it('ignorePathCase matches any case', async () => {
    const { request: any } = appWith([{ roomId: 'nocase', routes: [{ host: 'a.test', path: '/shop' }], ignorePathCase: true }])
    expect((await any('http://a.test/SHOP/x')).decision.outcome).toBe('admitted')
  })

  it('refuses bad routes at build time, naming the field', () => {
    expect(() => waitingRoom({ routes: [{ path: '/a' }], paths: ['/b'] })).toThrow(/routes: give either routes or hosts\/paths/)
    expect(() => waitingRoom({ routes: [{ host: 'https://a.test' }] })).toThrow(/routes\.0\.host/)
    expect(() => waitingRoom({ routes: [{ path: 'shop' }] })).toThrow(/routes\.0\.path/)
    expect(() => waitingRoom({ routes: [{ path: '/a/../b' }] })).toThrow(/routes\.0\.path/)
    expect(() => waitingRoom({ roomId: 'dup', routes: [{ host: 'a.test', path: '/x' }, { host: 'A.test', path: '/x' }] })).toThrow(/routes\[1\]: the route a\.test\/x is given twice/)
  })
})

describe('several rooms in one app', () => {
  it('the most specific room decides, whatever the order; the other passes it untouched; each has its own cookie', async () => {
    const site = { roomId: 'site', routes: [{ path: '/' }] }
    const checkout = { roomId: 'checkout', routes: [{ path: '/shop/checkout' }], totalActiveUsers: 1, newUsersPerMinute: 1 }
    for (const order of [[site, checkout], [checkout, site]]) {
      const { request } = appWith(order)
      const first = await request('http://x.test/shop/checkout/pay')
      expect(first.cookies).toEqual(['__wroom_checkout'])
      expect(first.decision).toMatchObject({ outcome: 'admitted', reason: 'slot' })
      const second = await request('http://x.test/shop/checkout')
      expect(second.decision).toBeUndefined() // the checkout room queued it, though the site room has room
      expect(second.cookies).toEqual(['__wroom_checkout'])
      const home = await request('http://x.test/shop')
      expect(home.cookies).toEqual(['__wroom_site'])
      expect(home.decision).toMatchObject({ outcome: 'admitted' })
    }
  })

  it('a room with hosts/paths takes part too (paths any case, as they always matched)', async () => {
    const { request } = appWith([{ roomId: 'all', routes: [{ path: '/' }] }, { roomId: 'legacy', paths: ['/shop'], cookie: { suffix: 'legacy' } }])
    expect((await request('http://x.test/SHOP/a')).cookies).toEqual(['__wroom_legacy'])
    expect((await request('http://x.test/other')).cookies).toEqual(['__wroom_all'])
  })

  it.each([false, true])('finds a room mounted in a sub-app (sub-app with its own onError: %s)', async (ownOnError) => {
    const app = new Hono<WaitingRoomEnv>()
    app.use('*', waitingRoom({ ...base, roomId: 'outer', routes: [{ path: '/' }] }))
    const shop = new Hono<WaitingRoomEnv>()
    if (ownOnError) shop.onError((_, c) => c.text('shop error', 500))
    shop.use('*', waitingRoom({ ...base, roomId: 'inner', routes: [{ path: '/shop' }], totalActiveUsers: 1, newUsersPerMinute: 1 }))
    shop.get('*', (c) => c.json(c.get('waitingRoom')))
    app.route('/shop', shop)
    app.get('*', (c) => c.json(c.get('waitingRoom')))
    const first = await app.request('http://x.test/shop/a')
    expect(first.headers.getSetCookie().map((c) => c.split('=')[0])).toEqual(['__wroom_inner'])
    expect(await first.json()).toMatchObject({ outcome: 'admitted', reason: 'slot' })
    const second = await app.request('http://x.test/shop/b')
    expect(second.headers.get('content-type')).toMatch(/html/) // queued by the inner room, which is full
    expect((await app.request('http://x.test/home')).headers.getSetCookie().map((c) => c.split('=')[0])).toEqual(['__wroom_outer'])
  })

  const SEGMENTS = ['a', 'b', 'c']
  const pathArb = fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 3 }).map((s) => `/${s.join('/')}`)
  const routeArb = fc.record({ host: fc.option(fc.constantFrom('x.test', 'y.test'), { nil: undefined }), path: pathArb })
  const roomsArb = fc.array(fc.uniqueArray(routeArb, { minLength: 1, maxLength: 3, selector: (r) => `${r.host} ${r.path}` }), { minLength: 2, maxLength: 4 })
  const requestArb = fc.record({ host: fc.constantFrom('x.test', 'y.test', 'z.test'), path: pathArb })

  /**
   * The reference: the rooms with the longest matching path prefix (then a named host). Ties are ambiguous, so
   * every tied room decides (fail-closed: none of them may be the stricter one skipped).
   */
  function expected(rooms: { host?: string | undefined; path: string }[][], request: { host: string; path: string }): number[] {
    const scores = rooms.map((routes) => {
      let best = -1
      for (const route of routes) {
        const prefix = route.path === '/' ? '' : route.path
        if (route.host !== undefined && route.host !== request.host) continue
        if (!(request.path === prefix || request.path.startsWith(`${prefix}/`) || prefix === '')) continue
        best = Math.max(best, (prefix === '' ? 0 : prefix.split('/').length - 1) * 2 + (route.host ? 1 : 0))
      }
      return best
    })
    const top = Math.max(...scores)
    return top < 0 ? [] : scores.flatMap((score, index) => (score === top ? [index] : []))
  }

  it.each([7, 19, 101])('generated rooms and requests: exactly the most specific room decides (seed %i)', async (seed) => {
    await fc.assert(
      fc.asyncProperty(roomsArb, fc.array(requestArb, { minLength: 1, maxLength: 6 }), async (rooms, requests) => {
        const { request } = appWith(rooms.map((routes, i) => ({ roomId: `gen${i}`, routes })))
        for (const r of requests) {
          const { cookies, decision } = await request(`http://${r.host}${r.path}`)
          const want = expected(rooms, r)
          if (want.length === 0) {
            expect(cookies).toEqual([])
            expect(decision).toMatchObject({ outcome: 'bypassed' })
          } else {
            expect(cookies).toEqual(want.map((index) => `__wroom_gen${index}`))
            expect(decision).toMatchObject({ outcome: 'admitted' })
          }
        }
      }),
      { numRuns: 60, seed },
    )
  })
})

describe('cookie names: one room per name', () => {
  it('throws at build time when two rooms would write the same cookie', () => {
    const kept = waitingRoom({ ...base, roomId: 'left', routes: [{ path: '/l' }], cookie: { name: 'shared' } })
    expect(() => waitingRoom({ ...base, roomId: 'right', routes: [{ path: '/r' }], cookie: { name: 'shared' } })).toThrow(/rooms "left" and "right" would both write the cookie "shared"/)
    expect(() => waitingRoom({ ...base, roomId: 'right2', cookie: { name: 'shared' } })).toThrow(/would both write the cookie "shared"/)
    // The same room built again (another app, a test) is no conflict.
    expect(() => waitingRoom({ ...base, roomId: 'left', routes: [{ path: '/l' }], cookie: { name: 'shared' } })).not.toThrow()
    expect(kept.room.roomId).toBe('left')
  })

  it("Cloudflare mode: several rooms need a cookie.suffix, as Cloudflare's cookie_suffix", () => {
    const kept = waitingRoom({ ...base, roomId: 'cf-one', compatibility: 'cloudflare' })
    expect(() => waitingRoom({ ...base, roomId: 'cf-two', compatibility: 'cloudflare' })).toThrow(/"__cfwaitingroom".*cookie\.suffix/)
    expect(() => waitingRoom({ ...base, roomId: 'cf-two', compatibility: 'cloudflare', cookie: { suffix: 'two' } })).not.toThrow()
    expect(kept.room.roomId).toBe('cf-one')
  })

  it('rooms without routes keep sharing __wroom as before (separate apps in one process)', () => {
    const one = waitingRoom({ ...base, roomId: 'plain-one' })
    expect(() => waitingRoom({ ...base, roomId: 'plain-two' })).not.toThrow()
    expect(one.room.options.cookieName).toBe('__wroom')
  })
})

describe('routes keep coverage fail-closed (the generated path variants of coverage-fuzz)', () => {
  const variants = [...new Set(['/shop/..;/', '/shop/..%2F', '/shop/%2e%2e%2f', '/shop/..%5C', '/x/..%2Fshop', ...pathVariants(400, 19)])]
  const site = (options: WaitingRoomOptions) => {
    const app = new Hono().use('*', waitingRoom({ ...base, queueAll: true, ...options }))
    app.get('/shop/*', (c) => c.text('shop', 200, { 'x-handler': 'shop' }))
    app.get('*', (c) => c.text('other', 200, { 'x-handler': 'other' }))
    return app
  }
  it.each([
    ['case-sensitive', { roomId: 'fuzz-cs', routes: [{ host: 'a.test', path: '/shop' }] }, (p: string) => /^\/shop(?:\/|$)/.test(p)],
    ['ignorePathCase', { roomId: 'fuzz-ci', routes: [{ host: 'a.test', path: '/shop' }], ignorePathCase: true }, (p: string) => /^\/shop(?:\/|$)/i.test(p)],
  ] as const)('%s: no variant reaches a /shop handler, and every one some reading puts under /shop is queued', async (_, options, under) => {
    const app = site(options)
    const broken: string[] = []
    for (const variant of variants) {
      const response = await app.request(`http://a.test${variant}`)
      const handler = response.headers.get('x-handler')
      if (handler === 'shop' || (handler !== null && readingsOf(wirePathOf(variant)).some(under))) broken.push(`${variant} → ${handler}`)
    }
    expect(variants.length).toBeGreaterThan(300)
    expect(broken).toEqual([])
  })
})
