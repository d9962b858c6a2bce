/**
 * `compatibility: 'cloudflare'`: a client written against Cloudflare Waiting Room's JSON documentation works
 * unchanged — envelope `cfWaitingRoom`, JSON only to exactly `Accept: application/json`, cookie
 * `__cfwaitingroom` — and `Cf-Waiting-Room-Command: revoke` ends a session. The default mode stays as it was,
 * and neither command header ever reaches the client (middleware and proxy).
 */
import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import type { Listening } from '../bin/listen.ts'
import { MINUTE_MS } from '../src/clock.ts'
import { waitingRoom } from '../src/index.ts'
import { CookieJar, serveApp, serveProxy } from './proxy-servers.ts'
import { roomHarness, START, TEST_SECRET } from './support/room-harness.ts'

/**
 * The client from Cloudflare's "Get JSON response" how-to: ask with exactly `Accept: application/json`, keep
 * the cookie from every response, and while `cfWaitingRoom.inWaitingRoom` retry every `refreshIntervalSeconds`.
 */
async function cloudflareJsonClient(fetchOnce: (headers: Record<string, string>) => Promise<Response>, wait: (seconds: number) => void, maxTries = 20) {
  let cookie = ''
  for (let i = 0; i < maxTries; i++) {
    const response = await fetchOnce({ Accept: 'application/json', ...(cookie ? { Cookie: cookie } : {}) })
    const set = response.headers.get('set-cookie')
    if (set) cookie = set.split(';')[0]!
    const body = await response.text()
    let data: { cfWaitingRoom?: { inWaitingRoom: boolean; waitTime: number; waitTimeKnown: boolean; waitTimeFormatted: string; queueIsFull: boolean; queueAll: boolean; lastUpdated: string; refreshIntervalSeconds: number } }
    try {
      data = JSON.parse(body)
    } catch {
      return { through: true, body, tries: i + 1, cookie }
    }
    if (!data.cfWaitingRoom) return { through: true, body, tries: i + 1, cookie }
    const room = data.cfWaitingRoom
    expect(typeof room.waitTimeKnown).toBe('boolean')
    expect(typeof room.waitTimeFormatted).toBe('string')
    expect(Number.isNaN(Date.parse(room.lastUpdated))).toBe(false)
    expect(room.inWaitingRoom).toBe(true)
    wait(room.refreshIntervalSeconds)
  }
  return { through: false, body: '', tries: maxTries, cookie }
}

describe("compatibility: 'cloudflare' (middleware)", () => {
  const options = { compatibility: 'cloudflare', jsonResponseEnabled: true, totalActiveUsers: 1, newUsersPerMinute: 100, refreshIntervalSeconds: 5, sessionDurationMinutes: 1 } as const

  it("a Cloudflare JSON client waits in line and gets through, on the __cfwaitingroom cookie", async () => {
    const room = roomHarness(options)
    const first = await room.visit()
    expect(first.outcome).toBe('admitted')
    expect(first.response.headers.get('set-cookie')).toMatch(/^__cfwaitingroom=/)
    const result = await cloudflareJsonClient(
      async (headers) => room.app.request('/', { headers }),
      (seconds) => room.advance(seconds * 1000 + MINUTE_MS), // the first user's session ends meanwhile
    )
    expect(result.through).toBe(true)
    expect(result.tries).toBeGreaterThan(1)
    expect(result.body).toMatch(/^origin /)
    expect(result.cookie).toMatch(/^__cfwaitingroom=/)
  })

  it("the JSON carries every field of Cloudflare's documented response, with its type", async () => {
    const room = roomHarness(options)
    await room.visit()
    const body = JSON.parse(await (await room.app.request('/', { headers: { Accept: 'application/json' } })).text())
    expect(Object.keys(body)).toEqual(['cfWaitingRoom'])
    // From Cloudflare's "Get JSON response" example.
    const documented = { inWaitingRoom: true, waitTime: 5, waitTimeKnown: true, waitTimeFormatted: '5 minutes', queueIsFull: false, queueAll: false, lastUpdated: '2021-08-03T23:46:00.000Z', refreshIntervalSeconds: 20 }
    for (const [field, example] of Object.entries(documented)) expect(typeof body.cfWaitingRoom[field], field).toBe(typeof example)
  })

  it.each([
    ['application/json', true],
    ['application/json, text/html', false],
    ['text/html, application/json', false],
    ['application/json;q=0.9', false],
    ['*/*', false],
  ])('Accept: %s → JSON %s (Cloudflare matches the header exactly)', async (accept, json) => {
    const room = roomHarness(options)
    await room.visit()
    const queued = await room.app.request('/', { headers: { Accept: accept } })
    const body = await queued.text()
    if (json) expect(JSON.parse(body)).toHaveProperty('cfWaitingRoom.inWaitingRoom', true)
    else expect(body).toContain('<!doctype html>')
  })

  it('the default mode is unchanged: envelope waitingRoom, any Accept naming JSON, cookie __wroom', async () => {
    const room = roomHarness({ ...options, compatibility: undefined })
    expect((await room.visit()).response.headers.get('set-cookie')).toMatch(/^__wroom=/)
    const queued = await room.app.request('/', { headers: { Accept: 'application/json, text/html' } })
    expect(await queued.json()).toHaveProperty('waitingRoom.inWaitingRoom', true)
  })

  it('cookie.suffix follows Cloudflare: __cfwaitingroom_<suffix>', async () => {
    const room = roomHarness({ ...options, cookie: { suffix: 'shop' } })
    expect((await room.visit()).response.headers.get('set-cookie')).toMatch(/^__cfwaitingroom_shop=/)
  })
})

