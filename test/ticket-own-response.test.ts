/**
 * An admitted user keeps the ticket whatever the handler answers with. Hono carries headers set with `c.header`
 * only into answers made through the context (`c.text`, `c.json`, ...); a handler that returns its own
 * `Response` — a `fetch` to an origin, a redirect, a stream, a file — used to drop the room's Set-Cookie, so the
 * user came back without a ticket and was counted as a new user on every request.
 */
import { serve } from '@hono/node-server'
import { Hono, type Context } from 'hono'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { waitingRoom, type WaitingRoomEnv } from '../src/index.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

const MINUTE = 60_000
const SLICE = MINUTE / 16 // 3.75 s: the grid a renewed count sits on

/** Every way a handler can answer, each with a cookie of the app's own that must survive beside the ticket. */
const HANDLERS: Record<string, (c: Context) => Response | Promise<Response>> = {
  'c.text': (c) => {
    c.header('Set-Cookie', 'app=1', { append: true })
    return c.text('body')
  },
  'new Response': () => new Response('body', { headers: { 'set-cookie': 'app=1' } }),
  'new Response with Headers': () => new Response('body', { headers: new Headers([['set-cookie', 'app=1']]) }),
  'a fetch Response (immutable headers)': () => fetch('data:text/plain,body'),
  'Response.redirect (immutable headers)': () => Response.redirect('https://example.com/next', 302),
  'a stream': () =>
    new Response(new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode('body')), controller.close()) }), {
      headers: { 'set-cookie': 'app=1' },
    }),
  'a 204': () => new Response(null, { status: 204, headers: { 'set-cookie': 'app=1' } }),
  'a thrown error (onError answers)': () => {
    throw new Error('boom')
  },
}

function appWith(handler: (c: Context) => Response | Promise<Response>) {
  const clock = { now: START + 5_000 }
  const app = new Hono<WaitingRoomEnv>()
  // One new user a minute: a user who lost the ticket is a second new user, and is queued.
  const room = waitingRoom({ secret: TEST_SECRET, clock: () => clock.now, coordinator: memoryCoordinator(), totalActiveUsers: 10, newUsersPerMinute: 1 })
  app.onError((_error, c) => c.text('failed', 500))
  app.use('*', room)
  const reasons: string[] = [] // how the room let each request in
  app.use('*', async (c, next) => {
    reasons.push(c.get('waitingRoom').reason)
    await next()
  })
  app.get('*', handler)
  return { app, clock, room, reasons }
}

function ticketOf(response: Response): string | undefined {
  const cookie = response.headers.getSetCookie().find((line) => !line.startsWith('app='))
  return cookie === undefined || cookie.split(';')[0]!.endsWith('=') ? undefined : cookie.split(';')[0]
}

describe('the ticket reaches the user whatever the handler returns', () => {
  for (const [name, handler] of Object.entries(HANDLERS)) {
    it(`${name}: admitted once, then a session on every visit across minutes (renewals carried too)`, async () => {
      const { app, clock, reasons } = appWith(handler)
      const first = await app.request('/')
      const ticket = ticketOf(first)
      expect(ticket, 'the new user gets a ticket').toBeDefined()
      if (name !== 'a thrown error (onError answers)' && !name.includes('immutable')) {
        expect(first.headers.getSetCookie(), "the app's own cookie is kept").toContain('app=1')
      }
      let cookie = ticket!
      // Where the session's count sits (src/coordination/positions.ts): a grant in its whole minute, a renewal at
      // the start of its 3.75 s slice; a renewal moves it, and re-seals the ticket, once it is a minute old.
      let position = Math.floor(clock.now / MINUTE) * MINUTE
      let renewals = 0
      for (let visit = 0; visit < 6; visit++) {
        clock.now += 25_000 // crosses minute boundaries: renewals re-seal the ticket
        const response = await app.request('/', { headers: { cookie } })
        expect(response.headers.get('refresh'), `visit ${visit}: not queued`).toBeNull()
        expect([200, 204, 302, 500]).toContain(response.status)
        const renewed = ticketOf(response)
        if (clock.now >= position + MINUTE) {
          expect(renewed, `visit ${visit}: a renewal is sent once the count is a minute old`).toBeDefined()
          position = Math.floor(clock.now / SLICE) * SLICE
        }
        if (renewed !== undefined) renewals++
        cookie = renewed ?? cookie
      }
      expect(renewals, '150 s of visits: the count moved at least twice').toBeGreaterThanOrEqual(2)
      // Admitted by a slot once, then known by the ticket on every visit: no visit was a new user again.
      expect(reasons).toEqual(['slot', ...Array(6).fill('session')])
    })
  }

  it('one ticket, not two, when the handler answers through the context', async () => {
    const { app } = appWith(HANDLERS['c.text']!)
    const response = await app.request('/')
    expect(response.headers.getSetCookie().filter((line) => !line.startsWith('app='))).toHaveLength(1)
  })

  it('over HTTP under @hono/node-server, for a handler returning its own Response', async () => {
    const { app } = appWith(HANDLERS['new Response']!)
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
    await new Promise((resolve) => server.once('listening', resolve))
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
      const first = await fetch(base)
      const ticket = ticketOf(first)
      expect(ticket).toBeDefined()
      expect(first.headers.getSetCookie()).toContain('app=1')
      for (let i = 0; i < 3; i++) {
        const again = await fetch(base, { headers: { cookie: ticket! } })
        expect(again.headers.get('refresh')).toBeNull()
        expect(await again.text()).toBe('body')
      }
    } finally {
      server.close()
    }
  })
})
