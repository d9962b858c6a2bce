/**
 * breaklimits (b): a backend that loses its state twice in a row (a crash-looping store) while sessions from
 * before the first loss are live. The grant step must keep refusing until those sessions have expired.
 * Room of 3, all 3 taken; lost; a new user (queued: recovering); lost again; an old session checks in; then
 * 6 new users over two workers. Expected: none admitted (3 sessions from before still live: 5-minute sessions).
 * Observed: memory coordinator (swapped for an empty one: the model test/guarantees.test.ts uses for "a backend
 * that comes back empty") admits 3 new users while the 3 sessions from before live (6 in a room of 3) when an
 * old session checks in first after the second loss; SQLite and Redis hold (kept as regression guards).
 * Both workers are warm (each synced with the first state); a cold worker is a documented known limit.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { losableRedis, losableSqlite } from '../../support/losable.ts'
import { losable, START, worker } from '../harness.ts'

const redis = losableRedis('breaklimits')
afterAll(() => redis.close())

const backends = [
  ['memory', async () => losable()],
  ['sqlite', async () => losableSqlite()],
  ['redis', async () => (await redis.connect(), redis.make())],
] as const

describe('two losses in a row', () => {
  for (const [name, make] of backends) for (const firstAfter of ['old session', 'new user'] as const) {
    it(`${name}, first after the second loss: ${firstAfter}: no grant while sessions from before the first loss live`, async () => {
      const backend = await make()
      const clock = { now: START + 1000 }
      const opts = { totalActiveUsers: 3, newUsersPerMinute: 100, sessionDurationMinutes: 5, syncIntervalMs: 0 }
      const w = worker(backend.coordinator, clock, opts)
      const w2 = worker(backend.coordinator, clock, opts)
      const old = [await w.request(), await w2.request(), await w.request()] // both workers warm: each knew the first state
      expect(old.map((r) => r.reason)).toEqual(['slot', 'slot', 'slot'])
      clock.now += 10_000
      await backend.lose()
      expect((await w.request()).admitted).toBe(false) // recovering
      clock.now += 10_000
      await backend.lose()
      clock.now += 10_000
      const reasons: (string | null)[] = []
      if (firstAfter === 'new user') reasons.push((await w2.request()).reason)
      expect((await w.request(old[0]!.cookie)).admitted).toBe(true) // an old session is still in
      for (let i = 0; i < 6; i++) {
        clock.now += 1000
        reasons.push((await (i % 2 ? w2 : w).request()).reason)
      }
      expect(reasons.filter((r) => r !== null)).toEqual([]) // nobody new while 3 sessions from before live
    })
  }
})
