/**
 * break14d — replays of every cookie of a lineage, parallel requests with different cookies of one ticket, SIGKILLs
 * and store stalls around minute boundaries, real CLI proxies on SQLite and Redis (crash-replay.ts). Expected: never
 * more distinct users served in a 20 s window than totalActiveUsers (4). Seeds via B14D_SEEDS (default 31). Held on seeds 31, 32 (SQLite and Redis, 1- and 5-minute sessions: at most 4). Opt-in: B14D_SLOW=1.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { killAllStarted, startRedis } from '../break14b/procs.ts'
import { crashReplay, sqliteFile } from './crash-replay.ts'

afterAll(() => killAllStarted())
const SEEDS = (process.env.B14D_SEEDS ?? '31').split(',').map(Number)
const cases = [
  { name: '1-minute sessions', session: 1, fakeMinutes: 4 },
  { name: '5-minute sessions', session: 5, fakeMinutes: 9 },
]

describe.skipIf(!process.env.B14D_SLOW)('break14d: replays + kills + stalls, CLI proxies (B14D_SLOW=1, ~50 s a case)', () => {
  for (const c of cases) {
    for (const seed of SEEDS) {
      it(`SQLite, ${c.name}, seed ${seed}`, async () => {
        const out = await crashReplay({ store: sqliteFile() }, seed, { session: c.session, limit: 4, k: 20, fakeMinutes: c.fakeMinutes, kills: true, stalls: true })
        console.log('sqlite', c.name, JSON.stringify(out))
        expect(out.worst.count).toBeLessThanOrEqual(4)
      }, 60_000)
      it(`Redis, ${c.name}, seed ${seed}`, async () => {
        const port = 7500 + seed % 50 + c.session * 50
        const redis = await startRedis(port)
        try {
          const out = await crashReplay({ redisPort: port }, seed, { session: c.session, limit: 4, k: 20, fakeMinutes: c.fakeMinutes, kills: true, stalls: true })
          console.log('redis', c.name, JSON.stringify(out))
          expect(out.worst.count).toBeLessThanOrEqual(4)
        } finally { await redis.stop() }
      }, 60_000)
    }
  }
})
