// One server under load, in its own process (forked by bench/http.mjs with an IPC channel). Kinds:
//
//   bare          a Hono app answering "ok"
//   empty         the same app behind an empty middleware (`await next()`)
//   room-open     the same app behind waitingRoom() with huge limits (admitted and new users)
//   room-full     the same app behind waitingRoom() with room for one user, taken at start (queued users)
//   origin        the tiny origin behind the proxies (the bare app)
//   proxy-plain   a minimal fetch-forwarding Hono app in front of --origin
//   proxy-room    createProxyApp (src/proxy/proxy.ts) in front of --origin, huge limits
//
// It listens on 127.0.0.1 (a free port), tells the parent `{ ready, port }`, and answers `stats` with the
// room's decision counts, coordinator calls and Web Crypto calls since the last `reset` — so the parent can
// check that each case took the path it is named after, and that a repeat request calls neither.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { benchRoomOptions, dist } from './lib.mjs'

const kind = process.argv[2]
const originUrl = process.argv[3]
const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef'
const HUGE = 10_000_000

// Counting wrappers. An increment per call: nothing next to the work counted, and nothing at all on the
// admitted path, where there must be no calls.
const calls = { increment: 0, sync: 0, takeSlot: 0, encrypt: 0, decrypt: 0, deriveKey: 0 }
const subtle = globalThis.crypto.subtle
for (const method of ['encrypt', 'decrypt', 'deriveKey']) {
  const original = subtle[method].bind(subtle)
  subtle[method] = (...args) => {
    calls[method]++
    return original(...args)
  }
}

async function countingMemoryCoordinator() {
  const { memoryCoordinator } = await dist('adapters/memory/index.js')
  const inner = memoryCoordinator()
  return {
    name: inner.name,
    preferredSyncIntervalMs: inner.preferredSyncIntervalMs,
    increment: (request) => (calls.increment++, inner.increment(request)),
    sync: (report) => (calls.sync++, inner.sync(report)),
    ...(inner.takeSlot ? { takeSlot: (request) => (calls.takeSlot++, inner.takeSlot(request)) } : {}),
  }
}

const ok = (c) => c.text('ok')
let room
let app

switch (kind) {
  case 'bare':
  case 'origin':
    app = new Hono().get('/', ok)
    break
  case 'empty':
    app = new Hono()
      .use(async function empty(_c, next) {
        await next()
      })
      .get('/', ok)
    break
  case 'room-open':
  case 'room-full': {
    const { waitingRoom } = await dist('src/room/middleware.js')
    const open = kind === 'room-open'
    const middleware = waitingRoom(benchRoomOptions(open, SECRET, await countingMemoryCoordinator()))
    room = middleware.room
    app = new Hono().use(middleware).get('/', ok)
    break
  }
  case 'proxy-plain': {
    const origin = new URL(originUrl)
    app = new Hono().all('*', function forward(c) {
      const url = new URL(c.req.url)
      url.protocol = origin.protocol
      url.host = origin.host
      return fetch(url, { method: c.req.method, headers: c.req.raw.headers, redirect: 'manual' })
    })
    break
  }
  case 'proxy-room': {
    const { createProxyApp } = await dist('src/proxy/proxy.js')
    app = createProxyApp({
      origin: originUrl,
      room: {
        secret: SECRET,
        totalActiveUsers: HUGE,
        newUsersPerMinute: HUGE,
        coordinator: await countingMemoryCoordinator(),
      },
    })
    // The room is inside the app (createProxyApp does not hand it out): the stats are the call counts only.
    break
  }
  default:
    throw new Error(`unknown server kind ${kind}`)
}

const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
  process.send({ type: 'ready', port: info.port, pid: process.pid })
})

const zero = () => {
  for (const key in calls) calls[key] = 0
  if (room) for (const key in room.metrics.decisions) room.metrics.decisions[key] = 0
}

process.on('message', (message) => {
  if (message?.type === 'stats') {
    const decisions = room ? Object.fromEntries(Object.entries(room.metrics.decisions).filter(([, n]) => n > 0)) : undefined
    process.send({ type: 'stats', calls: { ...calls }, decisions, cpu: process.cpuUsage(), heapUsed: process.memoryUsage().heapUsed })
  } else if (message?.type === 'mark') {
    // Now, on the clock V8's profiler stamps its samples with (both CLOCK_MONOTONIC), in µs.
    process.send({ type: 'mark', at: Number(process.hrtime.bigint() / 1000n) })
  } else if (message?.type === 'reset') {
    zero()
    process.send({ type: 'reset' })
  } else if (message?.type === 'exit') {
    // process.exit (not a signal) so that --cpu-prof writes its profile.
    server.close()
    process.exit(0)
  }
})
process.on('disconnect', () => process.exit(0))
