/// <reference types="node" />
/**
 * The fast path's own HTTP/1.1 client (src/proxy/h1-pool.ts) against the node:http transport, on generated
 * exchanges: two proxies alike but for that (`createProxyApp(...).fetch`, an admitted user, the fast path
 * on), each with its own raw origin (node:net) answering as the request's query says — statuses with and
 * without bodies, HEAD, Content-Length / chunked / close-delimited bodies of many sizes, gzip bytes with
 * Content-Encoding, interim 103 answers, repeated and oddly cased header lines, `Connection: close`, idle
 * connections closed by the origin, and broken answers (cut head, cut body, garbage, none in time). What each
 * origin reads (request line and header lines) and what each client gets (status, headers, body bytes, or a
 * broken body) must be the same. Shared by test/proxy-h1.test.ts (Node: node:net sockets) and
 * adapters/bun-sqlite/proxy-h1.bun.test.ts (Bun: Bun.connect).
 */
import { createServer, type Server, type Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import { createProxyApp } from '../../src/proxy/proxy.ts'
import { nodeTransport } from '../../src/proxy/node.ts'
import { EXACT_TRANSPORT, type H1Dial } from '../../src/proxy/h1-pool.ts'
import { seededRandom } from '../../src/admission/plan.ts'

const SECRET = 'h1-differential-secret-0123456789abcdef'
// A fixed clock: a minute turn mid-run would renew one side's ticket and not the other's.
const NOW = Date.UTC(2026, 0, 1, 12, 0, 20)

/** A raw origin: records each request head's lines and answers as its query says. */
function rawOrigin(): Promise<{ server: Server; port: number; seen: string[]; sockets: Set<Socket> }> {
  const seen: string[] = []
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => {})
    let buffer = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk])
      for (let end = buffer.indexOf('\r\n\r\n'); end !== -1; end = buffer.indexOf('\r\n\r\n')) {
        const lines = buffer.subarray(0, end).toString('latin1').split('\r\n')
        buffer = buffer.subarray(end + 4)
        seen.push(lines.join('\n'))
        answer(socket, lines[0]!.split(' ')[0]!, new URL(lines[0]!.split(' ')[1]!, 'http://x').searchParams)
      }
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, seen, sockets })))
}

/** Bytes of a seeded pattern, so bodies differ by size and seed. */
function bodyOf(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size)
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed * 7 + (i >> 7)) & 0xff
  return bytes
}

function answer(socket: Socket, method: string, q: URLSearchParams): void {
  const fault = q.get('fault')
  if (fault === 'silent') return
  if (fault === 'cut-head') return void socket.end('HTTP/1.1 200 O')
  if (fault === 'garbage') return void socket.end('HTTP/9 nonsense\r\n\r\n')
  const status = Number(q.get('status'))
  let body = bodyOf(Number(q.get('size')), Number(q.get('seed')))
  const head = [`HTTP/1.1 ${status} ${q.get('reason') ?? 'Whatever'}`, 'Content-Type: application/octet-stream', 'Set-Cookie: a=1; Path=/', 'set-cookie: b=2', 'X-Dup: 1', 'x-DUP: 2']
  if (q.get('gzip')) {
    body = gzipSync(body)
    head.push('Content-Encoding: gzip', 'Vary: Accept-Encoding')
  }
  if (q.get('location')) head.push(`Location: http://${q.get('location')}/next`)
  const framing = q.get('framing')
  if (q.get('close')) head.push('Connection: close')
  if (framing === 'length') head.push(`Content-Length: ${body.length}`)
  if (framing === 'chunked') head.push('Transfer-Encoding: chunked')
  // Bytes above 0x7f in a head are Latin-1 on the wire (0x80-0x9f too, where windows-1252 would differ).
  if (q.get('latin')) head.push('X-Latin: caf\u00e9 \u0080\u009f\u00ff')
  if (q.get('interim')) socket.write('HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n')
  const headBytes = Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1')
  // A head in pieces (cut inside its end and early on): the reader must find its end and its bytes across reads.
  const split = Number(q.get('split'))
  if (!split) return finish(socket, method, q, headBytes, body)
  socket.write(headBytes.subarray(0, headBytes.length - split))
  setTimeout(() => finish(socket, method, q, headBytes.subarray(headBytes.length - split), body), 5)
}

