/**
 * Rooms side by side (`routes`): a request that any plausible server reading routes to room R's route is never
 * decided by a less specific room (src/room/readings.ts). Generated route sets and generated spellings of a
 * path under R's route — `;params`, `//`, `%2F`/`%5C`/`\` for a slash, `/x/..%2f` in front, `%2e` dot
 * segments, trailing `.`/`%20`/`%00`, double encoding — with a catch-all room mounted first that admits
 * everyone, so a wrong decider shows as the origin's page.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { waitingRoom, type WaitingRoomEnv } from '../src/index.ts'
import { plausibleReadings } from '../src/room/readings.ts'
import { routeScore } from '../src/room/routes.ts'
import { TEST_SECRET } from './support/room-harness.ts'

const SEGMENTS = ['checkout', 'cart', 'pay', '*', 'x']
const routeArb = fc.record({ host: fc.constantFrom('a.test', undefined), path: fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 3 }).map((s) => '/' + s.join('/')) })
const roomsArb = fc.array(fc.uniqueArray(routeArb, { minLength: 1, maxLength: 3, selector: (r) => `${r.host} ${r.path}` }), { minLength: 1, maxLength: 3 })

type Mutation = (path: string) => string
const atSlash = (with_: string, nth: number): Mutation => (p) => {
  const slashes = [...p.matchAll(/\//g)].map((m) => m.index!).filter((i) => i > 0)
  if (slashes.length === 0) return p
  const i = slashes[nth % slashes.length]!
  return p.slice(0, i) + with_ + p.slice(i + 1)
}
const MUTATIONS: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constantFrom<Mutation>(
    (p) => p.replace(/^\//, '//'),
    (p) => `/x/..%2f${p.slice(1)}`,
    (p) => `/x/%2e%2e/${p.slice(1)}`,
    (p) => `/x/..%5c${p.slice(1)}`,
    (p) => `/./${p.slice(1)}`,
    (p) => `${p}%2F`,
    (p) => `${p}%2fx`,
    (p) => `${p}%252F`,
    (p) => `${p}%00`,
    (p) => `${p}.`,
    (p) => `${p}%20`,
    (p) => `${p}%09`,
    (p) => `${p}..`,
    (p) => `${p};jsessionid=1`,
    (p) => p.replace(/^(\/[^/]+)/, '$1;p=1'),
  ),
  fc.tuple(fc.constantFrom('%2F', '%2f', '%5C', '%5c', '\\', '//', '/./', '%252f', ';a/'), fc.nat(5)).map(([w, n]) => atSlash(w, n)),
)
const spellingArb = fc.array(MUTATIONS, { minLength: 1, maxLength: 3 })

let seq = 0
const cookieRoom = (response: Response) => /^__wroom_([^=]+)=/.exec(response.headers.get('set-cookie') ?? '')?.[1]

describe('the most specific plausible room decides', () => {
  for (const seed of [1, 19, 2026]) {
    it(`generated route sets × spellings (seed ${seed})`, async () => {
      await fc.assert(
        fc.asyncProperty(roomsArb, fc.nat(), fc.nat(), spellingArb, fc.boolean(), async (rooms, pickRoom, pickRoute, spelling, tail) => {
          const app = new Hono<WaitingRoomEnv>()
          const site = `rr${++seq}site`
          app.use('*', waitingRoom({ roomId: site, routes: [{ path: '/' }], secret: TEST_SECRET, totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000 }))
          const ids = rooms.map((_, i) => `rr${seq}r${i}`)
          rooms.forEach((routes, i) => app.use('*', waitingRoom({ roomId: ids[i], routes, secret: TEST_SECRET, queueAll: true })))
          app.all('*', (c) => c.text('REACHED'))
          const r = pickRoom % rooms.length
          const route = rooms[r]![pickRoute % rooms[r]!.length]!
          const plain = route.path.replace(/\*/g, 'y') + (tail ? '/more' : '')
          const spelled = spelling.reduce((p, m) => m(p), plain)
          // The URL parser resolves `.`, `..` and `%2e` segments before any room or origin sees the path: a
          // spelling whose segments it changed means what it parsed to, for everyone downstream.
          const parsed = new URL(`http://a.test${spelled}`).pathname
          fc.pre(parsed.split('/').length === spelled.split('/').length)
          const response = await app.request(`http://a.test${spelled}`, { headers: { host: 'a.test' } })
          const body = await response.text()
          const label = `${spelled} (route ${JSON.stringify(route)} of ${ids[r]}, rooms ${JSON.stringify(rooms)})`
          // A route as unspecific as the site's `/` (`/*`) ties it, and the tie goes to the room mounted first.
          if (routeScore(route) === 0) return
          expect(body, label).not.toBe('REACHED')
          const decider = ids.indexOf(cookieRoom(response) ?? '')
          expect(decider, label).toBeGreaterThanOrEqual(0)
          expect(Math.max(...rooms[decider]!.map(routeScore)), label).toBeGreaterThanOrEqual(routeScore(route))
        }),
        { numRuns: 200, seed },
      )
    })
  }

  it('the reported spellings go to the checkout room, not the site room mounted first', async () => {
    const app = new Hono<WaitingRoomEnv>()
    app.use('*', waitingRoom({ roomId: 'rr-site', routes: [{ path: '/' }], secret: TEST_SECRET, totalActiveUsers: 100 }))
    app.use('*', waitingRoom({ roomId: 'rr-checkout', routes: [{ path: '/checkout' }], secret: TEST_SECRET, queueAll: true }))
    app.all('*', (c) => c.text('REACHED'))
    const site = await app.request('http://a.test/')
    const cookie = site.headers.get('set-cookie')!.split(';')[0]!
    expect(await site.text()).toBe('REACHED')
    for (const path of ['/checkout;jsessionid=1', '//checkout', '/checkout%2F', '/checkout%2fx', '/x/..%2fcheckout', '/checkout%00', '/checkout.', '/checkout%20']) {
      const response = await app.request(`http://a.test${path}`, { headers: { cookie } })
      expect(await response.text(), path).not.toBe('REACHED')
      expect(cookieRoom(response), path).toBe('rr-checkout')
    }
    // Plain neighbours still belong to the site room.
    for (const path of ['/checkouts', '/check', '/x/checkout', '/checkout.html']) expect(await (await app.request(`http://a.test${path}`, { headers: { cookie } })).text(), path).toBe('REACHED')
  })

  it('readings: each reported spelling reads as /checkout under some server', () => {
    for (const path of ['/checkout;jsessionid=1', '//checkout', '/checkout%2F', '/x/..%2fcheckout', '/checkout%00', '/checkout.', '/checkout%20', '/x\\..\\checkout', '/checkout%252f'])
      expect(plausibleReadings(path).some((r) => /^\/checkout(?:\/|$)/.test(r)), path).toBe(true)
  })
})

describe('a room with paths covers what a plausible reading puts under them', () => {
  it('trailing dot, space, NUL, tab and params under /checkout are covered; neighbours are not', async () => {
    const app = new Hono<WaitingRoomEnv>()
    app.use('*', waitingRoom({ roomId: 'rr-paths', paths: ['/checkout'], secret: TEST_SECRET, queueAll: true }))
    app.all('*', (c) => c.text('REACHED'))
    for (const path of ['/checkout.', '/checkout%20', '/checkout%00', '/checkout%09', '/checkout./pay', '/checkout%20/pay', '/checkout;x', '/Checkout.'])
      expect(await (await app.request(`http://a.test${path}`)).text(), path).not.toBe('REACHED')
    for (const path of ['/checkouts', '/checkout.html', '/x/checkout.']) expect(await (await app.request(`http://a.test${path}`)).text(), path).toBe('REACHED')
  })
})
