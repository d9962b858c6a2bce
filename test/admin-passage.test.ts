/**
 * Which requests pass a full room on their way to an admin API, and which never do (issue 18, black-box
 * findings): a request passes only when an admin endpoint of an admin app answers it — never a token holder
 * on an ordinary path under a middleware of the user's own (`app.use('/api/*', cors())`), even one shaped
 * like an admin endpoint; any admin of any room passes every room of the app (a site room on `/*` and a
 * checkout room's admin); `app.mount(path, admin.fetch)` after the room passes only at a declared `mountPath` (the room
 * never answers for an admin itself); `/_room/` is the dashboard as `/_room` is.
 * With the room full (limit 1, taken), the origin must never be reached: generated paths and methods check it.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { waitingRoomAdmin } from '../src/admin/admin.ts'
import { waitingRoom, type WaitingRoomEnv } from '../src/room/middleware.ts'
import { settle, START, TEST_SECRET } from './support/room-harness.ts'

// Every admin built in an isolate is consulted by every room: a token of each test's own keeps tests apart.
let TOKEN = ''
let auth = { authorization: '' }
beforeEach(() => {
  TOKEN = `passage-${crypto.randomUUID()}`
  auth = { authorization: `Bearer ${TOKEN}` }
})
type App = Hono<WaitingRoomEnv>

const newRoom = (extra: Record<string, unknown> = {}) =>
  waitingRoom({ secret: TEST_SECRET, clock: () => START, totalActiveUsers: 1, newUsersPerMinute: 1, storage: createStorage(), roomId: `passage-${Math.random()}`, ...extra })
const origin = (app: App) => app.all('*', (c) => c.text(`origin ${c.get('waitingRoom')?.reason}`))

/** Takes the only place, then checks the next user queues. */
async function fill(app: App, path = '/') {
  expect(await (await app.request(path)).text()).toMatch(/^origin/)
  await settle()
  expect(await (await app.request(path)).text()).not.toMatch(/^origin/)
}

/** The operator's two calls: status as JSON, and a PATCH that the room really applies. */
async function operator(app: App, prefix: string, room: ReturnType<typeof newRoom>) {
  const status = await app.request(`${prefix}/status`, { headers: auth })
  const json = (await status.text()).startsWith('{"status"')
  const patch = await app.request(`${prefix}/settings`, { method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: '{"totalActiveUsers":9}' })
  return { status: status.status, json, patch: patch.status, applied: room.room.settings.overrides().totalActiveUsers === 9 }
}
const OK = { status: 200, json: true, patch: 200, applied: true }

afterEach(() => vi.restoreAllMocks())

