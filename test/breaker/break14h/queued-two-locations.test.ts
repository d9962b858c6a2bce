/**
 * break14h — the class behind reenter-locations.test.ts, on the newcomer path: a QUEUED ticket's cookie sent at two
 * locations at once (L0 and L1) when its turn comes. The grant step dedupes the ticket's token per counter on memory
 * and SQLite (Redis: per room and minute), so one counter grants it by L0's location share and the other by the
 * Anywhere pool: one ticket takes two of the minute's slots, and is counted active twice.
 * Minute m: 40 arrivals at L0 and L1 in a room taking n a minute (n admitted, the rest queued, Q among them). m+1:
 * Q's cookie at B (L0) and C (L1) at once. Expected: one fresh grant for Q's ticket.
 * BROKE on memory and SQLite (Redis holds): 2 fresh grants (L0's location counter, then Anywhere at L1) — a place
 * taken from another queued user and counted active twice (an over-count, never above the limit).
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { Coordinator } from '../../../src/index.ts'
import { closeBackends, coordinatorFor, type Backend } from '../break14d/backends.ts'
import { MINUTE, sleep } from '../break14d/slow.ts'
import { locatedWorker } from './located.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

async function run(backend: Backend, n: number, second: 'L0' | 'L1') {
  const inner = await coordinatorFor(backend)
  const m = 29_700_000 + Math.floor(Math.random() * 5000) * 20
  const clock = { now: m * MINUTE + 1_000 }
  const roomId = `b14h-q2-${backend}-${crypto.randomUUID().slice(0, 6)}`
  const options = { totalActiveUsers: 30, newUsersPerMinute: n, sessionDurationMinutes: 3, failMode: 'closed' as const, coordinatorTimeoutMs: 1_000, syncIntervalMs: 0 }
  const fresh: string[] = []
  let watching = false // the grants of Q's two requests (the same cookie: one token)
  const spy: Coordinator = { ...inner, name: 'spy', increment: (r) => inner.increment(r), sync: (r) => inner.sync(r), takeSlot: async (r) => { const a = await inner.takeSlot!(r); if (watching && a.admitted && !a.repeat) fresh.push(`${r.token.slice(0, 6)}:${r.location}:${a.via}`); return a } }
  const B = locatedWorker(spy, clock, roomId, options)
  const C = locatedWorker(spy, clock, roomId, options)
  const arrivals = []
  for (let i = 0; i < 40; i++) arrivals.push(await (i % 2 ? C('L1') : B('L0')))
  const q = arrivals.find((a) => !a.admitted && a.fresh)
  if (!q) throw new Error('setup: nobody queued')
  // m + 2: the reference minute (m) saw both locations; Q's refresh is due.
  clock.now = (m + 2) * MINUTE + 1_000
  watching = true
  const rs = await Promise.all([B('L0', q.fresh), C(second, q.fresh)])
  return { backend, n, second, reasons: rs.map((r) => r.reason).join(','), grants: fresh.join(' '), fresh: fresh.length }
}

describe('break14h: one queued ticket at two locations at once takes one slot', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
    it(`${backend}: control — both at L0`, async () => {
      const out = await run(backend, 6, 'L0')
      expect(out.fresh, JSON.stringify(out)).toBe(1)
    }, 20_000)
    it(`${backend}: at L0 and L1`, async () => {
      const out = await run(backend, 6, 'L1')
      console.log(JSON.stringify(out))
      expect(out.fresh, JSON.stringify(out)).toBe(1)
    }, 20_000)
  }
})
