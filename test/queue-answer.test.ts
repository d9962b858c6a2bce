/**
 * The queue answer made without Fetch `Headers` (src/room/pipeline/answer.ts: under node-server) is the answer Hono’s own way
 * (`c.header()` + `c.body()`, what the room did before) gives: status, every header line (several Set-Cookie
 * included), body — through the Web `Response` (`app.request`) and over a real socket from @hono/node-server.
 * Headers set on the context by another middleware before the room stay on the answer.
 */
import { connect } from 'node:net'
import { serve } from '@hono/node-server'
import fc from 'fast-check'
import { Hono, type Context } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { answerThroughContext, contextIsBare, plainAnswer, respondWith, type Answer } from '../src/room/pipeline/answer.ts'
import { waitingRoom } from '../src/index.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

/** Generated answers: the queue page's headers in any combination, 0–3 cookies, any status and body. */
const answers = fc.record({
  status: fc.constantFrom(200, 202, 429, 503),
  body: fc.string({ maxLength: 200, unit: 'grapheme' }),
  cacheControl: fc.option(fc.constant('no-store'), { nil: undefined }),
  refresh: fc.option(fc.integer({ min: 1, max: 999 }).map(String), { nil: undefined }),
  retryAfter: fc.option(fc.integer({ min: 1, max: 999 }).map(String), { nil: undefined }),
  contentType: fc.constantFrom('text/html; charset=UTF-8', 'application/json'),
  cookies: fc.array(fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/).map((v) => `__wroom=${v}; Max-Age=60; Path=/; HttpOnly; SameSite=Lax`), { maxLength: 3 }),
}).map(({ status, body, cacheControl, refresh, retryAfter, contentType, cookies }): Answer => ({
  status,
  body,
  headers: { 'cache-control': cacheControl, refresh, 'retry-after': retryAfter, 'content-type': contentType, 'set-cookie': cookies.length ? cookies : undefined },
}))

type Way = 'plain' | 'context' | 'respond'
const answerOf = (c: Context, way: Way, answer: Answer): Response =>
  way === 'plain' ? (plainAnswer(answer) ?? answerThroughContext(c, answer)) : way === 'context' ? answerThroughContext(c, answer) : respondWith(c, answer)

/** An app answering the answer posted to it the chosen way; `outer` sets headers before, as another middleware would. */
function answerApp(): Hono {
  return new Hono()
    .use(async (c, next) => {
      if (c.req.query('outer') !== undefined) {
        c.header('X-Request-Id', 'r-1')
        c.header('Set-Cookie', 'outer=1; Path=/', { append: true })
      }
      await next()
    })
    .post('/:way', async (c) => answerOf(c, c.req.param('way') as Way, await c.req.json<Answer>()))
}

interface Seen {
  status: number
  headers: [string, string][]
  cookies: string[]
  body: string
}
async function seen(response: Response): Promise<Seen> {
  return { status: response.status, headers: [...response.headers], cookies: response.headers.getSetCookie(), body: await response.text() }
}