describe('a token passes nothing but an admin endpoint', () => {
  async function withApiMiddleware(extra: (app: App) => void = () => {}) {
    const room = newRoom()
    const app: App = new Hono()
    app.use('/*', room)
    app.use('/api/*', async (_c, next) => next()) // cors(), a logger: middleware of the user's own
    app.route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
    extra(app)
    origin(app)
    await fill(app)
    return { app, room }
  }

  it('warns once when a request carrying an admin token is decided by the room', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const { app } = await withApiMiddleware()
    await app.request('/api/status', { headers: auth })
    await app.request('/api/settings', { headers: auth })
    const ours = warn.mock.calls.filter(([m]) => String(m).includes('carries an admin token'))
    // Once per isolate (each test file is one): this is the file's first test to send a token off an admin path.
    expect(ours.length).toBe(1)
    expect(String(ours[0]![0])).toContain('/api/status')
    expect(String(ours[0]![0])).toContain('mountPath') // tells the operator how to declare an app.mount after the room
    expect(warn.mock.calls.every(([m]) => !String(m).includes(TOKEN))).toBe(true)
  })

  it('token holders on /api/* paths shaped like admin endpoints are queued; the admin still answers at /_room', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const { app, room } = await withApiMiddleware()
    for (const path of ['/api/status', '/api', '/api/', '/api/settings', '/api/events/anything/report', '/api/metrics', '/api/analytics', '/api/openapi.json']) {
      expect(await (await app.request(path, { headers: auth })).text(), path).not.toMatch(/^origin|^\{"status"/)
    }
    expect(await operator(app, '/_room', room)).toEqual(OK)
  })

  it('generated paths, methods and headers: in a full room the origin is never reached', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const other = new Hono()
    other.all('*', (c) => c.text('origin mounted app'))
    const { app } = await withApiMiddleware((a) => a.mount('/legacy', other.fetch))
    const segment = fc.constantFrom('', 'api', '_room', 'legacy', 'status', 'settings', 'events', 'x', 'report', 'metrics', 'openapi.json', 'analytics', 'preview', '..', '%2e', '_ROOM')
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 4 }), fc.constantFrom('GET', 'HEAD', 'POST', 'PATCH', 'DELETE'), fc.boolean(), async (segments, method, token) => {
        const response = await app.request(`/${segments.join('/')}`, { method, headers: token ? auth : {} })
        expect(await response.text()).not.toMatch(/^origin/)
      }),
      { numRuns: 150, seed: 18 },
    )
  })

  it.each([false, true])('a mount of another app (the admin fetch handed out elsewhere: %s): a token holder is queued, never answered by the room', async (handedOut) => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const room = newRoom()
    const app: App = new Hono()
    const other = new Hono()
    other.all('*', (c) => c.text('origin mounted app'))
    app.use('/*', room)
    app.mount('/legacy', other.fetch)
    const admin = waitingRoomAdmin(room, { token: TOKEN })
    if (handedOut) void admin.fetch // as app.mount, or a standalone server, would
    origin(app)
    await fill(app)
    // No declared mountPath: the room guesses nothing, and never answers with an admin itself.
    for (const headers of [auth, {}]) {
      for (const path of ['/legacy/status', '/legacy/shop']) {
        expect(await (await app.request(path, { headers })).text(), path).not.toMatch(/^origin|^\{"status"/)
      }
    }
  })
})

describe('any admin passes every room', () => {
  it('a site room on /* (full) and a checkout room with routes: the checkout admin at /_checkout answers', async () => {
    const site = newRoom({ cookie: { suffix: 'site' } })
    const checkout = newRoom({ routes: [{ path: '/checkout' }], totalActiveUsers: 50 })
    const app: App = new Hono()
    app.use('/*', site)
    app.use('/*', checkout)
    app.route('/_checkout', waitingRoomAdmin(checkout, { token: TOKEN }))
    origin(app)
    await fill(app)
    expect(await operator(app, '/_checkout', checkout)).toEqual(OK)
    expect(await (await app.request('/_checkout/nope', { headers: auth })).text()).not.toMatch(/^origin/)
    expect(await (await app.request('/shop', { headers: auth })).text()).not.toMatch(/^origin/)
  })

  it.each(['route', 'mount'] as const)('two waitingRoom instances for one room id (site and admin), app.%s', async (how) => {
    const roomId = `passage-shared-${Math.random()}`
    const storage = createStorage()
    const site = newRoom({ roomId, storage })
    const forAdmin = newRoom({ roomId, storage })
    const admin = waitingRoomAdmin(forAdmin, how === 'route' ? { token: TOKEN } : { token: TOKEN, mountPath: '/_room' })
    const app: App = new Hono()
    app.use('/*', site)
    if (how === 'route') app.route('/_room', admin)
    else app.mount('/_room', admin.fetch)
    origin(app)
    await fill(app)
    expect(await operator(app, '/_room', forAdmin)).toEqual(OK)
  })

  it('one token for the admins of two rooms, both mounted at declared mountPaths: each path steers its own room', async () => {
    const a = newRoom()
    const b = newRoom()
    const app: App = new Hono()
    app.use('/*', a)
    app.mount('/_a', waitingRoomAdmin(a, { token: TOKEN, mountPath: '/_a' }).fetch)
    app.mount('/_b', waitingRoomAdmin(b, { token: TOKEN, mountPath: '/_b' }).fetch)
    origin(app)
    await fill(app)
    expect(await operator(app, '/_b', b)).toEqual(OK)
    expect(a.room.settings.overrides().totalActiveUsers).toBeUndefined()
  })

  it('each admin with its own token, both mounted at declared mountPaths: each steers its own room', async () => {
    const a = newRoom()
    const b = newRoom()
    const app: App = new Hono()
    app.use('/*', a)
    app.mount('/_a', waitingRoomAdmin(a, { token: `${TOKEN}-a`, mountPath: '/_a' }).fetch)
    app.mount('/_b', waitingRoomAdmin(b, { token: TOKEN, mountPath: '/_b' }).fetch)
    origin(app)
    await fill(app)
    expect(await operator(app, '/_b', b)).toEqual(OK)
    expect(a.room.settings.overrides().totalActiveUsers).toBeUndefined()
  })
})

