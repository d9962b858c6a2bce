/**
 * break14e — (a) a store restored from an older copy, while users keep renewing: the room never serves more than
 * totalActiveUsers in any minute afterwards. Generated: sessions of 1–3 minutes, copies 0–5 minutes old, 1–3 workers,
 * same or restarted fleet, SQLite and Redis; after the restore, for D + 3 minutes, the users (still holding a
 * session) check in, then newcomers arrive. Counted per minute: distinct tickets served. HOLDS (guard): never above 3.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { restorableRedis, restorableSqlite, type Restorable } from '../../support/losable.ts'
import { worker } from '../harness.ts'
import { MINUTE } from './support.ts'

const redis = restorableRedis('b14e-rlimit')
beforeAll(() => redis.connect())
afterAll(() => redis.close())

async function over(backend: Restorable, c: { D: number; age: number; workers: number; restarted: boolean; seed: number }) {
  const n = 3
  const room = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: c.D, syncIntervalMs: 0 }
  const m = 29_700_000 + c.seed * 40
  const clock = { now: m * MINUTE + 3_000 }
  let fleet = Array.from({ length: c.workers }, () => worker(backend.coordinator, clock, room))
  const flush = async () => { for (const w of fleet) await w.room.room.flush() }
  let users: { cookie: string | undefined }[] = []
  for (let i = 0; i < n; i++) users.push({ cookie: (await fleet[i % c.workers]!.request()).cookie })
  const minuteOf = async (minute: number, newcomers: boolean) => {
    clock.now = minute * MINUTE + 4_000 + c.seed * 50
    let served = 0
    const kept: typeof users = []
    for (const [i, u] of users.entries()) {
      const r = await fleet[(i + minute) % c.workers]!.request(u.cookie)
      if (r.reason === 'session' || r.reason === 'slot') { served++; kept.push({ cookie: r.cookie }) }
    }
    if (newcomers) for (let i = 0; i < n; i++) {
      const r = await fleet[i % c.workers]!.request()
      if (r.reason === 'slot') { served++; kept.push({ cookie: r.cookie }) }
    }
    users = kept
    await flush()
    return served
  }
  await flush()
  await minuteOf(m + 1, false)
  await backend.backup()
  for (let k = 1; k <= c.age; k++) await minuteOf(m + 1 + k, false)
  await backend.restore()
  if (c.restarted) fleet = Array.from({ length: c.workers }, () => worker(backend.coordinator, clock, room))
  const bad: string[] = []
  let total = 0
  for (let k = 1; k <= c.D + 3; k++) {
    const served = await minuteOf(m + 1 + c.age + k, true)
    total += served
    if (served > n) bad.push(`+${k}: ${served}`)
  }
  return { bad, total }
}

describe('break14e: a store restored from an older copy never lets the room exceed totalActiveUsers', () => {
  const cases: [string, () => Restorable][] = [['SQLite', restorableSqlite], ['Redis', () => redis.make()]]
  for (const [name, make] of cases) {
    it(`${name}: generated session lengths, copy ages, fleets`, async () => {
      let seed = 0
      let total = 0
      await fc.assert(
        fc.asyncProperty(fc.record({ D: fc.integer({ min: 1, max: 3 }), age: fc.integer({ min: 0, max: 5 }), workers: fc.integer({ min: 1, max: 3 }), restarted: fc.boolean() }), async (c) => {
          const out = await over(make(), { ...c, seed: ++seed })
          total += out.total
          expect(out.bad).toEqual([])
        }),
        { numRuns: name === 'Redis' ? 15 : 25, seed: 1414 },
      )
      console.log(`${name}: ${total} tickets served over all minutes after the restores`)
      expect(total, 'not vacuous: users served after the restores').toBeGreaterThan(40)
    }, 120_000)
  }
})
