/**
 * #14, open case 3: a worker whose clock lags, creating the room's new epoch after a loss, dates the new state
 * by its own clock. Sessions of the lost state renewed within that lag were judged "newer than the state"
 * (the clock margin was 5 s) and the loss stayed hidden from every worker that had not known the old state;
 * and the recovery, dated by that early start, ended before the forgotten sessions did. On a shared backend a
 * session of another epoch is now a loss whatever the clocks, dated no earlier than its own last check-in.
 * Generated lags (0–120 s) and skews, on a shared stand-in (the memory coordinator's state without its
 * process-local mark), SQLite (better-sqlite3) and Redis.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { losableRedis, losableSharedMemory, losableSqlite, type Losable } from './support/losable.ts'
import { worker, START, MINUTE } from './breaker/harness.ts'

const redis = losableRedis('clock-lag')
beforeAll(() => redis.connect())
afterAll(() => redis.close())

const ROOM = { totalActiveUsers: 3, newUsersPerMinute: 100, sessionDurationMinutes: 2, syncIntervalMs: 0 }

/**
 * Three users admitted at `START + 1 s`; the backend loses its state `gapMs` later. A new fleet starts: its first
 * sync comes from a worker `lagMs` behind, which creates the new epoch (and admits a newcomer: inherent); an old
 * session then checks in at another worker (skewed by `skewMs`). Until the old sessions have expired, no
 * newcomer may get in anywhere. Answers the newcomers admitted after the old session showed up.
 */
async function admittedDuringRecovery(backend: Losable, lagMs: number, skewMs: number, gapMs: number, workers: number): Promise<number> {
  const clock = { now: START + 1000 }
  const before = worker(backend.coordinator, clock, ROOM)
  const users = [await before.request(), await before.request(), await before.request()]
  expect(users.every((u) => u.reason === 'slot')).toBe(true)
  await before.room.room.flush()
  clock.now += gapMs
  await backend.lose()
  const lagging = worker(backend.coordinator, { get now() { return clock.now - lagMs } }, ROOM)
  await lagging.request() // the new state begins with this sync, dated by the lagging clock
  await lagging.room.room.flush()
  const fleet = Array.from({ length: workers }, (_, i) => worker(backend.coordinator, { get now() { return clock.now + (i % 2 ? skewMs : -skewMs) } }, ROOM))
  clock.now += 500
  expect((await fleet[0]!.request(users[0]!.cookie)).reason).toBe('session')
  for (const w of fleet) await w.room.room.flush()
  let admitted = 0
  // The old sessions were last counted in START's minute: they live through minute START + 2 sessions' worth.
  for (clock.now += 10_000; clock.now < START + 3 * MINUTE - 3000; clock.now += 20_000) {
    for (const w of [lagging, ...fleet]) {
      await w.room.room.flush()
      if ((await w.request()).reason === 'slot') admitted++
    }
  }
  return admitted
}

const backends: [string, () => Losable][] = [['shared memory', losableSharedMemory], ['SQLite (better-sqlite3)', losableSqlite], ['Redis', () => redis.make()]]

describe('a lagging clock creating the new epoch hides no loss', () => {
  for (const [name, backend] of backends) {
    it(`${name}: generated lags 0–120 s, skews, gaps and fleets — no newcomer while the lost sessions live`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 120_000 }),
          fc.integer({ min: 0, max: 2000 }),
          fc.integer({ min: 0, max: 10_000 }),
          fc.integer({ min: 1, max: 3 }),
          async (lagMs, skewMs, gapMs, workers) => {
            expect(await admittedDuringRecovery(backend(), lagMs, skewMs, gapMs, workers)).toBe(0)
          },
        ),
        { numRuns: name === 'Redis' ? 12 : 30, seed: 314 },
      )
    }, 120_000)
  }

  it('named: a creator 30 s behind, the old session renewed 1 s before the loss', async () => {
    for (const [, backend] of backends) expect(await admittedDuringRecovery(backend(), 30_000, 0, 1000, 2)).toBe(0)
  })
})
