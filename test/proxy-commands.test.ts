/// <reference types="node" />
/**
 * Origin commands through the proxy, over real sockets with a fake clock: with `enabledOriginCommands:
 * ['revoke']` (the CLI's `--origin-commands revoke`) an origin's `Waiting-Room-Command: revoke` ends the
 * user's session — cookie cleared, ticket refused from then on, slot freed — and the header never
 * reaches the client. Without it the header is dropped and obeyed by no one.
 */
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Listening } from '../bin/listen.ts'
import { MINUTE_MS } from '../src/clock.ts'
import { CookieJar, serveApp, serveProxy } from './proxy-servers.ts'

let now = 29_100_000 * MINUTE_MS + 1_000
let origin: Listening
const proxies: Listening[] = []

beforeAll(async () => {
  const app = new Hono()
  app.get('/logout', (c) => {
    c.header('Waiting-Room-Command', 'revoke')
    return c.text('bye')
  })
  app.get('*', (c) => c.text('origin page'))
  origin = await serveApp(app)
})

afterAll(async () => {
  for (const proxy of proxies) await proxy.close()
  await origin?.close()
})

async function proxyWith(commands: 'revoke'[] | undefined): Promise<Listening> {
  const proxy = await serveProxy({
    origin: origin.url,
    room: { totalActiveUsers: 1, newUsersPerMinute: 100, refreshIntervalSeconds: 5, clock: () => now, enabledOriginCommands: commands },
  })
  proxies.push(proxy)
  return proxy
}

const page = async (jar: CookieJar, url: string): Promise<string> => (await jar.fetch(url, { headers: { accept: 'text/html' } })).text()

describe('proxy: origin commands', () => {
  it('with revoke enabled, the origin ends the session: cookie cleared, header gone, the slot goes to the next user', async () => {
    const proxy = await proxyWith(['revoke'])
    const first = new CookieJar()
    const second = new CookieJar()
    expect(await page(first, `${proxy.url}/`)).toBe('origin page')
    const oldTicket = first.cookies.get('__wroom')!
    expect(await page(second, `${proxy.url}/`)).toContain('id="wait-time"')

    const logout = await first.fetch(`${proxy.url}/logout`)
    expect(await logout.text()).toBe('bye')
    expect(logout.headers.get('waiting-room-command')).toBeNull()
    expect(logout.headers.getSetCookie().some((cookie) => /^__wroom=; Max-Age=0/.test(cookie))).toBe(true)

    now += 6_000 // the queued user's next check-in
    expect(await page(second, `${proxy.url}/`)).toBe('origin page')
    const replay = new CookieJar()
    replay.cookies.set('__wroom', oldTicket)
    expect(await page(replay, `${proxy.url}/`)).toContain('id="wait-time"')
  })

  it('without it, the header is dropped and the session goes on', async () => {
    const proxy = await proxyWith(undefined)
    const user = new CookieJar()
    expect(await page(user, `${proxy.url}/`)).toBe('origin page')
    const logout = await user.fetch(`${proxy.url}/logout`)
    expect(logout.headers.get('waiting-room-command')).toBeNull()
    expect(logout.headers.getSetCookie().some((cookie) => cookie.startsWith('__wroom=;'))).toBe(false)
    now += 6_000
    expect(await page(user, `${proxy.url}/`)).toBe('origin page')
  })
})
