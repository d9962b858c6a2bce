/**
 * The CLI's admin mount (bin/admin-mount.ts, `--admin-token`) owns every path under `--admin-path`: one the
 * admin does not have is a 404 from the admin (after its token check), never forwarded through the room to
 * the origin — which must not see a request, nor the admin token, meant for the admin. In process, with the
 * proxy stood in by a Hono app that records what reaches it.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { withAdmin } from '../bin/admin-mount.ts'
import { waitingRoom, type WaitingRoomEnv } from '../src/room/middleware.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

const TOKEN = `cli-paths-${crypto.randomUUID()}`
const auth = { authorization: `Bearer ${TOKEN}` }

/** The proxy: a room (not full) and an origin that records every request it sees. */
function proxy(admin = '/_room', hosts?: string[]) {
  const seen: string[] = []
  const room = waitingRoom({ secret: TEST_SECRET, clock: () => START, totalActiveUsers: 100, storage: createStorage(), roomId: `cli-paths-${Math.random()}` })
  const inner = new Hono<WaitingRoomEnv>()
  inner.use('/*', room)
  inner.all('*', (c) => {
    seen.push(`${c.req.method} ${c.req.path} ${c.req.header('authorization') ?? ''}`)
    return c.text('origin')
  })
  const app = withAdmin(Object.assign(inner, { room: room.room }) as never, { token: TOKEN, path: admin }, hosts) as unknown as Hono
  return { app, seen }
}

describe('the CLI admin path', () => {
  it('an unknown path under it is a 404 with the token, a 401 without, and never reaches the origin', async () => {
    const { app, seen } = proxy()
    const withToken = await app.request('/_room/statuss', { headers: auth })
    expect(withToken.status).toBe(404)
    expect(await withToken.json()).toMatchObject({ error: 'not_found' })
    expect((await app.request('/_room/statuss')).status).toBe(401)
    expect((await app.request('/_room', { method: 'POST', headers: auth })).status).toBe(404)
    expect(seen).toEqual([])
    expect((await app.request('/_room/status', { headers: auth })).status).toBe(200)
    expect(await (await app.request('/_room/')).text()).toContain('login-form')
    expect(await (await app.request('/shop', { headers: auth })).text()).toBe('origin') // outside: forwarded
  })

  it('generated paths under --admin-path (and a nested one), any method: the origin sees none of them', async () => {
    for (const prefix of ['/_room', '/ops/admin']) {
      const { app, seen } = proxy(prefix)
      const segment = fc.constantFrom('', 'status', 'statuss', 'settings', 'events', 'x', 'report', 'metrics', 'openapi.json', 'preview', 'rules', '..', '%2e%2e', 'a;b')
      await fc.assert(
        fc.asyncProperty(fc.array(segment, { maxLength: 3 }), fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), fc.boolean(), async (segments, method, token) => {
          const path = segments.length ? `${prefix}/${segments.join('/')}` : prefix
          const response = await app.request(`http://shop.example${path}`, { method, headers: token ? auth : {} })
          await response.arrayBuffer()
          // `..` is resolved by the URL parser: a path that leaves the admin path is the proxy's to forward.
          const resolved = new URL(`http://shop.example${path}`).pathname
          if (resolved === prefix || resolved.startsWith(`${prefix}/`)) expect(seen, `${method} ${path}`).toEqual([])
          seen.length = 0
        }),
        { numRuns: 120, seed: 4 },
      )
    }
  })

  it('spellings some server reads as under the admin path are a 404 from the admin side, never forwarded with the token', async () => {
    const spellings = ['//_room/status', '/_room%2Fstatus', '/_room%2fstatus', '/_room;x/status', '/_ROOM/status', '/_Room', '/_room%00/status', '/_room./status', '/x/..%2f_room/status', '/_room%5cstatus', '/_room%252Fstatus', '/_room%20/status']
    for (const prefix of ['/_room', '/ops/_room']) {
      const { app, seen } = proxy(prefix)
      for (const spelling of spellings) {
        const path = prefix === '/_room' ? spelling : spelling.replace(/_room/i, (m) => `ops/${m}`)
        for (const headers of [auth, {}]) {
          const response = await app.request(`http://shop.example${path}`, { headers })
          expect(response.status, path).toBe(404)
          expect((await response.json()).error, path).toBe('not_found')
        }
      }
      // An escape Hono itself decodes routes to the admin: answered there (200 with the token), not forwarded either.
      expect((await app.request(`http://shop.example${prefix.replace('_room', '%5F%72oom')}/status`, { headers: auth })).status).toBe(200)
      expect(seen).toEqual([])
      // Paths that no reading puts under the admin path are still the origin's.
      for (const path of ['/shop', '/_roomy/status', '/x/_room/status', '/_rooms', `${prefix}x`]) {
        expect(await (await app.request(`http://shop.example${path}`, { headers: auth })).text(), path).toBe('origin')
      }
    }
  })

  it('generated spellings (case flips, escapes, ;params, doubled slashes, trailing dots): the origin never sees one', async () => {
    const { app, seen } = proxy('/_room')
    const char = (ch: string) => fc.constantFrom(ch, ch.toUpperCase(), `%${ch.charCodeAt(0).toString(16)}`, `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)
    const name = fc.tuple(...[...'_room'].map(char)).map((parts) => parts.join(''))
    const lead = fc.constantFrom('/', '//', '/x/..%2f', '/x/..%2F', '/./', '%2f')
    const tail = fc.constantFrom('/status', '%2fstatus', '%5cstatus', ';x/status', './status', '%00/status', '%20/status', '', '/')
    await fc.assert(
      fc.asyncProperty(lead, name, tail, async (l, n, t) => {
        const path = `${l}${n}${t}`.replace(/^%2f/, '/%2f')
        const response = await app.request(`http://shop.example${path}`, { headers: auth })
        await response.arrayBuffer()
        expect(seen, path).toEqual([])
      }),
      { numRuns: 300, seed: 7 },
    )
  })

  it('with --public-host, another host is refused (421) before anything, and the origin sees nothing', async () => {
    const { app, seen } = proxy('/_room', ['shop.example'])
    const response = await app.request('http://evil.example/_room/nope', { headers: { host: 'evil.example', ...auth } })
    expect(response.status).toBe(421)
    expect(seen).toEqual([])
  })
})
