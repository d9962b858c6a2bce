/**
 * break14h — liveness of one split per minute for a COLD process (README: "A worker holding no reference for the
 * minute grants no new slot: the request waits for one sync (at most coordinatorTimeoutMs)").
 * A cold worker proposes no reference on its first sync (it has no state to make a table from, worker-link.ts
 * #propose), and the stores answer references only to proposals, so its first newcomer waits for the state
 * (ready()), then for a second exchange that proposes the reference (awaitReference), then for the grant.
 * Store `d` ms away (every call), coordinatorTimeoutMs T: the first newcomer's wait, and whether it got a slot.
 * HELD: admitted in two round trips (506 ms at d 250, 806 ms at d 400 with T 600 — more than T in all, but each wait
 * within its own bound); memory and SQLite.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { closeBackends, coordinatorFor, type Backend } from '../break14d/backends.ts'
import { MINUTE, sleep, slowCoordinator, worker } from '../break14d/slow.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

async function firstNewcomer(backend: Backend, d: number, T: number) {
  const inner = await coordinatorFor(backend)
  const clock = { now: 29_900_000 * MINUTE + 5_000 + Math.floor(Math.random() * 1000) * MINUTE * 10 }
  const roomId = `b14h-cold-${backend}-${crypto.randomUUID().slice(0, 6)}`
  const options = { totalActiveUsers: 10, newUsersPerMinute: 10, sessionDurationMinutes: 2, failMode: 'closed' as const, coordinatorTimeoutMs: T, syncIntervalMs: 0 }
  // A warm worker has made the room (state, traffic, this minute's reference fixed).
  const warm = worker(inner, clock, roomId, options)
  for (let i = 0; i < 3; i++) await warm(undefined)
  await sleep(50)
  const cold = worker(slowCoordinator(inner, { syncMs: d, grantMs: d }), clock, roomId, options)
  const started = performance.now()
  const r = await cold(undefined)
  return { backend, d, T, ms: Math.round(performance.now() - started), reason: r.reason }
}

describe('break14h: a cold process\'s first newcomer waits at most one sync for the reference', () => {
  for (const backend of ['memory', 'sqlite'] as Backend[]) {
    it(`${backend}: store 250 ms away, T 600 — admitted, and within the state sync + one reference sync + the grant`, async () => {
      const out = await firstNewcomer(backend, 250, 600)
      console.log(JSON.stringify(out))
      expect(out.reason).toBe('slot')
      expect(out.ms, JSON.stringify(out)).toBeLessThan(3 * 250 + 150)
    }, 20_000)
    it(`${backend}: store 400 ms away, T 600 — the newcomer is admitted (a slow store is not a full room)`, async () => {
      const out = await firstNewcomer(backend, 400, 600)
      console.log(JSON.stringify(out))
      expect(out.reason, JSON.stringify(out)).toBe('slot')
    }, 20_000)
  }
})
