/**
 * break14d — the slow-store logout with real processes: two CLI proxies (`--redis`) whose Redis answers every
 * command 200 ms late through a TCP relay (a far Redis; nothing fails, nothing is lost), accelerated clock (K=20).
 * 4 users admitted in a room of 4 with 1-minute sessions check in once a (fake) minute, alternating proxies; no
 * newcomer. Expected: all 4 served every minute. Control: the same relay with 0 ms.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { killAllStarted, startRedis } from '../break14b/procs.ts'
import { onceAMinute } from './cli-minutes.ts'
import { lagRelay } from './lag.ts'

afterAll(() => killAllStarted())

async function run(redisPort: number, lagMs: number) {
  const redis = await startRedis(redisPort)
  const lag = { ms: 0 }
  const relay = await lagRelay(redisPort, lag)
  try {
    return await onceAMinute(['--redis', `redis://127.0.0.1:${relay.port}`], { afterSetup: () => (lag.ms = lagMs) })
  } finally {
    relay.server.close()
    await redis.stop()
  }
}
describe.concurrent('break14d: CLI proxies on a Redis answering 200 ms late', () => {
  it('once-a-minute users of a room of 4 stay served every minute', async () => {
    const served = await run(7491, 200)
    console.log('200 ms Redis, served per minute:', served)
    expect(served).toEqual([4, 4, 4, 4])
  }, 60_000)
  it('control (holds): 0 ms relay — served 4 every minute', async () => {
    const served = await run(7492, 0)
    console.log('0 ms Redis, served per minute:', served)
    expect(served).toEqual([4, 4, 4, 4])
  }, 60_000)
})
