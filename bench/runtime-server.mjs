// One server under load, on whichever runtime runs this file (Node, Bun or Deno), for bench/runtimes.mjs:
//
//   node bench/runtime-server.mjs <kind>      bun bench/runtime-server.mjs <kind>      deno run -A bench/runtime-server.mjs <kind>
//
// Kinds (every app answers `GET /` with "ok" when let through):
//   bare        a Hono app
//   empty       the same app behind an empty middleware (`await next()`)
//   room-open   behind waitingRoom() with huge limits (admitted and new users)
//   room-full   behind waitingRoom() with room for one user (the parent takes it first): queued users
//   peer-jwt    behind hono/jwt: an HS256 JWT from a cookie verified on every request (a common alternative)
//   peer-hmac   behind hono's getSignedCookie: an HMAC-SHA256 signed cookie checked on every request
//   page        a Hono app answering a full room's queue page as it is (bytes and headers, a ticket cookie
//               included), made once: what sending that answer costs this runtime without the room
//   page:<how>  the same page sent another way, to find each runtime's cheapest: `string` (the page as text),
//               `nohdr` (the bytes, no headers), `okhdr` (`ok` with the page's headers), `recordinit` (the
//               headers as a record in the Response's init)
//
// The measured app listens alone on its port; a second, plain server on another port answers the parent's
// control requests (/stats, /reset, /exit), so nothing about the measured app changes for them. It prints
// one line `READY <port> <control port>` when both listen.
import { Hono } from 'hono'
import { getSignedCookie } from 'hono/cookie'
import { jwt } from 'hono/jwt'
import { benchRoomOptions, dist } from './lib.mjs'

const [kind, pageVariant = ''] = (globalThis.Deno ? globalThis.Deno.args : process.argv.slice(2))[0].split(':')
export const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef'

// Counted in the server: coordinator methods (a repeat request of an admitted user must call none).
const calls = { increment: 0, sync: 0, takeSlot: 0 }

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
  case 'peer-jwt':
    app = new Hono().use(jwt({ secret: SECRET, alg: 'HS256', cookie: 'token' })).get('/', ok)
    break
  case 'peer-hmac':
    app = new Hono()
      .use(async function signedCookie(c, next) {
        if (!(await getSignedCookie(c, SECRET, 'session'))) return c.text('forbidden', 403)
        await next()
      })
      .get('/', ok)
    break
  case 'page': {
    // The answer a cookieless user of a full room gets (room-full's), kept: the floor of the flood path.
    const { waitingRoom } = await dist('src/room/middleware.js')
    const { memoryCoordinator } = await dist('adapters/memory/index.js')
    const full = new Hono().use(waitingRoom(benchRoomOptions(false, SECRET, memoryCoordinator()))).get('/', ok)
    await full.request('/') // the one place
    const queued = await full.request('/')
    const body = new Uint8Array(await queued.arrayBuffer())
    const headers = [...queued.headers]
    // Each runtime's cheapest way, as the room answers: a plain record under node-server (one Set-Cookie line),
    // else the headers set on the Response (Deno converts a Headers init through WebIDL, header by header).
    const record = Object.fromEntries(headers)
    const plain = () => new Response(body, { status: queued.status, headers: record })
    const setAfter = () => {
      const response = new Response(body, { status: queued.status })
      for (const [name, value] of headers) response.headers.append(name, value)
      return response
    }
    const text = new TextDecoder().decode(body)
    const answers = {
      '': globalThis.Bun || globalThis.Deno ? setAfter : plain,
      string: () => {
        const response = new Response(text, { status: queued.status })
        for (const [name, value] of headers) response.headers.append(name, value)
        return response
      },
      nohdr: () => new Response(body, { status: queued.status }),
      okhdr: () => {
        const response = new Response('ok', { status: queued.status })
        for (const [name, value] of headers) response.headers.append(name, value)
        return response
      },
      recordinit: () => new Response(body, { status: queued.status, headers: record }),
    }
    app = new Hono().get('/', answers[pageVariant])
    break
  }
  default:
    throw new Error(`unknown server kind ${kind}`)
}

/** Listens on 127.0.0.1 with a free port, on this runtime's own server; resolves with the port. */
async function listen(fetch) {
  if (globalThis.Bun) return globalThis.Bun.serve({ fetch, hostname: '127.0.0.1', port: 0 }).port
  if (globalThis.Deno) {
    return new Promise((resolve) => {
      globalThis.Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => resolve(port) }, fetch)
    })
  }
  const { serve } = await import('@hono/node-server')
  return new Promise((resolve) => serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(info.port)))
}

const cpu = () => process.cpuUsage()
const zero = () => {
  for (const key in calls) calls[key] = 0
  if (room) for (const key in room.metrics.decisions) room.metrics.decisions[key] = 0
}
const json = (value) => new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } })

async function control(request) {
  const { pathname } = new URL(request.url)
  if (pathname === '/stats') {
    const decisions = room ? Object.fromEntries(Object.entries(room.metrics.decisions).filter(([, n]) => n > 0)) : undefined
    return json({ calls: { ...calls }, decisions, cpu: cpu() })
  }
  if (pathname === '/reset') {
    zero()
    return json({ reset: true })
  }
  if (pathname === '/exit') {
    setTimeout(() => process.exit(0), 10)
    return json({ exiting: true })
  }
  return new Response('not found', { status: 404 })
}

const port = await listen(app.fetch)
const controlPort = await listen(control)
console.log(`READY ${port} ${controlPort}`)
