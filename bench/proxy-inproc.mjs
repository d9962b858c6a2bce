// The proxy's own JavaScript per request, without sockets: `createProxyApp` + `nodeTransport` (the fast path's
// own HTTP/1.1 client, src/proxy/h1-pool.ts) answers `app.fetch` for an admitted user, its origin an in-memory
// socket that answers each request head at once with the bytes a node:http origin sends (200 B or 64 KiB
// body). CPU µs per request over alternating rounds, on whichever runtime runs this file — what the proxy's
// code costs by itself, steady on a shared machine where req/s is not (bench/proxy-passthrough.mjs measures
// the whole, sockets and server included).
//
//   bun bench/proxy-inproc.mjs [--rounds 7] [--requests 20000] [--in-flight 50] [--before /tmp/old/dist]
//   node bench/proxy-inproc.mjs …                 (Node: the same app.fetch path, with node:net's types)
//
// `--before DIR`: the same from another build (`…@before`), alternating with this one in one process.
import { createServer } from 'node:http'
import { pathToFileURL } from 'node:url'
import { alternatingCpu, dist, median, option, round } from './lib.mjs'

const argv = process.argv
const ROUNDS = Number(option(argv, 'rounds', '7'))
const REQUESTS = Number(option(argv, 'requests', '20000'))
const IN_FLIGHT = Number(option(argv, 'in-flight', '50'))
const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef'
const HUGE = 10_000_000
// A frozen clock: past a minute turn every request would renew its ticket (the whole path) and the figure would be that.
const NOW = Date.now()
const latin1 = (text) => Uint8Array.from(text, (ch) => ch.charCodeAt(0))

/** What a node:http origin (bench/proxy-servers.mjs) sends for a body of `size` bytes. */
function answerBytes(size) {
  const head = `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${size}\r\nDate: Tue, 01 Dec 2026 17:00:00 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n`
  return latin1(head + 'x'.repeat(size))
}

/** A dialer whose sockets answer every request head written to them with `bytes` (a fresh copy, as a socket hands over), in a microtask. */
function memoryDial(bytes) {
  return async (_host, _port, events) => {
    let closed = false
    return {
      write: () => queueMicrotask(() => closed || events.data(bytes.slice())),
      pause() {},
      resume() {},
      destroy: () => {
        if (closed) return
        closed = true
        events.close()
      },
    }
  }
}

/** A real origin for the requests that go the whole way (a new user's first, before its ticket is known): node:http's transport. */
const origin = createServer((req, res) => {
  const body = 'x'.repeat(req.url === '/large' ? 64 * 1024 : 200)
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length }).end(body)
})
await new Promise((resolve) => origin.listen(0, '127.0.0.1', resolve))

async function proxyCase(load, size) {
  const { createProxyApp } = await load('src/proxy/proxy.js')
  const { nodeTransport } = await load('src/proxy/node.js')
  const { EXACT_TRANSPORT } = await load('src/proxy/h1-pool.js')
  const transport = nodeTransport()
  transport[EXACT_TRANSPORT].dial = memoryDial(answerBytes(size))
  const app = createProxyApp({
    origin: `http://127.0.0.1:${origin.address().port}`,
    transport,
    room: { secret: SECRET, totalActiveUsers: HUGE, newUsersPerMinute: HUGE, clock: () => NOW },
    clientAddress: () => '127.0.0.1',
  })
  const url = `http://127.0.0.1:8080/${size > 200 ? 'large' : 'small'}`
  const first = await app.fetch(new Request(url, { headers: { host: '127.0.0.1:8080' } }))
  await first.arrayBuffer()
  const cookie = first.headers.getSetCookie().find((line) => line.startsWith('__wroom=')).split(';')[0]
  // As wrk sends it: Host and the cookie.
  const request = () => app.fetch(new Request(url, { headers: { host: '127.0.0.1:8080', cookie } }))
  // One at a time until the ticket is known and the fast path takes it (the whole path's first requests go to the real origin).
  for (let i = 0; i < 20; i++) await (await request()).arrayBuffer()
  return request
}

const before = option(argv, 'before', undefined)
const fromBefore = (path) => import(pathToFileURL(`${before.replace(/\/$/, '')}/${path}`).href)
const CASES = {}
for (const [name, size] of [['small', 200], ['large', 64 * 1024]]) {
  CASES[name] = await proxyCase(dist, size)
  if (before) CASES[`${name}@before`] = await proxyCase(fromBefore, size)
}

async function run(request, n) {
  let next = 0
  let bad = 0
  const worker = async () => {
    while (next++ < n) {
      const response = await request()
      if (response.status !== 200) bad++
      await response.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  if (bad > 0) throw new Error(`${bad} answers were not 200`)
}

const cases = Object.keys(CASES)
const times = await alternatingCpu(cases, (c, n) => run(CASES[c], n), { rounds: ROUNDS, requests: REQUESTS, warm: REQUESTS / 4 })
const runtime = globalThis.Bun ? `bun ${globalThis.Bun.version}` : `node ${process.version}`
console.log(`proxy in process, ${runtime}, ${IN_FLIGHT} in flight, ${ROUNDS} rounds × ${REQUESTS}: CPU µs per request, median (lowest)`)
for (const c of cases) console.log(`${c.padEnd(14)} ${String(round(median(times[c]), 2)).padStart(8)} (${round(Math.min(...times[c]), 2)})`)
if (before) {
  for (const c of cases.filter((c) => !c.endsWith('@before'))) {
    const ratios = times[c].map((t, i) => times[`${c}@before`][i] / t)
    console.log(`${c}: before ÷ after, per round: median ${round(median(ratios), 3)} (${ratios.map((r) => round(r, 2)).join(', ')})`)
  }
}
origin.close()
process.exit(0) // the proxies' idle origin connections would keep the process

