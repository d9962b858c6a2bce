/// <reference types="node" />
/**
 * The proxy's admitted-session fast path (src/proxy/fast.ts, src/room/fast-path.ts) gives every request the
 * answer the whole app gives. Two CLI proxies (`startProxy`), alike but for the fast path (on / off), each
 * with its own origin and its own room state on one shared fake clock, get the same generated requests —
 * paths plain and ambiguous, covered, bypassed and under the admin path; every method, with and without a
 * body; tickets valid, due for renewal, expired, forged or absent; forwarding, hop-by-hop, command and
 * authorization headers; foreign hosts; origin answers with redirects, cookies, commands (`revoke`) and
 * bodiless statuses. What each origin receives, and what each client gets back (status, headers minus
 * Date, body), must be the same; each proxy's own ticket text is replaced by a placeholder first (tickets
 * are sealed with a random IV). The fast path must also have been taken: a test that never reaches it
 * proves nothing.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProxy } from '../bin/proxy-command.ts'
import type { ProxyConfig } from '../bin/flags.ts'
import type { Listening } from '../bin/listen.ts'
import { TEST_SECRET } from './proxy-servers.ts'
import { createProxyApp, type OriginTransport } from '../src/proxy/proxy.ts'
import { nodeTransport } from '../src/proxy/node.ts'

const MINUTE = 60_000
const RUNS = 120
const ADMIN_TOKEN = 'fast-path-admin-token-0123456789abcdef'
let now = Date.UTC(2026, 0, 1, 12, 0, 20)

/** An origin that records what it receives and answers as the query asks. */
interface Origin {
  server: Server
  url: string
  seen: { method: string; url: string; headers: string[]; body: string }[]
}

async function startOrigin(): Promise<Origin> {
  const seen: Origin['seen'] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      seen.push({ method: request.method!, url: request.url!, headers: request.rawHeaders, body })
      const query = new URL(request.url!, 'http://x').searchParams
      const status = Number(query.get('status') ?? 200)
      const headers: string[] = ['Content-Type', 'text/plain']
      if (query.get('cmd')) headers.push('Waiting-Room-Command', query.get('cmd')!)
      if (query.get('redirect')) headers.push('Location', `${origin(request)}/shop/next?from=origin`)
      if (query.get('cookie')) headers.push('Set-Cookie', 'origin=1; Path=/', 'Set-Cookie', 'other=2')
      const text = `${request.method} ${request.url} ${body.length}`
      if (!query.get('chunked')) headers.push('Content-Length', String(Buffer.byteLength(text)))
      response.writeHead(status, headers)
      response.end(status === 204 || status === 304 ? undefined : text)
    })
  })
  const origin = (request: IncomingMessage) => `http://${request.headers.host}`
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  return { server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, seen }
}

interface Answer {
  status: number
  headers: string[][]
  body: string
}

/** One request as sent (node:http: no header added but Host when not given, and Connection). */
function send(base: string, method: string, path: string, headers: string[], body: string | undefined, chunked: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(base)
    const request = httpRequest({ host: url.hostname, port: url.port, method, path, headers, agent: false, setHost: false })
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const pairs: string[][] = []
        for (let i = 0; i < response.rawHeaders.length; i += 2) pairs.push([response.rawHeaders[i]!.toLowerCase(), response.rawHeaders[i + 1]!])
        resolve({ status: response.statusCode!, headers: pairs, body: Buffer.concat(chunks).toString() })
      })
      response.on('error', reject)
    })
    request.on('error', reject)
    if (body !== undefined && chunked) request.write(body)
    request.end(body !== undefined && !chunked ? body : undefined)
  })
}

/** One proxy of the pair: its origin, how a request reaches it, and the ticket texts it sealed this run, by kind. */
interface Side {
  origin: Origin
  send: (method: string, path: string, headers: string[], body: string | undefined, chunked: boolean) => Promise<Answer>
  close: () => Promise<void>
  /** Requests the fast path answered so far. */
  fast: () => number
  tickets: Map<string, string>
}

/** The CLI's proxy (`startProxy`: the fast path in the Node listener, below node-server), over a socket. */
async function cliSide(config: ProxyConfig, origin: Origin, fastPath: boolean): Promise<Side> {
  let sent = 0
  let inApp = 0
  const proxy: Listening = await startProxy(config, { fastPath, onAppRequest: () => inApp++ })
  const sendOne: Side['send'] = (...args) => (sent++, send(proxy.url, ...args))
  return { origin, send: sendOne, close: () => proxy.close(), fast: () => sent - inApp, tickets: new Map() }
}