function finish(socket: Socket, method: string, q: URLSearchParams, head: Buffer, body: Buffer): void {
  const fault = q.get('fault')
  const status = Number(q.get('status'))
  const framing = q.get('framing')
  const bodiless = method === 'HEAD' || status === 204 || status === 304
  socket.write(head)
  if (bodiless) return void (q.get('close') && socket.end())
  if (fault === 'cut-body') return void socket.end(body.subarray(0, body.length >> 1))
  if (framing === 'chunked') {
    const step = Number(q.get('chunk')) || 1
    // Framed in one buffer, written at once: thousands of writes hold the head back for seconds on Bun's node:net.
    const parts: Buffer[] = []
    for (let at = 0; at < body.length; at += step) parts.push(Buffer.from(`${Math.min(step, body.length - at).toString(16)};ext=1\r\n`), body.subarray(at, at + step), Buffer.from('\r\n'))
    parts.push(Buffer.from('0\r\nX-Trailer: t\r\n\r\n'))
    socket.write(Buffer.concat(parts))
  } else socket.write(body)
  if (framing === 'close' || q.get('close')) socket.end()
}

export interface Outcome {
  origin: string[]
  client: string
}

/** One side's proxy: `dial` set → the fast path's own client on that socket; unset → the node:http transport. */
async function side(dial: H1Dial | undefined, timeoutMs: number, down = false) {
  const origin = await rawOrigin()
  // Requests written through the fast path's client (each is one write of its head).
  const written = { heads: 0, dials: 0 }
  const counted: H1Dial | undefined = dial && (async (host, port, events) => {
    written.dials++
    const socket = await dial(host, port, events)
    return { ...socket, write: (data) => (written.heads++, socket.write(data)) }
  })
  const base = nodeTransport({ keepAliveMs: 2000 })
  const transport = counted ? { ...base, [EXACT_TRANSPORT]: { keepAliveMs: 2000, dial: counted } } : base
  let errors = 0
  const app = createProxyApp({ origin: `http://127.0.0.1:${origin.port}/base`, transport, originTimeoutMs: timeoutMs, onOriginError: () => void errors++, clientAddress: () => '127.0.0.1', room: { secret: SECRET, totalActiveUsers: 1e6, newUsersPerMinute: 1e6, enabledOriginCommands: ['revoke'], clock: () => NOW } })
  let cookie = ''
  const send = async (method: string, path: string, headers: [string, string][]): Promise<string> => {
    const response = await app.fetch(new Request(`http://shop.example${path}`, { method, headers: [['host', 'shop.example'], ...headers, ['cookie', cookie]] }))
    const ticket = response.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    if (ticket) cookie = ticket.split(';')[0]!
    let body: string
    try {
      body = Buffer.from(await response.arrayBuffer()).toString('base64')
    } catch {
      body = '<broken body>'
    }
    const lines = [...response.headers].filter(([name]) => name !== 'date').map(([name, value]) => `${name}: ${value.replace(/__wroom=[^;]+/, '__wroom=<t>')}`)
    return `${response.status} ${lines.sort().join('\n')}\n${body}`
  }
  // Admitted, and the ticket remembered: from here on every request may take the fast path.
  await send('GET', '/?status=200&size=0&framing=length&seed=0', [])
  await send('GET', '/?status=200&size=0&framing=length&seed=0', [])
  origin.seen.length = 0
  written.heads = 0
  written.dials = 0
  if (down) await new Promise((resolve) => (origin.server.close(resolve), origin.sockets.forEach((socket) => socket.destroy())))
  return { origin, written, errors: () => errors, send, close: () => (origin.server.close(), origin.sockets.forEach((s) => s.destroy())) }
}

