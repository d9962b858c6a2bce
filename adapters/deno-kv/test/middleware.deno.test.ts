/**
 * The middleware end to end in Deno on Deno KV: admissions and queueing through `app.request`, a second
 * isolate sharing the same database, a real `Deno.serve` on port 0, and the bound under concurrency.
 * The clock is fake (a fixed minute); background reports go through `waitUntil` and are awaited.
 */
import { Hono } from 'hono'
import { waitingRoom, type WaitingRoomOptions } from '../../../src/index.ts'
import { denoKvCoordinator } from '../index.ts'
import { expect } from './test-api.ts'

const SECRET = 'deno-kv-test-secret-0123456789-abcdef'
const NOW = Date.UTC(2026, 10, 30, 12, 0, 10)
/** The fake clock every worker reads; a test moves it forward by seconds, never across a minute. */
let now = NOW

/** One worker (an isolate): its own app, middleware and coordinator, over a shared database. */
function worker(kv: Deno.Kv, roomId: string, options: Partial<WaitingRoomOptions> = {}) {
  const app = new Hono()
  app.use(
    waitingRoom({
      roomId,
      secret: SECRET,
      clock: () => now,
      location: () => 'fra',
      coordinator: denoKvCoordinator(kv),
      ...options,
    }),
  )
  app.get('/', (c) => c.text('origin'))
  const background: Promise<unknown>[] = []
  const ctx = { waitUntil: (p: Promise<unknown>) => void background.push(p), passThroughOnException() {}, props: {} }
  return {
    request: (cookie?: string) => app.request('/', { headers: cookie ? { cookie } : {} }, {}, ctx),
    // With the same execution context as `request`, so work a served request leaves behind is awaited too.
    fetch: (request: Request) => app.fetch(request, {}, ctx),
    /** Waits for background work, including work that background work started (a report after a report). */
    async settled() {
      for (let seen = 0; seen < background.length; ) {
        seen = background.length
        await Promise.allSettled(background)
      }
    },
  }
}

const admitted = async (response: Response): Promise<boolean> => (await response.text()) === 'origin'
const cookieOf = (response: Response): string => response.headers.get('set-cookie')!.split(';')[0]!

Deno.test('middleware on Deno KV: admits up to the limit, queues the rest, across isolates', async () => {
  now = NOW
  using kv = await Deno.openKv(':memory:')
  const one = worker(kv, 'e2e', { totalActiveUsers: 2, newUsersPerMinute: 2 })
  const first = await one.request()
  const second = await one.request()
  const third = await one.request()
  expect(await admitted(first)).toBe(true)
  expect(await admitted(second)).toBe(true)
  expect(await admitted(third)).toBe(false)
  expect(third.headers.get('refresh') !== null).toBe(true)
  // An admitted ticket goes straight through.
  expect(await admitted(await one.request(cookieOf(first)))).toBe(true)
  // Two seconds on, the next decision is also the time to report: the admissions reach KV in the background.
  now = NOW + 2000
  expect(await admitted(await one.request())).toBe(false)
  await one.settled()

  // Another isolate on the same KV sees the room's state and the same counters: no slot left this minute.
  const two = worker(kv, 'e2e', { totalActiveUsers: 2, newUsersPerMinute: 2 })
  expect(await admitted(await two.request())).toBe(false)
  await two.settled()
  const view = await denoKvCoordinator(kv).sync({ id: 'probe', roomId: 'e2e', location: 'fra', at: now, keepMinutes: 10, deltas: {} })
  expect(view.locations.fra?.counts[`a${Math.floor(NOW / 60_000)}`]).toBe(2)
  expect(view.locations.fra?.counts[`n${Math.floor(NOW / 60_000)}`]).toBe(2)
})

Deno.test('middleware on Deno KV behind Deno.serve', async () => {
  using kv = await Deno.openKv(':memory:')
  const one = worker(kv, 'serve', { totalActiveUsers: 1, newUsersPerMinute: 1 })
  const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen: () => {} }, one.fetch)
  try {
    const url = `http://127.0.0.1:${server.addr.port}/`
    const first = await fetch(url)
    expect(await first.text()).toBe('origin')
    const second = await fetch(url)
    expect(second.status).toBe(200)
    expect((await second.text()).includes('origin')).toBe(false)
    expect(second.headers.get('refresh') !== null).toBe(true)
  } finally {
    await server.shutdown()
    await one.settled()
  }
})

/** Fires `total` first requests at once, spread over `isolates` workers; returns how many were admitted. */
async function admitConcurrently(isolates: number, total: number, limit: number): Promise<number> {
  now = NOW
  using kv = await Deno.openKv(':memory:')
  // A generous timeout: on two busy cores a late round must not fail closed and hide a slot.
  const workers = Array.from({ length: isolates }, () =>
    worker(kv, 'rush', { totalActiveUsers: limit, newUsersPerMinute: limit, coordinatorTimeoutMs: 20_000 }),
  )
  const responses = await Promise.all(Array.from({ length: total }, (_, i) => workers[i % isolates]!.request()))
  const outcomes = await Promise.all(responses.map(admitted))
  await Promise.all(workers.map((w) => w.settled()))
  return outcomes.filter(Boolean).length
}

Deno.test('1,000 concurrent decisions at a limit of 200 admit exactly 200 (one isolate)', async () => {
  expect(await admitConcurrently(1, 1000, 200)).toBe(200)
})

Deno.test('1,000 concurrent decisions at a limit of 200 admit exactly 200 (four isolates racing on one KV)', async () => {
  expect(await admitConcurrently(4, 1000, 200)).toBe(200)
})
