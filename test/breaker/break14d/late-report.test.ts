/**
 * break14d — a renewal's report that lands AFTER a later renewal of the same ticket (a worker paused or its network
 * slow: the report was made in minute m+1, delivered after another worker moved the ticket to m+1+d). The move must
 * not take the ticket's one count back to an older minute (it would leave the window early while the user holds a
 * newer cookie: newcomers then fill the place). Generated: many seeds, room sizes, 1/2/5-minute sessions, on memory,
 * SQLite and Redis. After the late report lands, at each later minute while the newest cookies are valid, the
 * users check in with their newest cookies and then newcomers arrive: served tickets ≤ totalActiveUsers.
 */
import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import { waitingRoom, type Coordinator, type WaitingRoomEnv, type WaitingRoomOptions } from '../../../src/index.ts'
import { rng } from '../break14b/procs.ts'
import { closeBackends, coordinatorFor, type Backend } from './backends.ts'
import { MINUTE, SECRET } from './slow.ts'

const START = Date.UTC(2026, 10, 30, 12, 0, 0)
afterAll(() => closeBackends())

function holdable(inner: Coordinator) {
  const held: (() => void)[] = []
  const gate = { on: false }
  const wrap: Coordinator = {
    name: 'holdable',
    increment: (r) => inner.increment(r),
    takeSlot: (r) => inner.takeSlot!(r),
    sync: async (r) => { if (gate.on) await new Promise<void>((res) => held.push(res)); return inner.sync(r) },
  }
  return { coordinator: wrap, hold: () => (gate.on = true), release: () => { gate.on = false; for (const r of held.splice(0)) r() } }
}

function app(coordinator: Coordinator, clock: { now: number }, roomId: string, options: WaitingRoomOptions) {
  const a = new Hono<WaitingRoomEnv>()
  a.use('*', waitingRoom({ secret: SECRET, roomId, clock: () => clock.now, coordinator, coordinatorTimeoutMs: 150, ...options }))
  a.all('*', (c) => c.text(`${c.get('waitingRoom').reason} ${c.get('waitingRoom').ticketId ?? ''}`))
  return async (cookie?: string) => {
    const res = await a.request('/', { headers: cookie ? { cookie: `__wroom=${cookie}` } : {} })
    const [reason, ticketId] = (await res.text()).split(' ')
    const set = res.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    return { admitted: reason === 'slot' || reason === 'session', ticketId: ticketId!, fresh: set ? set.slice(8, set.indexOf(';')) || undefined : undefined }
  }
}
const settle = (ms = 30) => new Promise((r) => setTimeout(r, ms))

async function run(backend: Backend, seed: number) {
  const random = rng(seed)
  const n = 2 + Math.floor(random() * 3)
  const session = [1, 2, 5][Math.floor(random() * 3)]!
  const clock = { now: START + seed * 7 * MINUTE + 2_000 + Math.floor(random() * 20_000) }
  const inner = await coordinatorFor(backend)
  const slowA = holdable(inner)
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: session, failMode: 'closed' as const }
  const roomId = `late-${seed}`
  const A = app(slowA.coordinator, clock, roomId, options)
  const B = app(inner, clock, roomId, options)
  const users: { cookie?: string }[] = []
  for (let i = 0; i < n; i++) { const r = await B(); if (!r.admitted) throw new Error('setup'); users.push({ cookie: r.fresh }) }
  await settle()
  const m0 = Math.floor(clock.now / MINUTE)
  // Renew at A in a generated minute of the session (its report held), then at B d minutes later (answered).
  const at1 = m0 + 1 + Math.floor(random() * session)
  clock.now = at1 * MINUTE + Math.floor(random() * 50_000)
  slowA.hold()
  const olds = users.map((u) => u.cookie)
  const viaA = await Promise.all(users.map((u) => A(u.cookie)))
  viaA.forEach((r, i) => { if (r.admitted && r.fresh) users[i]!.cookie = r.fresh })
  const d = 1 + Math.floor(random() * session)
  clock.now = (at1 + d) * MINUTE + Math.floor(random() * 50_000)
  // the user sends the cookie it holds (A's pending one, or the old one if A kept it); replays the oldest sometimes
  const viaB = await Promise.all(users.map((u, i) => B(random() < 0.3 ? olds[i] : u.cookie)))
  viaB.forEach((r, i) => { if (r.admitted && r.fresh) users[i]!.cookie = r.fresh })
  await settle()
  slowA.release() // A's report of minute at1 lands now
  await settle(60)
  const valid = viaB.filter((r) => r.admitted).length
  const over: string[] = []
  for (let m = at1 + d + 1; m <= at1 + d + session; m++) {
    clock.now = m * MINUTE + 1_000 + Math.floor(random() * 30_000)
    const back = []
    for (const u of users) { const r = await B(u.cookie); if (r.admitted && r.fresh) u.cookie = r.fresh; back.push(r) }
    const newcomers = []
    for (let i = 0; i < n; i++) newcomers.push(await B())
    await settle()
    const served = back.filter((r) => r.admitted).length + newcomers.filter((r) => r.admitted).length
    if (served > n) over.push(`minute +${m - m0}: ${served} served (${back.filter((r) => r.admitted).length} back + ${newcomers.filter((r) => r.admitted).length} new)`)
  }
  return { backend, seed, n, session, at1: at1 - m0, d, validAfterB: valid, over }
}

// Fixed by the move registers (issue 14 item 3: compare-and-move, src/coordination/moves.ts): runs by default.
describe.concurrent('break14d: a late report never moves a ticket back to an older minute', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as const) {
    it(`${backend}: 12 seeds, served ≤ totalActiveUsers every minute after the late report`, async () => {
      const bad = []
      let valid = 0
      for (let seed = 1; seed <= 12; seed++) {
        const out = await run(backend, seed)
        valid += out.validAfterB
        if (out.over.length) bad.push(JSON.stringify(out))
      }
      expect(bad).toEqual([])
      expect(valid, 'users still holding a session after the later renewal (not vacuous)').toBeGreaterThan(20)
    }, 60_000)
  }
})
