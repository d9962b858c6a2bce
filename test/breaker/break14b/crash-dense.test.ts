/**
 * break14b — item 3, denser: every proxy killed at once (a host crash) every 5–12 s (fake), a room of 20 (20 new per minute), arrivals every 0.1–0.4 s,
 * stays of 5–20 s, so kills land among grants and renewals; SQLite and Redis (own redis-server on 7395). See
 * crash-random.ts for the ground truth (≤ 20 distinct users served in any 20 s window).
 */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { crashRun, sqliteStore } from './crash-random.ts'
import { killAllStarted, startRedis } from './procs.ts'

let redis: Awaited<ReturnType<typeof startRedis>>
beforeAll(async () => { redis = await startRedis(7395) })
afterAll(async () => { await redis?.stop(); killAllStarted() })
const dense = { limit: 20, fakeMinutes: 2.5, stay: [5000, 20_000] as [number, number], killEvery: [5000, 12_000] as [number, number], killAll: true, arrivalEvery: [100, 400] as [number, number] }
// SQLite and Redis run at the same time (as crash-random-*.test.ts): separate rooms, origins and proxies, and the
// bound counts only requests sent within 40 s (fake) of the window, so it holds however slow the processes were.
// One after the other 41 s, side by side 29–32 s under load 7–13 (README "Development").
describe.concurrent('break14b: all proxies SIGKILLed together, often, among grants', () => {
  it('SQLite', async ({ expect }) => {
    const out = await crashRun({ store: sqliteStore() }, 1451, dense)
    console.log('dense sqlite:', JSON.stringify({ worst: out.worst, lag: out.maxLagFakeMs, kills: out.kills, served: out.usersServed }))
    if (out.worst.count > dense.limit) for (const u of out.worst.users) console.log('TRACE', u, (out.trace.get(u) ?? []).join(' '))
    expect(out.worst.count).toBeLessThanOrEqual(dense.limit)
  }, 60_000)
  it('Redis', async ({ expect }) => {
    const out = await crashRun({ redis: redis.url }, 1452, dense)
    console.log('dense redis:', JSON.stringify({ worst: out.worst, lag: out.maxLagFakeMs, kills: out.kills, served: out.usersServed }))
    if (out.worst.count > dense.limit) for (const u of out.worst.users) console.log('TRACE', u, (out.trace.get(u) ?? []).join(' '))
    expect(out.worst.count).toBeLessThanOrEqual(dense.limit)
  }, 60_000)
})
