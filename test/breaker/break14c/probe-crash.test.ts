import { afterAll, it } from 'vitest'
import { killAllStarted, startRedis } from '../break14b/procs.ts'
import { crashRun, sqliteStore } from './crash-renew.ts'
afterAll(() => killAllStarted())
const SEEDS = (process.env.SEEDS ?? '1,2,3').split(',').map(Number)
const BACK = process.env.B14C_MODE ?? 'sqlite'
const VAR = process.env.B14C_VAR ?? 'default'
const variants: Record<string, any> = {
  default: {},
  oncemin: { pace: [59_000, 61_000], stay: [60_000, 150_000], fakeMinutes: 4 },
  s5once: { session: 5, pace: [59_000, 61_000], stay: [60_000, 150_000], fakeMinutes: 4 },
  fastkill: { killEvery: [2000, 6000] },
}
it.skipIf(!process.env.B14C_PROBE)('crash probe (manual probe: B14C_PROBE=1)', async () => {
  for (const seed of SEEDS) {
    let out
    if (BACK === 'sqlite') out = await crashRun({ store: sqliteStore() }, seed, variants[VAR])
    else { const r = await startRedis(7460 + seed); try { out = await crashRun({ redis: r.url }, seed, variants[VAR]) } finally { await r.stop() } }
    console.log(`CRASH ${BACK} ${VAR} seed ${seed}:`, JSON.stringify({ worst: out.worst, kills: out.kills.length, usersServed: out.usersServed, maxLagFakeMs: out.maxLagFakeMs }))
    if (out.worst.count > 4) console.log('DETAIL', JSON.stringify({ kills: out.kills, trace: out.worst.users.map((u: string) => [u, out.trace.get(u)]) }))
  }
}, 600_000)
