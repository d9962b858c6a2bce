/**
 * The admin API is never behind its own room (issue 18, item 4): with the room full, every admin route
 * answers — mounted with `app.route` or `app.mount`, before or after `app.use('/*', room)` — and a PATCH
 * really changes the settings. Nothing else gets through: ordinary paths, look-alike paths, a valid token
 * on an ordinary path, a mounted app of the user's own, and a route of the app's own that would answer first.
 * Writes from another site are refused. Fake clock, in-memory storage and coordinator.
 */
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { waitingRoomAdmin } from '../src/admin/admin.ts'
import { waitingRoom, type WaitingRoomEnv } from '../src/room/middleware.ts'
import { settle, START, TEST_SECRET } from './support/room-harness.ts'

const TOKEN = 'lockout-token-0123456789abcdef'
const auth = { authorization: `Bearer ${TOKEN}` }
type Mounting = 'route' | 'mount'
afterEach(() => vi.restoreAllMocks())
type Order = 'admin first' | 'room first'

/** A full room (limit 1, taken) with the admin API mounted as asked, and the origin after both. */
async function fullRoom(mounting: Mounting, order: Order, extra: (app: Hono<WaitingRoomEnv>) => void = () => {}) {
  const clock = { now: START }
  const room = waitingRoom({ secret: TEST_SECRET, clock: () => clock.now, totalActiveUsers: 1, newUsersPerMinute: 1, storage: createStorage() })
  // app.mount after the room: the operator declares where (the room cannot see the app behind a mount).
  const admin = waitingRoomAdmin(room, mounting === 'mount' ? { token: TOKEN, mountPath: '/_room' } : { token: TOKEN })
  const app = new Hono<WaitingRoomEnv>()
  const mountAdmin = () => (mounting === 'route' ? app.route('/_room', admin) : app.mount('/_room', admin.fetch))
  if (order === 'admin first') mountAdmin()
  app.use('/*', room)
  if (order === 'room first') mountAdmin()
  extra(app)
  app.all('*', (c) => c.text(`origin ${c.get('waitingRoom')?.reason}`))
  const first = await app.request('/')
  expect(await first.text()).toBe('origin slot')
  await settle()
  const second = await app.request('/')
  expect(await second.text()).not.toMatch(/^origin/) // full: the next user queues
  return { app, room: room.room }
}

const cases: [Mounting, Order][] = [
  ['route', 'admin first'],
  ['route', 'room first'],
  ['mount', 'admin first'],
  ['mount', 'room first'],
]

describe.each(cases)('the admin API mounted with app.%s, %s, in a full room', (mounting, order) => {
  it('answers GET /status with JSON and applies PATCH /settings', async () => {
    const { app, room } = await fullRoom(mounting, order)
    const status = await app.request('/_room/status', { headers: auth })
    expect(status.status).toBe(200)
    expect(status.headers.get('content-type')).toMatch(/json/)
    expect((await status.json()).estimatedTotalActiveUsers).toBe(1)

    const patch = await app.request('/_room/settings', { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: '{"totalActiveUsers":7}' })
    expect(patch.status).toBe(200)
    expect(room.settings.overrides().totalActiveUsers).toBe(7)
    const settings = await (await app.request('/_room/settings', { headers: auth })).json()
    expect(settings.settings.totalActiveUsers).toBe(7)
  })

  it('answers every other admin route (openapi, analytics, events, metrics, preview)', async () => {
    const { app } = await fullRoom(mounting, order)
    for (const path of ['/_room/openapi.json', '/_room/events', '/_room/metrics', '/_room/preview?language=de', '/_room/analytics']) {
      const response = await app.request(path, { headers: auth })
      expect([200, 501], path).toContain(response.status)
      expect(await response.text(), path).not.toMatch(/^origin|You are now in line/)
    }
    const missing = await app.request('/_room/events/nope', { method: 'DELETE', headers: auth })
    expect(missing.status).toBe(404) // the admin's own answer, not the queue's
  })

  it('still refuses an admin call without the token (401), and queues everything else', async () => {
    const { app } = await fullRoom(mounting, order)
    const anonymous = await app.request('/_room/status')
    expect(anonymous.status).toBe(401) // the admin's own refusal: a declared mountPath passes with or without a token
    const ordinary = ['/', '/shop', '/_room2/status', '/_roomx', '/status', '/_room/../status', '/x/_room/status', '/_room%2fstatus']
    for (const path of ordinary) {
      for (const headers of [{}, auth]) {
        const response = await app.request(path, { headers })
        expect(await response.text(), `${path} ${JSON.stringify(headers)}`).not.toMatch(/^origin/)
      }
    }
  })
})

