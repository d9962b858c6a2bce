import { join } from 'node:path'
import { afterAll, it } from 'vitest'
import { killAllStarted, redisCli, startRedis, tmp } from '../break14b/procs.ts'
import { holdSqliteLock, renewKill } from './renew-kill.ts'
afterAll(() => killAllStarted())
const SEEDS = (process.env.SEEDS ?? '1,2,3').split(',').map(Number)
const MODE = process.env.B14C_MODE ?? 'sqlite'
it.skipIf(!process.env.B14C_PROBE)('probe (manual probe: B14C_PROBE=1)', async () => {
  const res = []
  for (const seed of SEEDS) {
    if (MODE.startsWith('sqlite')) {
      const file = join(tmp(), 'room.db')
      const stall = MODE === 'sqlite-lock' ? () => holdSqliteLock(file, Number(process.env.HOLD ?? 400)) : undefined
      res.push(await renewKill(['--store', file], { seed, n: Number(process.env.N ?? 6), renewers: Number(process.env.R ?? 1), stall, verbose: !!process.env.B14C_V }))
    } else {
      const redis = await startRedis(7400 + seed)
      try { const stall = MODE === 'redis-pause' ? () => redisCli(7400 + seed, 'CLIENT', 'PAUSE', String(process.env.HOLD ?? 400), 'WRITE') : MODE === 'redis-sleep' ? () => redisCli(7400 + seed, 'DEBUG', 'SLEEP', String(Number(process.env.HOLD ?? 400) / 1000)) : undefined
      res.push(await renewKill(['--redis', redis.url], { seed, n: Number(process.env.N ?? 6), renewers: Number(process.env.R ?? 1), stall, stallLead: 20 })) } finally { await redis.stop() }
    }
    console.log(JSON.stringify(res.at(-1)))
  }
}, 600_000)
