/** break14b — item 5 on Redis: a redis-server of our own (7393) stalled by DEBUG SLEEP and by CLIENT PAUSE. See stall.ts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { killAllStarted, redisCli, startRedis } from './procs.ts'
import { stallRun } from './stall.ts'

let redis: Awaited<ReturnType<typeof startRedis>>
beforeAll(async () => { redis = await startRedis(7393) })
afterAll(async () => { await redis?.stop(); killAllStarted() })
describe('break14b: admitted users while Redis stalls for 4 s across a minute boundary', () => {
  it('DEBUG SLEEP 4: every admitted request is served, at most one bounded wait (max < 1400 ms: a due renewal waits for its exchange, up to coordinatorTimeoutMs (1000), once; p95 < 300 ms)', async () => {
    const out = await stallRun({ redis: redis.url }, () => redisCli(7393, 'DEBUG', 'SLEEP', '4'), 4000)
    console.log('DEBUG SLEEP:', JSON.stringify(out))
    expect(out.requestsDuring).toBeGreaterThan(20)
    expect({ refused: out.refusedDuring, slow: out.maxMs >= 1400, p95: out.p95Ms >= 300 }).toEqual({ refused: 0, slow: false, p95: false })
  }, 60_000)
  it('CLIENT PAUSE 4000 ALL: every admitted request is served, at most one bounded wait (max < 1400 ms: a due renewal waits for its exchange, up to coordinatorTimeoutMs (1000), once; p95 < 300 ms)', async () => {
    const out = await stallRun({ redis: redis.url }, () => redisCli(7393, 'CLIENT', 'PAUSE', '4000', 'ALL'), 4000)
    console.log('CLIENT PAUSE:', JSON.stringify(out))
    expect(out.requestsDuring).toBeGreaterThan(20)
    expect({ refused: out.refusedDuring, slow: out.maxMs >= 1400, p95: out.p95Ms >= 300 }).toEqual({ refused: 0, slow: false, p95: false })
  }, 60_000)
  it('DEBUG SLEEP 4, 1-minute sessions (renewed anyway once the bounded wait is over): all served (max < 1400 ms: a renewal in its confirmed cookie’s last minute waits up to coordinatorTimeoutMs (1000), once, p95 < 300 ms)', async () => {
    const out = await stallRun({ redis: redis.url }, () => redisCli(7393, 'DEBUG', 'SLEEP', '4'), 4000, 1)
    console.log('DEBUG SLEEP, 1-minute sessions:', JSON.stringify(out))
    expect(out.requestsDuring).toBeGreaterThan(20)
    expect({ refused: out.refusedDuring, slow: out.maxMs >= 1400, p95: out.p95Ms >= 300 }).toEqual({ refused: 0, slow: false, p95: false })
  }, 60_000)
})