describe('mountings that were locked out', () => {
  it('app.mount("/", admin.fetch) after the room, no mountPath declared: queued with the token too', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const room = newRoom()
    const site: App = new Hono()
    site.use('/*', room)
    origin(site)
    await fill(site, '/shop')
    const app: App = new Hono()
    app.use('/*', room)
    app.mount('/', waitingRoomAdmin(room, { token: TOKEN }).fetch)
    expect(await operator(app, '', room)).toMatchObject({ json: false, applied: false })
    expect(await (await app.request('/status', { headers: auth })).text()).not.toMatch(/^\{"status"/)
  })

  it('app.mount at a declared mountPath after the room: the dashboard at the path and with a trailing slash, users still queue', async () => {
    const room = newRoom()
    const app: App = new Hono()
    app.use('/*', room)
    app.mount('/_room', waitingRoomAdmin(room, { token: TOKEN, mountPath: '/_room' }).fetch)
    origin(app)
    await fill(app)
    for (const path of ['/_room', '/_room/']) expect(await (await app.request(path)).text(), path).toContain('login-form')
    expect(await operator(app, '/_room', room)).toEqual(OK)
    for (const path of ['/_room/nope', '/_room//status', '/_roomx/status', '/shop']) {
      expect(await (await app.request(path, { headers: auth })).text(), path).not.toMatch(/^origin|^\{"status"/)
    }
  })

  it('an app.mount whose Hono code was minified (the same shape, other names) is still recognised', async () => {
    const room = newRoom()
    const admin = waitingRoomAdmin(room, { token: TOKEN, mountPath: '/_m' })
    const app: App = new Hono()
    app.use('/*', room)
    // What a minifier makes of Hono's mount handler: `r` is the mounted fetch, `o` replaceRequest, `i` the options.
    const r = admin.fetch
    const o = undefined as ((x: Request) => Request) | undefined
    const s = (e: { req: { raw: Request; url: string } }) => new Request(new URL(new URL(e.req.url).pathname.slice('/_m'.length) || '/', e.req.url), e.req.raw)
    const i = (): [] => []
    // prettier-ignore
    app.use('/_m/*', async (e, t) => { const n = await r(o ? o(e.req.raw) : s(e), ...i()); if (n) return n; await t() })
    origin(app)
    await fill(app)
    expect(await operator(app, '/_m', room)).toEqual(OK)
  })

  it.each([
    ['/_room', (app: App, admin: Hono) => app.route('/_room', admin)],
    ['/ops/_room', (app: App, admin: Hono) => app.route('/ops', new Hono().route('/_room', admin))],
  ])('the dashboard answers at %s and with a trailing slash, with the room full (app.route)', async (prefix, mount) => {
    const room = newRoom()
    const app: App = new Hono()
    app.use('/*', room)
    mount(app, waitingRoomAdmin(room, { token: TOKEN }))
    origin(app)
    await fill(app)
    for (const path of [prefix, `${prefix}/`]) {
      const response = await app.request(path)
      expect(response.status, path).toBe(200)
      expect(await response.text(), path).toContain('login-form')
    }
    expect(await (await app.request(`${prefix}//`)).text()).not.toMatch(/^origin|login-form/)
  })
})
