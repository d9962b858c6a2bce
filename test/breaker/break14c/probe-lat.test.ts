import { join } from 'node:path'
import { afterAll, it } from 'vitest'
import { killAllStarted, redisCli, startRedis, tmp } from '../break14b/procs.ts'
import { holdSqliteLock } from './renew-kill.ts'
import { latencyRun } from './latency.ts'
afterAll(() => killAllStarted())
const MODE = process.env.B14C_MODE ?? 'sqlite'
const S = Number(process.env.S ?? 1)
const U = Number(process.env.U ?? 20)
it.skipIf(!process.env.B14C_PROBE)('latency probe (manual probe: B14C_PROBE=1)', async () => {
  let out
  if (MODE.startsWith('sqlite')) {
    const file = join(tmp(), 'room.db')
    out = await latencyRun(['--store', file], U, S, MODE === 'sqlite-lock' ? () => holdSqliteLock(file, 2000) : undefined)
  } else {
    const redis = await startRedis(7450)
    try {
      const stall = MODE === 'redis-sleep' ? () => redisCli(7450, 'DEBUG', 'SLEEP', '2') : MODE === 'redis-pause' ? () => redisCli(7450, 'CLIENT', 'PAUSE', '2000', 'ALL') : undefined
      out = await latencyRun(['--redis', redis.url], U, S, stall)
    } finally { await redis.stop() }
  }
  console.log(`LAT ${MODE} S=${S} U=${U}`, JSON.stringify(out))
}, 120_000)
