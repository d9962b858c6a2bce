/** break14b — item 2 on Redis (own redis-server on 7392), three processes: see revoke-procs.ts. */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { killAllStarted, startRedis } from './procs.ts'
import { revokeRun } from './revoke-procs.ts'

let redis: Awaited<ReturnType<typeof startRedis>>
beforeAll(async () => { redis = await startRedis(7392) })
afterAll(async () => { await redis?.stop(); killAllStarted() })
// The two seeds run at the same time: separate rooms, origins and proxies, idle between their few requests (CI
// wall time: 41–46 s one after the other, 24–36 s side by side under load 7–13; README "Development").
describe.concurrent('break14b: one ticket revoked from 3 processes, old and renewed cookies, across a minute boundary (Redis)', () => {
  for (const [seed, racing] of [[1431, false], [1432, true]] as const) {
    it(`seed ${seed}${racing ? ', renewals racing the revokes' : ', revokes only'}: exactly one place freed`, async ({ expect }) => {
      const out = await revokeRun({ redis: redis.url }, seed, racing)
      console.log(`redis revoke seed ${seed}:`, JSON.stringify(out))
      expect(out.distinctCookies).toBe(3)
      const placesTaken = out.admittedNew + (out.aBack ? 1 : 0)
      // Never more than one place freed. With renewals racing the revokes, a renewal that did not know of the
      // revocation may count the session again (README Known limits, "A stale renewal of a revoked ticket
      // over-counts"): then none is freed until that count leaves the session window — safe, never over the limit.
      expect({ moreThanOneFreed: placesTaken > 1, oneFreed: placesTaken === 1 || racing, bStill: out.bStill, cStill: out.cStill })
        .toEqual({ moreThanOneFreed: false, oneFreed: true, bStill: true, cStill: true })
    }, 60_000)
  }
})
