/**
 * break14g — a slow store (every call within coordinatorTimeoutMs) taken for a failing one when a worker serves
 * several locations (`location: (c) => …`, e.g. by region header). An exchange sends one report per location, one
 * after another, each bounded by T; the untimed renewal wait gives up after 2 T + 100 ms (worker-link.ts
 * EXCHANGE_SLACK_MS), and a give-up with the move still in flight marks the worker failing.
 * Attack: 1-minute sessions, T = 1000, the store answers each sync 650 ms late (applied on arrival). Minute m+1 at
 * worker B: u0 (location a) renews — exchange 1; 30 ms later u1, u2, u3 (locations a, b, c) renew — their moves go
 * out in exchange 2: three reports, ~1.95 s; their wait (from 30 ms to ~2.6 s) gives up at 2.1 s: pending cookies,
 * B failing. Then the other users renew at B: pending at once. B is SIGKILLed at once (the rest of exchange 2 and
 * everything after never reach the store). Minute m+2 at A: newcomers, then everyone. Expected: nobody handed a
 * renewal logged out (a slow store is waited for), never above n. Control: one location.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import { waitingRoom, type Coordinator, type WaitingRoomEnv, type WaitingRoomOptions } from '../../../src/index.ts'
import { MINUTE, SECRET, slowKillable, sleep } from '../break14e/support.ts'

function located(coordinator: Coordinator, clock: { now: number }, roomId: string, options: WaitingRoomOptions) {
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', waitingRoom({ secret: SECRET, roomId, clock: () => clock.now, coordinator, location: (c) => c.req.header('x-loc') ?? 'a', ...options }))
  app.all('*', (c) => c.text(`${c.get('waitingRoom').reason} ${c.get('waitingRoom').ticketId ?? ''}`))
  return async (cookie: string | undefined, loc: string) => {
    const response = await app.request('/', { headers: { 'x-loc': loc, ...(cookie ? { cookie: `__wroom=${cookie}` } : {}) } })
    const [reason, ticketId] = (await response.text()).split(' ')
    const set = response.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    const fresh = set ? set.slice(8, set.indexOf(';')) || undefined : undefined
    return { admitted: reason === 'slot' || reason === 'session', ticketId: ticketId ?? '', fresh }
  }
}

async function run(locations: string[], seed: number) {
  const n = 6
  const T = 1_000
  const inner = memoryCoordinator()
  const m = 29_800_000 + seed * 10
  const clock = { now: m * MINUTE + 5_000 }
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: 1, failMode: 'closed' as const, coordinatorTimeoutMs: T, syncIntervalMs: 100 }
  const roomId = `b14g-loc-${locations.length}-${seed}`
  const A = located(inner, clock, roomId, options)
  const slow = { syncMs: 0 }
  const b = slowKillable(inner, slow)
  const B = located(b.coordinator, clock, roomId, options)
  const loc = (i: number) => locations[i % locations.length]!
  const users: { cookie?: string | undefined; ticket: string; handed: boolean }[] = []
  for (let i = 0; i < n; i++) {
    const r = await A(undefined, loc(i))
    users.push({ cookie: r.fresh, ticket: r.ticketId, handed: false })
  }
  for (const l of locations) await B(users[0]!.cookie, l)
  await sleep(50)
  clock.now = (m + 1) * MINUTE + 5_000
  slow.syncMs = 650
  const t0 = performance.now()
  const first = B(users[0]!.cookie, 'a')
  await sleep(30)
  const second = Promise.all([1, 2, 3].map((i) => B(users[i]!.cookie, loc(i - 1))))
  const rest = await Promise.race([second.then(() => Promise.all([4, 5].map((i) => B(users[i]!.cookie, loc(i))))), sleep(2_300).then(() => Promise.all([4, 5].map((i) => B(users[i]!.cookie, loc(i)))))])
  const secondDone = await Promise.race([second, sleep(10).then(() => undefined)])
  const at = Math.round(performance.now() - t0)
  b.kill()
  const answered = [await first, ...(secondDone ?? []), ...rest]
  for (const [k, i] of [0, ...(secondDone ? [1, 2, 3] : []), 4, 5].entries()) { users[i]!.handed = true; const r = answered[k]!; if (r.fresh && r.ticketId === users[i]!.ticket) users[i]!.cookie = r.fresh }
  await sleep(1_500)
  clock.now = (m + 2) * MINUTE + 5_000
  let newcomers = 0
  for (let i = 0; i < n; i++) if ((await A(undefined, loc(i))).admitted) newcomers++
  let back = 0
  let lost = 0
  for (const [i, u] of users.entries()) { const r = await A(u.cookie, loc(i)); if (r.admitted && r.ticketId === u.ticket) back++; else if (u.handed) lost++ }
  return { locations: locations.length, killedAt: at, handed: users.filter((u) => u.handed).length, newcomers, back, served: newcomers + back, lost }
}

describe('break14g: a slow store and a worker serving several locations — the 2 T + 100 ms backstop takes it for failing', () => {
  it('3 locations: nobody handed a renewal logged out, never above n', async () => {
    const out = await run(['a', 'b', 'c'], 1)
    console.log(JSON.stringify(out))
    expect(out.served).toBeLessThanOrEqual(6)
    expect(out.lost, JSON.stringify(out)).toBe(0)
  }, 30_000)
  it('control (holds): one location', async () => {
    const out = await run(['a'], 2)
    console.log(JSON.stringify(out))
    expect(out.served).toBeLessThanOrEqual(6)
    expect(out.lost).toBe(0)
  }, 30_000)
})
