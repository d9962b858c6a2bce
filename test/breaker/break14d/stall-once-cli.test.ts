/**
 * break14d — ONE store stall, no crash, real processes: two CLI proxies on SQLite (the write lock held 1 s by another
 * process) or Redis (DEBUG SLEEP 1), accelerated clock (K=20), 4 users in a room of 4, 1-minute sessions, once a
 * (fake) minute check-ins alternating proxies. The stall covers the check-ins of minute 1 only; minutes 2–4 the
 * store answers at once. Expected: the 4 users keep their tickets (a slow moment is neither a crash nor an outage).
 * Observed (SQLite): served 4,2,2,2 twice alone and 4,0,0,0 beside another CLI test — 2–4 of 4 users logged out
 * for the rest of the run by one 1 s lock; the no-stall control serves 4,4,4,4. Redis DEBUG SLEEP 1 held (4,4,4,4).
 */
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { killAllStarted, redisCli, startRedis, tmp } from '../break14b/procs.ts'
import { holdSqliteLock } from '../break14c/renew-kill.ts'
import { onceAMinute } from './cli-minutes.ts'

afterAll(() => killAllStarted())
const run = (backend: string[], stall: (() => Promise<unknown>) | undefined) => onceAMinute(backend, { beforeMinute: (m) => (m === 1 ? stall?.() : undefined) })

describe.concurrent('break14d: one 1 s store stall, no crash — nobody logged out', () => {
  it('SQLite write lock held 1 s by another process', async () => {
    const file = join(tmp(), 'room.db')
    const served = await run(['--store', file], () => holdSqliteLock(file, 1000))
    console.log('sqlite stall: served per minute', served)
    expect(served).toEqual([4, 4, 4, 4])
  }, 60_000)
  it('control (holds): SQLite, no stall', async () => {
    const served = await run(['--store', join(tmp(), 'room.db')], undefined)
    console.log('sqlite control: served per minute', served)
    expect(served).toEqual([4, 4, 4, 4])
  }, 60_000)
  it('Redis DEBUG SLEEP 1 (held in our runs)', async () => {
    const redis = await startRedis(7471)
    try {
      const served = await run(['--redis', redis.url], () => redisCli(7471, 'DEBUG', 'SLEEP', '1'))
      console.log('redis stall: served per minute', served)
      expect(served).toEqual([4, 4, 4, 4])
    } finally { await redis.stop() }
  }, 60_000)
})
