// The flood-path cases run in process by inproc.mjs and instructions.mjs: each case's app (the same as
// runtime-server.mjs's) answering `app.fetch`, with N requests in flight.
import { Hono } from 'hono'
import { benchRoomOptions } from './lib.mjs'

const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef'
const URL_ = 'http://127.0.0.1:8080/'
const HEADERS = { 'user-agent': 'wrk', accept: '*/*' }

const ok = (c) => c.text('ok')
const get = (app, cookie) => app.fetch(new Request(URL_, { headers: cookie ? { ...HEADERS, cookie } : HEADERS }))
const cookieOf = async (app) => (await get(app)).headers.get('set-cookie').split(';')[0]
const bare = new Hono().get('/', ok)
const empty = new Hono().use(async (_c, next) => await next()).get('/', ok)

/** The room's cases served by the build whose modules `load` imports (`suffix` names another build's). */
export async function roomCases(load, suffix = '') {
  const { waitingRoom } = await load('src/room/middleware.js')
  const { memoryCoordinator } = await load('adapters/memory/index.js')
  const roomApp = (open) => new Hono().use(waitingRoom(benchRoomOptions(open, SECRET, memoryCoordinator()))).get('/', ok)
  const open = roomApp(true)
  const full = roomApp(false)
  await cookieOf(full) // the full room's one place
  const admitted = await cookieOf(open)
  const queued = await cookieOf(full)
  return {
    // The empty middleware given the admitted request itself (the cookie included): `admitted ÷ this` is the room's own cost.
    ...(suffix ? {} : { 'empty-cookie': () => get(empty, admitted) }),
    [`admitted${suffix}`]: () => get(open, admitted),
    [`new${suffix}`]: () => get(open),
    [`queued${suffix}`]: () => get(full),
    [`too-early${suffix}`]: () => get(full, queued),
  }
}

/** The two baselines: bare Hono answering `ok`, and an empty middleware in front of it. */
export const baseCases = { bare: () => get(bare), empty: () => get(empty) }

/** The next turn of the event loop (setImmediate where the runtime has it). */
const nextTurn = globalThis.setImmediate ? () => new Promise((resolve) => setImmediate(resolve)) : () => new Promise((resolve) => setTimeout(resolve, 0))

/**
 * Runs `n` requests of `request` with `inFlight` in flight, each body read. `turns`: each worker waits for the
 * next turn of the event loop after each request, so a turn holds `inFlight` requests, as under a server
 * (without it the whole run is one turn of microtasks, and the room's once-a-turn work — the memory
 * coordinator's report and snapshot rebuild — hardly runs).
 */
export async function runRequests(request, n, inFlight, turns = false) {
  let next = 0
  const worker = async () => {
    while (next++ < n) {
      await (await request()).arrayBuffer()
      if (turns) await nextTurn()
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
}