/** `createProxyApp(...).fetch` given Requests, as Bun.serve, Deno or Workers call it (the fast path in `fetch`). */
function fetchSide(config: ProxyConfig, origin: Origin, fastPath: boolean): Side {
  const inner = nodeTransport()
  let fast = 0
  // The room's variable is set only when the request went through the app's pipeline.
  const transport: OriginTransport = { request: (request, c) => (c.get('waitingRoom' as never) || fast++, inner.request(request, c)) }
  const app = createProxyApp({
    origin: config.origin!,
    room: config.room,
    trustProxy: config.trustProxy,
    publicHosts: config.publicHosts,
    clientAddress: () => '127.0.0.1',
    onOriginError: () => {},
    transport,
    fastPath,
  })
  const sendRequest: Side['send'] = async (method, path, headers, body) => {
    const pairs: [string, string][] = []
    for (let i = 0; i < headers.length; i += 2) pairs.push([headers[i]!, headers[i + 1]!])
    const host = headers[headers.findIndex((name, i) => i % 2 === 0 && name.toLowerCase() === 'host') + 1]
    const response = await app.fetch(new Request(`http://${host}${path}`, { method, headers: pairs, body: body ?? null }))
    return { status: response.status, headers: [...response.headers].map(([name, value]) => [name, value]), body: await response.text() }
  }
  return { origin, send: sendRequest, close: async () => {}, fast: () => fast, tickets: new Map() }
}

const CONFIGS: { name: string; serve: typeof cliSide | typeof fetchSide; config: (origin: string, roomId: string) => ProxyConfig }[] = [
  {
    name: 'CLI with coverage, bypass, admin, pinned hosts, revoke',
    serve: cliSide,
    config: (origin, roomId) => ({
      origin,
      port: 0,
      host: '127.0.0.1',
      store: undefined,
      redis: undefined,
      publicHosts: ['shop.example', '*.shop.example'],
      admin: { token: ADMIN_TOKEN, path: '/_room' },
      room: {
        roomId,
        secret: TEST_SECRET,
        totalActiveUsers: 1_000_000,
        newUsersPerMinute: 1_000_000,
        sessionDurationMinutes: 5,
        paths: ['/shop'],
        bypass: { paths: ['/shop/static'] },
        enabledOriginCommands: ['revoke'],
        clock: () => now,
      },
    }),
  },
  {
    name: 'CLI behind one trusted proxy, every path covered',
    serve: cliSide,
    config: (origin, roomId) => ({
      origin: `${origin}/base`,
      port: 0,
      host: '127.0.0.1',
      store: undefined,
      redis: undefined,
      trustProxy: 1,
      room: { roomId, secret: TEST_SECRET, totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000, sessionDurationMinutes: 5, clock: () => now },
    }),
  },
  {
    name: 'createProxyApp fetch with coverage, bypass, pinned hosts, revoke',
    serve: fetchSide,
    config: (origin, roomId) => {
      const config = CONFIGS[0]!.config(origin, roomId)
      return { ...config, admin: undefined }
    },
  },
]

const PATHS = [
  '/shop', '/shop/a', '/shop/a?b=1&c=%20', '/SHOP/a', '/shop/static/x.css', '/other', '/', '/shop;x=1', '//shop/a', '/shop/%61',
  '/shop/../_room/status', '/_room', '/_room/status', '/_ROOM/status', '/_room%2Fstatus', '/shop/a.', '/shop/%2e%2e/x', '/shop/a%20b', '/shop/%C3%A9', '/shop/a?x=/../_room',
]
const ANSWERS = ['', 'cmd=revoke', 'cmd=other', 'redirect=1', 'cookie=1', 'status=204', 'status=304', 'status=404', 'chunked=1', 'cmd=revoke&chunked=1']
const TICKETS = ['valid', 'valid', 'valid', 'renewal-due', 'expired', 'forged', 'none'] as const
const EXTRA: string[][] = [
  [],
  ['X-Forwarded-For', '203.0.113.9', 'X-Forwarded-Proto', 'https', 'X-Forwarded-Host', 'shop.example'],
  ['Connection', 'keep-alive, X-Drop', 'X-Drop', '1', 'TE', 'trailers', 'Proxy-Authorization', 'Basic x'],
  ['Waiting-Room-Command', 'revoke', 'Forwarded', 'for=1.2.3.4', 'X-Real-IP', '1.2.3.4'],
  ['Authorization', `Bearer ${ADMIN_TOKEN}`],
  ['Authorization', 'Bearer someone-else'],
  ['Upgrade', 'websocket'],
  ['Accept', 'text/html', 'Accept-Encoding', 'gzip, br'],
]

const anyRequest = {
  method: fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
  path: fc.constantFrom(...PATHS),
  answer: fc.constantFrom(...ANSWERS),
  ticket: fc.constantFrom(...TICKETS),
  extra: fc.constantFrom(...EXTRA),
  host: fc.constantFrom('shop.example', 'a.shop.example', 'evil.example'),
  body: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
  chunked: fc.boolean(),
  cookieAround: fc.boolean(),
}
// Half the runs are what the fast path is for (an admitted user on a plain covered path, nothing special),
// so it is taken often enough to be compared; the other half roam everywhere.
const request = fc.oneof(
  fc.record(anyRequest),
  fc.record({
    ...anyRequest,
    path: fc.constantFrom('/shop', '/shop/a', '/shop/a?b=1&c=%20', '/shop/x/y.html?q=a/b'),
    ticket: fc.constant('valid' as const),
    extra: fc.constantFrom(EXTRA[0]!, EXTRA[1]!, EXTRA[2]!, EXTRA[7]!),
    host: fc.constantFrom('shop.example', 'a.shop.example'),
  }),
)