/** One raw HTTP/1.1 exchange: the status line, the header lines (Date left out, names in lower case) and the body. */
function rawExchange(port: number, path: string, body: string, method = 'POST'): Promise<{ head: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body)
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`)
      socket.write(payload) // no half-close: Node's server drops a request still being answered when the client ends first
    })
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const split = text.indexOf('\r\n\r\n')
      const [status, ...lines] = text.slice(0, split).split('\r\n')
      const head = [status!, ...lines.filter((l) => !/^date:/i.test(l)).map((l) => l.replace(/^[^:]+/, (name) => name.toLowerCase())).sort()]
      resolve({ head, body: text.slice(split + 4) })
    })
    socket.on('error', reject)
  })
}

describe('queue answers without Headers equal Hono’s own', () => {
  it('through the Web Response: status, every header line, Set-Cookie lines and body, for generated answers', async () => {
    const app = answerApp()
    await fc.assert(
      fc.asyncProperty(answers, fc.boolean(), async (answer, outer) => {
        const ask = (way: Way) => app.request(`/${way}${outer ? '?outer' : ''}`, { method: 'POST', body: JSON.stringify(answer) })
        const old = await seen(await ask('context'))
        expect(await seen(await ask('respond'))).toEqual(old)
        if (!outer) expect(await seen(await ask('plain'))).toEqual(old)
        if (outer) expect(old.cookies[0]).toBe('outer=1; Path=/')
      }),
      { numRuns: 150 },
    )
  })

  describe('over @hono/node-server', () => {
    let server: ReturnType<typeof serve>
    let port: number
    beforeAll(async () => {
      server = await new Promise((resolve) => {
        const s = serve({ fetch: answerApp().fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s))
      })
      port = (server.address() as { port: number }).port
    })
    afterAll(() => void server.close())

    it('writes the same status line, header lines and body, for generated answers', async () => {
      await fc.assert(
        fc.asyncProperty(answers, fc.boolean(), async (answer, outer) => {
          const body = JSON.stringify(answer)
          const query = outer ? '?outer' : ''
          const old = await rawExchange(port, `/context${query}`, body)
          expect(await rawExchange(port, `/respond${query}`, body)).toEqual(old)
          if (!outer) expect(await rawExchange(port, `/plain`, body)).toEqual(old)
          if (outer) expect(old.head).toContain('x-request-id: r-1')
        }),
        { numRuns: 60 },
      )
    })
  })
})

describe('contextIsBare', () => {
  const bareness = async (touch: (c: Context) => void) => {
    let bare: boolean | undefined
    const app = new Hono().get('/', (c) => {
      touch(c)
      bare = contextIsBare(c)
      return c.text('ok')
    })
    await app.request('/')
    return bare
  }
  it('is true on a fresh context, and on one whose only header was set and removed', async () => {
    expect(await bareness(() => {})).toBe(true)
    expect(await bareness((c) => c.header('X-A', undefined))).toBe(true)
  })
  it('is false once a header was set, or an answer made', async () => {
    expect(await bareness((c) => c.header('X-A', '1'))).toBe(false)
    expect(await bareness((c) => c.header('Set-Cookie', 'a=1', { append: true }))).toBe(false)
    expect(await bareness((c) => c.res.headers.set('X-A', '1'))).toBe(false)
    expect(await bareness((c) => void (c.res = new Response('x', { headers: { 'x-b': '2' } })))).toBe(false)
  })
})

describe('the room’s queue page', () => {
  const full = () => ({ secret: TEST_SECRET, totalActiveUsers: 1, newUsersPerMinute: 1, refreshIntervalSeconds: 30, random: () => 0.5, clock: () => START, coordinator: memoryCoordinator() })
  const cookieValue = /(__wroom=)[^;]+/

  it('keeps the headers another middleware set before it (a second Set-Cookie included), as Hono’s way did', async () => {
    const plain = new Hono().use(waitingRoom(full())).get('/', (c) => c.text('ok'))
    const outer = new Hono()
      .use(async (c, next) => {
        c.header('X-Request-Id', 'r-1')
        c.header('Set-Cookie', 'outer=1; Path=/', { append: true })
        await next()
      })
      .use(waitingRoom(full()))
      .get('/', (c) => c.text('ok'))
    for (const app of [plain, outer]) expect((await app.request('/')).status).toBe(200) // the one place
    const a = await seen(await plain.request('/', { headers: { accept: 'text/html' } }))
    const b = await seen(await outer.request('/', { headers: { accept: 'text/html' } }))
    expect(a.status).toBe(200)
    expect(b.cookies[0]).toBe('outer=1; Path=/')
    expect(b.cookies[1]!.replace(cookieValue, '$1x')).toBe(a.cookies[0]!.replace(cookieValue, '$1x'))
    const others = (s: Seen) => s.headers.filter(([name]) => name !== 'set-cookie' && name !== 'x-request-id')
    expect(others(b)).toEqual(others(a))
    expect(b.headers).toContainEqual(['x-request-id', 'r-1'])
    expect(b.body).toBe(a.body)
  })

  it('over node-server: GET, HEAD and POST get the page Hono’s way gave (forced here by another middleware’s header)', async () => {
    const serveApp = (app: { fetch: (request: Request) => Response | Promise<Response> }) =>
      new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s))
      })
    const plain = new Hono().use(waitingRoom(full())).all('/', (c) => c.text('ok'))
    const outer = new Hono()
      .use(async (c, next) => {
        c.header('X-Outer', '1')
        await next()
      })
      .use(waitingRoom(full()))
      .all('/', (c) => c.text('ok'))
    const servers = [await serveApp(plain), await serveApp(outer)]
    try {
      const [a, b] = servers.map((s) => (s.address() as { port: number }).port) as [number, number]
      for (const port of [a, b]) expect((await rawExchange(port, '/', '', 'GET')).head[0]).toBe('HTTP/1.1 200 OK') // the one place
      const same = (head: string[]) => head.filter((l) => !l.startsWith('x-outer')).map((l) => l.replace(cookieValue, '$1x'))
      for (const method of ['GET', 'HEAD', 'POST']) {
        const [pa, pb] = [await rawExchange(a, '/', '', method), await rawExchange(b, '/', '', method)]
        expect(pa.head[0]).toBe(method === 'POST' ? 'HTTP/1.1 503 Service Unavailable' : 'HTTP/1.1 200 OK')
        expect(pa.head.some((l) => l.startsWith('set-cookie: __wroom='))).toBe(true)
        expect(pb.head).toContain('x-outer: 1')
        expect(same(pa.head)).toEqual(same(pb.head))
        expect(pa.body).toBe(pb.body)
      }
    } finally {
      for (const s of servers) s.close()
    }
  })
})
