/** break14b — item 2 on SQLite (--store), three processes: see revoke-procs.ts. */
import { join } from 'node:path'
import { afterAll, describe, it } from 'vitest'
import { killAllStarted, tmp } from './procs.ts'
import { revokeRun } from './revoke-procs.ts'

afterAll(() => killAllStarted())
// The two seeds run at the same time: separate rooms, origins and proxies, idle between their few requests (CI
// wall time: 41–46 s one after the other, 24–36 s side by side under load 7–13; README "Development").
describe.concurrent('break14b: one ticket revoked from 3 processes, old and renewed cookies, across a minute boundary (SQLite)', () => {
  for (const [seed, racing] of [[1421, false], [1422, true]] as const) {
    it(`seed ${seed}${racing ? ', renewals racing the revokes' : ', revokes only'}: exactly one place freed`, async ({ expect }) => {
      const out = await revokeRun({ store: join(tmp(), 'room.db') }, seed, racing)
      console.log(`sqlite revoke seed ${seed}:`, JSON.stringify(out))
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
