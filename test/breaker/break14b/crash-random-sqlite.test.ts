/** break14b — item 3 on SQLite (--store): SIGKILL at random moments, two seeds. See crash-random.ts. */
import { afterAll, describe, it } from 'vitest'
import { crashRun, LIMIT, sqliteStore } from './crash-random.ts'
import { killAllStarted } from './procs.ts'

afterAll(() => killAllStarted())
// The two seeds run at the same time: separate rooms, origins and proxies, mostly asleep (a run uses about a fifth of
// a core, measured), and the bound is a safety one, whatever the timing.
describe.concurrent('break14b: SIGKILL proxies at random moments (SQLite --store)', () => {
  for (const seed of [1401, 1402]) {
    it(`seed ${seed}: never more than ${LIMIT} users served in any 20 s window`, async ({ expect }) => {
      const out = await crashRun({ store: sqliteStore() }, seed)
      console.log(`sqlite seed ${seed}:`, JSON.stringify({ worst: out.worst, kills: out.kills, usersServed: out.usersServed, maxLagFakeMs: out.maxLagFakeMs }))
      expect(out.worst.count).toBeLessThanOrEqual(LIMIT)
    }, 60_000)
  }
})