const HEADER_SETS: [string, string][][] = [
  [],
  [['Accept', 'text/html'], ['accept-encoding', 'gzip, br'], ['X-Mixed-Case', 'A'], ['x-mixed-case', 'b']],
  [['User-Agent', 'curl/8'], ['Connection', 'keep-alive, X-Hop'], ['X-Hop', '1'], ['TE', 'trailers'], ['X-Latin', 'caf\u00e9']],
  [['X-Forwarded-For', '203.0.113.1'], ['Forwarded', 'for=1.2.3.4'], ['Content-Length', '0']],
]

/** `runs` generated exchanges through both sides (the reference: the node:http transport, or the fast path's client on another socket); returns the pairs that differ (none expected) and how many went through the fast path's client. */
export async function runDifferential(dial: H1Dial, seed: number, runs: number, reference?: H1Dial): Promise<{ mismatches: [Outcome, Outcome][]; viaH1: number }> {
  const rand = seededRandom(`h1-differential-${seed}`)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!
  const sides = [await side(dial, 1000), await side(reference, 1000)]
  const mismatches: [Outcome, Outcome][] = []
  let viaH1 = 0
  try {
    for (let run = 0; run < runs; run++) {
      const method = pick(['GET', 'GET', 'GET', 'HEAD', 'DELETE', 'OPTIONS'])
      const size = pick([0, 1, 200, 4096, 16_384, 65_536, 70_001, 300_000].filter((n) => n < 300_000 || rand() < 0.3))
      const fault = rand() < 0.12 ? pick(['cut-head', 'cut-body', 'garbage', rand() < 0.2 ? 'silent' : 'cut-body']) : ''
      const q = new URLSearchParams({ status: String(pick([200, 200, 201, 204, 301, 304, 404, 500])), size: String(size), seed: String(run), framing: pick(['length', 'length', 'chunked', 'close']), chunk: String(pick([1, 7, 1000, 65_536])) })
      if (rand() < 0.3) q.set('gzip', '1')
      if (rand() < 0.15) q.set('close', '1')
      if (rand() < 0.15) q.set('interim', '1')
      if (rand() < 0.2) q.set('location', 'ORIGIN')
      if (rand() < 0.2) q.set('latin', '1')
      if (rand() < 0.15) q.set('split', String(pick([1, 2, 3, 5, 40])))
      if (rand() < 0.1) q.set('reason', 'D\u00e9j\u00e0 vu')
      if (fault) q.set('fault', fault)
      const headers = pick(HEADER_SETS)
      const outcomes: Outcome[] = []
      const closeIdle = rand() < 0.1
      for (const s of sides) {
        const path = `/p/${run}?${q.toString().replace('ORIGIN', `127.0.0.1:${s.origin.port}/base`)}`
        // The origin now and then closes idle keep-alive connections: the next request must open a new one.
        // (then a moment for the proxy to hear of it: neither client may send on a connection it was not yet told is closed).
        if (closeIdle) {
          s.origin.sockets.forEach((socket) => socket.destroy())
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        const client = await s.send(method, path, headers)
        outcomes.push({ origin: s.origin.seen.splice(0).map((line) => line.split(String(s.origin.port)).join('<port>').replace(/__wroom=[^;\n]+/, '__wroom=<t>')), client: client.split(String(s.origin.port)).join('<port>') })
      }
      if (JSON.stringify(outcomes[0]) !== JSON.stringify(outcomes[1])) mismatches.push([outcomes[0]!, outcomes[1]!])
    }
    viaH1 = sides[0]!.written.heads
  } finally {
    for (const s of sides) s.close()
  }
  return { mismatches, viaH1 }
}

/** Both sides with their origin gone (connections refused): the same answers (502), each failure reported. */
export async function originDown(dial: H1Dial): Promise<{ answers: string[][]; errors: number[]; dials: number }> {
  const sides = [await side(dial, 1000, true), await side(undefined, 1000, true)]
  const answers: string[][] = [[], []]
  for (let i = 0; i < 3; i++) for (const [n, s] of sides.entries()) answers[n]!.push(await s.send(pick(i), '/down', []))
  return { answers, errors: sides.map((s) => s.errors()), dials: sides[0]!.written.dials }
}

const pick = (i: number): string => ['GET', 'HEAD', 'DELETE'][i % 3]!