/** The path with the origin's answer asked for in its query. */
function withAnswer(path: string, answer: string): string {
  if (!answer) return path
  return `${path}${path.includes('?') ? '&' : '?'}${answer}`
}

/** A side's ticket texts and origin address replaced by what they stand for, so the two sides compare. */
function normalize(text: string, side: Side): string {
  let out = text.split(new URL(side.origin.url).host).join('<origin>')
  const { tickets } = side
  for (const [kind, value] of tickets) out = out.split(value).join(`<${kind}>`)
  // A ticket either side sealed just now (a renewal, a new user): random, and never the other side's.
  // And the admin dashboard's CSP nonce, fresh on every page.
  return out.replace(/__wroom=[A-Za-z0-9_-]+\.\.[A-Za-z0-9._-]+/g, '__wroom=<sealed>').replace(/nonce(=\\?"|-)[A-Za-z0-9+/=]+/g, 'nonce$1<nonce>')
}

describe.each(CONFIGS)('the fast path answers as the whole proxy does: $name', ({ config, serve }) => {
  const sides: Side[] = []

  beforeAll(async () => {
    // One room id (pages name it); each side's room keeps its own state all the same (its own memory coordinator).
    const roomId = `fast-path-${Math.random().toString(36).slice(2, 8)}`
    for (const fastPath of [true, false]) {
      const origin = await startOrigin()
      sides.push(await serve(config(origin.url, roomId), origin, fastPath))
    }
  })

  afterAll(async () => {
    for (const side of sides) {
      await side.close()
      side.origin.server.closeAllConnections()
      await new Promise((resolve) => side.origin.server.close(resolve))
    }
  })

  /** A ticket admitted at `at` on each side (a covered path, fixed Host), then `now` restored. */
  async function mint(kind: string, at: number): Promise<void> {
    const was = now
    now = at
    for (const side of sides) {
      const answer = await side.send('GET', '/shop/mint', ['Host', 'shop.example'], undefined, false)
      const cookie = answer.headers.find(([name, value]) => name === 'set-cookie' && value!.startsWith('__wroom='))
      if (!cookie) throw new Error(`no ticket: ${answer.status} ${answer.body}`)
      side.tickets.set(kind, cookie[1]!.split(';')[0]!.slice('__wroom='.length))
    }
    now = was
  }

  it('for generated requests: same origin request, same client answer', async () => {
    let fastTaken = 0
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        now += MINUTE // a fresh minute each run: tickets minted below are of known age
        for (const side of sides) side.tickets.clear()
        if (r.ticket === 'valid') await mint('valid', now - 5000)
        if (r.ticket === 'renewal-due') await mint('renewal-due', now - MINUTE)
        if (r.ticket === 'expired') await mint('expired', now - 7 * MINUTE)
        if (r.ticket === 'forged') await mint('forged', now - 5000)
        const answers: Answer[] = []
        const seen: Origin['seen'][] = []
        for (const [i, side] of sides.entries()) {
          const ticket = side.tickets.get(r.ticket)
          const value = r.ticket === 'forged' ? `${ticket!.slice(0, -4)}AAAA` : ticket
          const cookie = value === undefined ? [] : ['Cookie', r.cookieAround ? `a=1; __wroom=${value}; b=2` : `__wroom=${value}`]
          if (value !== undefined && r.ticket === 'forged') side.tickets.set('forged', value)
          const headers = ['Host', r.host, ...cookie, ...r.extra]
          // A Request takes no GET or HEAD body; a socket does.
          const body = serve === fetchSide && (r.method === 'GET' || r.method === 'HEAD') ? undefined : r.body
          if (body !== undefined && !r.chunked) headers.push('Content-Length', String(Buffer.byteLength(body)))
          if (body !== undefined && r.chunked) headers.push('Transfer-Encoding', 'chunked')
          const path = withAnswer(r.path, r.answer)
          // Twice: the first request opens the ticket (the fast path takes only a remembered one), the second may go fast.
          for (const round of [0, 1]) {
            const before = side.origin.seen.length
            const fastBefore = side.fast()
            const answer = await side.send(r.method, path, headers, body, r.chunked)
            if (round === 0) continue
            answers.push(answer)
            seen[i] = side.origin.seen.slice(before)
            if (side.fast() > fastBefore) fastTaken++
          }
        }
        const [fast, full] = answers.map((answer, i) => ({
          status: answer.status,
          headers: normalize(JSON.stringify(answer.headers.filter(([name]) => name !== 'date').sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0))), sides[i]!),
          body: normalize(answer.body, sides[i]!),
        }))
        expect(fast).toEqual(full)
        const origins = seen.map((requests, i) => normalize(JSON.stringify(requests), sides[i]!))
        expect(origins[0]).toEqual(origins[1])
      }),
      { numRuns: RUNS, seed: Number(process.env.FAST_PATH_SEED ?? Date.now() % 100_000) },
    )
    expect(fastTaken).toBeGreaterThan(RUNS / 5)
    expect(sides[1]!.fast()).toBe(0) // the side without it never took it
  }, 240_000)
})
