/**
 * The origin's command headers under @hono/node-server, whose string Responses keep their init as given until
 * someone asks for their headers: the room looks at that init instead of asking (origin-command.ts), so every
 * way an origin can set the header — a plain header object, an array of pairs, Hono's `c.header`, the headers
 * argument of `c.text`, a Headers object — in any casing, must still be stripped, and a revoke obeyed.
 */
import { serve, type ServerType } from '@hono/node-server'
import { Hono, type Context } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitingRoom } from '../src/index.ts'
import { TEST_SECRET } from './support/room-harness.ts'

const NAMES = ['Waiting-Room-Command', 'waiting-room-command', 'WAITING-ROOM-COMMAND', 'Cf-Waiting-Room-Command', 'cf-waiting-room-command']
const WAYS: Record<string, (c: Context, name: string, value: string) => Response> = {
  'plain object': (_c, name, value) => new Response('origin', { headers: { [name]: value } }),
  'array of pairs': (_c, name, value) => new Response('origin', { headers: [[name, value]] }),
  'Headers object': (_c, name, value) => new Response('origin', { headers: new Headers({ [name]: value }) }),
  'c.header': (c, name, value) => {
    c.header(name, value)
    return c.text('origin')
  },
  'c.text headers': (c, name, value) => c.text('origin', 200, { [name]: value }),
}

let server: ServerType
let base = ''
beforeAll(async () => {
  const app = new Hono()
  app.use('*', waitingRoom({ roomId: 'strip-node', secret: TEST_SECRET, totalActiveUsers: 1000, newUsersPerMinute: 1000, enabledOriginCommands: ['revoke'] }))
  app.get('/plain', (c) => c.text('origin'))
  app.get('/:way/:name/:value', (c) => WAYS[decodeURIComponent(c.req.param('way'))]!(c, c.req.param('name'), c.req.param('value')))
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
      base = `http://127.0.0.1:${info.port}`
      resolve()
    })
  })
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const get = (path: string, cookie?: string) => fetch(`${base}${path}`, { headers: cookie ? { cookie } : {} })
const ticketOf = (response: Response) => response.headers.getSetCookie().find((c) => c.startsWith('__wroom'))?.split(';')[0]

describe('command headers under @hono/node-server', () => {
  it('a control: a string Response without the header passes untouched, with the ticket (the test can fail)', async () => {
    const response = await get('/plain')
    expect(await response.text()).toBe('origin')
    expect(ticketOf(response)).toBeDefined()
  })

  for (const way of Object.keys(WAYS)) {
    it(`${way}: stripped in every casing; a revoke ends the session`, async () => {
      for (const name of NAMES) {
        const admitted = ticketOf(await get('/plain'))!
        const path = `/${encodeURIComponent(way)}/${name}`
        const kept = await get(`${path}/none`, admitted)
        expect(await kept.text()).toBe('origin')
        expect(kept.headers.get('waiting-room-command'), `${way} ${name}`).toBeNull()
        expect(kept.headers.get('cf-waiting-room-command'), `${way} ${name}`).toBeNull()
        const revoked = await get(`${path}/revoke`, admitted)
        expect(revoked.headers.get('waiting-room-command'), `${way} ${name}`).toBeNull()
        expect(revoked.headers.get('cf-waiting-room-command'), `${way} ${name}`).toBeNull()
        // Only Waiting-Room-Command is obeyed outside `compatibility: 'cloudflare'`: its revoke clears the cookie.
        const cleared = revoked.headers.getSetCookie().some((c) => c.startsWith('__wroom=;') || /^__wroom=[^;]*;.*Max-Age=0/.test(c))
        expect(cleared, `${way} ${name}`).toBe(!name.toLowerCase().startsWith('cf-'))
      }
    })
  }
})
