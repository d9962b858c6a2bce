/**
 * break14e — (d) a worker keeps every renewal of a long coordinator outage in memory: users × minutes, unbounded.
 * Promise (task (d): "memory stays bounded … per-worker state bounded at high ticket rates"; README renewal row: an
 * outage never logs out admitted users, counts made during it are reported once it ends). Before the move registers,
 * a worker's unreported renewals were per-field counts (a few fields a minute, whatever the users); now each renewal is
 * a Move kept in the link's unacknowledged reports (plus an in-flight key) until a report gets through — a later move
 * of the same ticket does not replace an earlier one, although the register needs only the latest (with its pending).
 * Attack: N admitted users (1-minute sessions), the store down (every call throws); each user checks in once a minute
 * for M minutes (all served: pending cookies); then the store comes back and the worker's backlog is counted as it
 * arrives (the moves its reports carry). Observed: N × M moves (500 × 10 = 5,000 for 500 tickets), i.e. the worker
 * held every one. Heap measured separately (2,000 users, 16 minutes, full GC, compared with the store up): +~130 bytes
 * per user and minute of outage — 100,000 users through a one-hour outage ≈ 0.8 GB per worker.
 * Expected: what a worker keeps is bounded by its tickets (≤ 2 moves per ticket), not by the outage's length.
 */
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import type { Coordinator } from '../../../src/index.ts'
import { MINUTE, sleep, worker } from './support.ts'

async function backlog(n: number, minutes: number) {
  const inner = memoryCoordinator()
  const store = { down: false, moves: 0 }
  const coordinator: Coordinator = {
    name: 'down',
    increment: (r) => (store.down ? Promise.reject(new Error('down')) : inner.increment(r)),
    takeSlot: (r) => (store.down ? Promise.reject(new Error('down')) : inner.takeSlot!(r)),
    sync: (r) => {
      if (store.down) return Promise.reject(new Error('down'))
      store.moves += r.moves?.length ?? 0
      return inner.sync(r)
    },
  }
  const m = 29_600_000 + n
  const clock = { now: m * MINUTE + 1_000 }
  const A = worker(coordinator, clock, `outage-backlog-${n}-${minutes}`, { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: 1, syncIntervalMs: 10 })
  const users: (string | undefined)[] = []
  for (let i = 0; i < n; i++) users.push((await A(undefined)).fresh)
  await sleep(50)
  store.down = true
  for (let k = 1; k <= minutes; k++) {
    clock.now = (m + k) * MINUTE + 1_000
    for (let i = 0; i < n; i++) {
      const r = await A(users[i])
      if (!r.admitted) throw new Error(`minute ${k}: user ${i} not served`)
      if (r.fresh) users[i] = r.fresh
    }
  }
  store.down = false
  store.moves = 0
  clock.now += 20_000
  await A(users[0]) // a request: the worker reports again
  for (let i = 0; i < 100 && store.moves < n * minutes; i++) await sleep(20)
  await sleep(100)
  return store.moves
}

describe('break14e: a worker through a long outage keeps what is bounded by its tickets', () => {
  it('500 users, 10 minutes of outage: the backlog holds ≤ 2 moves per ticket', async () => {
    const moves = await backlog(500, 10)
    console.log(JSON.stringify({ tickets: 500, minutes: 10, movesHeld: moves }))
    expect(moves).toBeLessThanOrEqual(2 * 500)
  }, 60_000)
})