describe('what the admin marks cannot open', () => {
  it('a mounted app of the user own, even with the admin token on a path the admin also has', async () => {
    const other = new Hono()
    other.all('*', (c) => c.text('origin other app'))
    const { app } = await fullRoom('route', 'room first', (a) => a.mount('/api', other.fetch))
    for (const headers of [{}, auth]) {
      const response = await app.request('/api/settings', { headers })
      // The room cannot see the app behind a mount, and /api is no declared mountPath: queued, token or not.
      expect(await response.text()).not.toMatch(/^origin/)
    }
    expect(await (await app.request('/api/shop', { headers: auth })).text()).not.toMatch(/^origin/)
  })

  it('a route of the app registered between the room and the admin, which would answer first', async () => {
    const clock = { now: START }
    const room = waitingRoom({ secret: TEST_SECRET, clock: () => clock.now, totalActiveUsers: 1, newUsersPerMinute: 1 })
    const app = new Hono<WaitingRoomEnv>()
    app.use('/*', room)
    app.get('/_room/status', (c) => c.text('origin shadow'))
    app.route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
    app.all('*', (c) => c.text('origin'))
    await app.request('/')
    await settle()
    expect(await (await app.request('/_room/status', { headers: auth })).text()).not.toMatch(/^origin/)
  })

  it('a catch-all of the app registered before the admin (it would answer first), with or without the token', async () => {
    const clock = { now: START }
    const room = waitingRoom({ secret: TEST_SECRET, clock: () => clock.now, totalActiveUsers: 1, newUsersPerMinute: 1 })
    const app = new Hono<WaitingRoomEnv>()
    app.use('/*', room)
    app.use('/*', async (_c, next) => next()) // middleware: passed through
    app.all('*', (c) => c.text('origin catch-all'))
    app.route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
    await app.request('/')
    await settle()
    for (const path of ['/_room', '/_room/status', '/_room/events/anything/report']) {
      expect(await (await app.request(path, { headers: auth })).text(), path).not.toMatch(/^origin/)
    }
  })

  it('another room: an admin built on room A mounted (declared mountPath) behind room B answers (any admin passes every room), and nothing else passes', async () => {
    const roomA = waitingRoom({ secret: TEST_SECRET, clock: () => START, totalActiveUsers: 1, newUsersPerMinute: 1 })
    const roomB = waitingRoom({ secret: TEST_SECRET, clock: () => START, totalActiveUsers: 1, newUsersPerMinute: 1 })
    const app = new Hono<WaitingRoomEnv>()
    app.use('/*', roomB)
    app.mount('/_room', waitingRoomAdmin(roomA, { token: TOKEN, mountPath: '/_room' }).fetch)
    app.all('*', (c) => c.text('origin'))
    await app.request('/')
    await settle()
    expect(await (await app.request('/_room/status', { headers: auth })).text()).toMatch(/^\{"status"/)
    expect(await (await app.request('/_room/status')).text()).not.toMatch(/^origin|estimated/)
    expect(await (await app.request('/shop', { headers: auth })).text()).not.toMatch(/^origin|estimated/)
  })
})

describe('cross-site writes', () => {
  it('refuses a PATCH from another site (Sec-Fetch-Site or Origin) and accepts same-origin and non-browser calls', async () => {
    const { app, room } = await fullRoom('route', 'room first')
    const patch = (headers: Record<string, string>, value: number) =>
      app.request('http://shop.example/_room/settings', { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json', ...headers }, body: JSON.stringify({ newUsersPerMinute: value }) })
    const crossSite: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }, { origin: 'null' }]
    for (const headers of crossSite) {
      const response = await patch(headers, 3)
      expect(response.status, JSON.stringify(headers)).toBe(403)
      expect((await response.json()).error).toBe('cross_site')
    }
    expect(room.settings.overrides().newUsersPerMinute).toBeUndefined()
    expect((await patch({ 'sec-fetch-site': 'same-origin' }, 4)).status).toBe(200)
    expect(room.settings.overrides().newUsersPerMinute).toBe(4)
    expect((await patch({ origin: 'http://shop.example' }, 5)).status).toBe(200)
    expect((await patch({}, 6)).status).toBe(200)
    expect(room.settings.overrides().newUsersPerMinute).toBe(6)
    // Reads are not state-changing: a cross-site GET still needs only the token.
    expect((await app.request('/_room/status', { headers: { ...auth, 'sec-fetch-site': 'cross-site' } })).status).toBe(200)
  })
})

describe('black-box findings on app.mount: the room never answers for an admin, and passes only a declared mountPath', () => {
  const patchSettings = (app: Hono<WaitingRoomEnv>, path: string, token = TOKEN) =>
    app.request(path, { method: 'PATCH', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"suspended":true,"totalActiveUsers":7}' })

  /** A full room in front of `app`, taken by the first request. */
  async function full(app: Hono<WaitingRoomEnv>) {
    await app.request('/')
    await settle()
    expect(await (await app.request('/')).text()).not.toMatch(/^(origin|api|site)/)
  }

  it.each([undefined, '/_room'])('1. an admin served only on an internal server (mountPath %s), the public app mounts its site at /: PATCH /settings does not reach it', async (mountPath) => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const room = waitingRoom({ secret: TEST_SECRET, clock: () => START, totalActiveUsers: 1, newUsersPerMinute: 1, storage: createStorage() })
    const admin = waitingRoomAdmin(room, mountPath ? { token: TOKEN, mountPath } : { token: TOKEN })
    const internal = { fetch: admin.fetch, port: 9000 } // what serve({ fetch: admin.fetch, port: 9000 }) reads
    expect(typeof internal.fetch).toBe('function')
    const site = new Hono()
    site.all('*', (c) => c.text('site'))
    const app = new Hono<WaitingRoomEnv>()
    app.use('/*', room)
    app.mount('/', site.fetch)
    await full(app)
    for (const path of ['/settings', '/_room/settings']) {
      const response = await patchSettings(app, path)
      expect(await response.text(), path).not.toMatch(/^(site|\{)/)
    }
    expect(room.room.settings.overrides()).toEqual({})
  })

  it('2. app.mount("/api", api.fetch) then app.mount("/_room", admin.fetch): GET /api/status with the token is never the admin answer', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const room = waitingRoom({ secret: TEST_SECRET, clock: () => START, totalActiveUsers: 1, newUsersPerMinute: 1, storage: createStorage() })
    const api = new Hono()
    api.all('*', (c) => c.text('api'))
    const app = new Hono<WaitingRoomEnv>()
    app.use('/*', room)
    app.mount('/api', api.fetch)
    app.mount('/_room', waitingRoomAdmin(room, { token: TOKEN, mountPath: '/_room' }).fetch)
    await full(app)
    for (const path of ['/api/status', '/api/settings', '/api']) {
      expect(await (await app.request(path, { headers: auth })).text(), path).not.toMatch(/^(api|\{)/) // queued: the room decides
    }
    expect((await app.request('/_room/status', { headers: auth })).status).toBe(200) // the declared mount still passes
    // With a place, /api/status reaches the api app, not the admin.
    const open = waitingRoom({ secret: TEST_SECRET, clock: () => START, totalActiveUsers: 100, storage: createStorage() })
    const roomy = new Hono<WaitingRoomEnv>()
    roomy.use('/*', open)
    roomy.mount('/api', api.fetch)
    roomy.mount('/_room', waitingRoomAdmin(open, { token: TOKEN, mountPath: '/_room' }).fetch)
    expect(await (await roomy.request('/api/status', { headers: auth })).text()).toBe('api')
  })

  it('3. two rooms, app.mount("/_a", adminA.fetch) and app.mount("/_b", adminB.fetch): PATCH /_b/settings with token A changes neither room', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const roomA = waitingRoom({ secret: TEST_SECRET, clock: () => START, totalActiveUsers: 1, newUsersPerMinute: 1, storage: createStorage() })
    const roomB = waitingRoom({ secret: TEST_SECRET, clock: () => START, totalActiveUsers: 1, newUsersPerMinute: 1, storage: createStorage() })
    const tokenA = `${TOKEN}-a`
    for (const declared of [false, true]) {
      const app = new Hono<WaitingRoomEnv>()
      app.use('/*', roomA)
      app.mount('/_a', waitingRoomAdmin(roomA, declared ? { token: tokenA, mountPath: '/_a' } : { token: tokenA }).fetch)
      app.mount('/_b', waitingRoomAdmin(roomB, declared ? { token: TOKEN, mountPath: '/_b' } : { token: TOKEN }).fetch)
      app.all('*', (c) => c.text('origin'))
      await full(app)
      const response = await patchSettings(app, '/_b/settings', tokenA)
      if (declared) expect(response.status).toBe(401) // admin B's own refusal of token A
      else expect(await response.text()).not.toMatch(/^(origin|\{)/) // undeclared: queued
      expect([roomA.room.settings.overrides(), roomB.room.settings.overrides()]).toEqual([{}, {}])
    }
  })

  it('mountPath is validated as --admin-path is, naming the field', () => {
    const room = waitingRoom({ secret: TEST_SECRET, clock: () => START, storage: createStorage() })
    for (const bad of ['_room', '/_room/', '/', '/_room/..', '/a//b', '/_room%2f', '/_room;x', '/_room\\x', '/_ room', '/..', '']) {
      expect(() => waitingRoomAdmin(room, { token: TOKEN, mountPath: bad }), bad).toThrow(/mountPath/)
    }
    expect(() => waitingRoomAdmin(room, { token: TOKEN, mountPath: '/ops/_room' })).not.toThrow()
  })
})
