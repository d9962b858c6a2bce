/** break14b — item 3 on Redis (--redis, a redis-server of our own on 7391): SIGKILL at random moments, two seeds. See crash-random.ts. */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { crashRun, LIMIT } from './crash-random.ts'
import { killAllStarted, startRedis } from './procs.ts'

let redis: Awaited<ReturnType<typeof startRedis>>
beforeAll(async () => { redis = await startRedis(7391) })
afterAll(async () => { await redis?.stop(); killAllStarted() })
// The two seeds run at the same time: separate rooms, origins and proxies, mostly asleep (a run uses about a fifth of
// a core, measured), and the bound is a safety one, whatever the timing.
describe.concurrent('break14b: SIGKILL proxies at random moments (Redis)', () => {
  for (const seed of [1411, 1412]) {
    it(`seed ${seed}: never more than ${LIMIT} users served in any 20 s window`, async ({ expect }) => {
      const out = await crashRun({ redis: redis.url }, seed)
      console.log(`redis seed ${seed}:`, JSON.stringify({ worst: out.worst, kills: out.kills, usersServed: out.usersServed, maxLagFakeMs: out.maxLagFakeMs }))
      expect(out.worst.count).toBeLessThanOrEqual(LIMIT)
    }, 60_000)
  }
})
