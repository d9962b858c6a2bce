/** break14b — item 2 on Redis (own redis-server on 7392), three processes: see revoke-procs.ts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { killAllStarted, startRedis } from './procs.ts'
import { revokeRun } from './revoke-procs.ts'

let redis: Awaited<ReturnType<typeof startRedis>>
beforeAll(async () => { redis = await startRedis(7392) })
afterAll(async () => { await redis?.stop(); killAllStarted() })
describe('break14b: one ticket revoked from 3 processes, old and renewed cookies, across a minute boundary (Redis)', () => {
  for (const [seed, racing] of [[1431, false], [1432, true]] as const) {
    it(`seed ${seed}${racing ? ', renewals racing the revokes' : ', revokes only'}: exactly one place freed`, async () => {
      const out = await revokeRun({ redis: redis.url }, seed, racing)
      console.log(`redis revoke seed ${seed}:`, JSON.stringify(out))
      expect(out.distinctCookies).toBe(3)
      expect({ placesTaken: out.admittedNew + (out.aBack ? 1 : 0), bStill: out.bStill, cStill: out.cStill }).toEqual({ placesTaken: 1, bStill: true, cStill: true })
    }, 60_000)
  }
})