describe('origin commands: Cf-Waiting-Room-Command', () => {
  const build = (compatibility: 'cloudflare' | 'default', header: string) => {
    let now = START
    const app = new Hono()
    app.use('*', waitingRoom({ compatibility, enabledOriginCommands: ['revoke'], totalActiveUsers: 1, newUsersPerMinute: 100, secret: TEST_SECRET, clock: () => now }))
    app.get('/logout', (c) => c.text('bye', 200, { [header]: 'revoke' }))
    app.get('*', (c) => c.text('page'))
    return { app, tick: (ms: number) => (now += ms) }
  }
  const cookieOf = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!

  it("in cloudflare mode it revokes the session; the header is gone", async () => {
    const { app } = build('cloudflare', 'Cf-Waiting-Room-Command')
    const cookie = cookieOf(await app.request('/'))
    const logout = await app.request('/logout', { headers: { cookie } })
    expect(logout.headers.get('cf-waiting-room-command')).toBeNull()
    expect(logout.headers.getSetCookie().some((c) => /^__cfwaitingroom=; Max-Age=0/.test(c))).toBe(true)
    // The slot is free again: a second user gets in, the revoked ticket is a new user (queued: room of 1).
    expect(await (await app.request('/')).text()).toBe('page')
  })

  it('in the default mode it is not obeyed, but still stripped; Waiting-Room-Command still works', async () => {
    const { app } = build('default', 'Cf-Waiting-Room-Command')
    const cookie = cookieOf(await app.request('/'))
    const logout = await app.request('/logout', { headers: { cookie } })
    expect(logout.headers.get('cf-waiting-room-command')).toBeNull()
    expect(logout.headers.getSetCookie().some((c) => /Max-Age=0/.test(c))).toBe(false)
    expect(await (await app.request('/', { headers: { cookie } })).text()).toBe('page')
    const own = build('cloudflare', 'Waiting-Room-Command')
    const ownCookie = cookieOf(await own.app.request('/'))
    const ownLogout = await own.app.request('/logout', { headers: { cookie: ownCookie } })
    expect(ownLogout.headers.get('waiting-room-command')).toBeNull()
    expect(ownLogout.headers.getSetCookie().some((c) => /Max-Age=0/.test(c))).toBe(true)
  })
})

describe('origin commands through the proxy', () => {
  let origin: Listening
  const proxies: Listening[] = []
  afterAll(async () => {
    for (const proxy of proxies) await proxy.close()
    await origin?.close()
  })

  it.each([
    ['cloudflare', ['revoke'], true],
    ['cloudflare', undefined, false],
    ['default', ['revoke'], false],
    ['default', undefined, false],
  ] as const)('compatibility %s, commands %j: Cf-Waiting-Room-Command never reaches the client (obeyed: %s)', async (compatibility, commands, obeyed) => {
    if (!origin) {
      const app = new Hono()
      app.get('/logout', (c) => c.text('bye', 200, { 'Cf-Waiting-Room-Command': 'revoke' }))
      app.get('*', (c) => c.text('origin page'))
      origin = await serveApp(app)
    }
    const proxy = await serveProxy({ origin: origin.url, room: { compatibility, totalActiveUsers: 5, newUsersPerMinute: 100, enabledOriginCommands: commands ? [...commands] : undefined } })
    proxies.push(proxy)
    const jar = new CookieJar()
    expect(await (await jar.fetch(`${proxy.url}/`)).text()).toBe('origin page')
    const logout = await jar.fetch(`${proxy.url}/logout`)
    expect(await logout.text()).toBe('bye')
    expect(logout.headers.get('cf-waiting-room-command')).toBeNull()
    expect(logout.headers.getSetCookie().some((c) => /Max-Age=0/.test(c))).toBe(obeyed)
  })
})
