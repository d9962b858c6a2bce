/**
 * #14.4 probe on a real redis-server: the README's advice "use `volatile-*` or `noeviction`". A Redis of our own
 * (loopback, free port, no persistence needed) with `maxmemory 3mb`, `maxmemory-policy volatile-lru` (and -ttl,
 * -random): the room fills (3 of 3), then another application on the same Redis writes cache keys with a TTL —
 * the ordinary reason to pick a volatile policy. Its memory pressure evicts the room's counters (they carry TTLs),
 * the epoch stays, and newcomers are admitted into the full room. Must hold: never above `totalActiveUsers`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createClient } from 'redis'
import { afterAll, describe, expect, it } from 'vitest'
import { fromNodeRedis, upstashCoordinator } from '../../../adapters/upstash/index.ts'
import { worker, START } from '../harness.ts'
import { freePort } from './support.ts'

const servers: ChildProcess[] = []
afterAll(() => {
  for (const s of servers) s.kill('SIGKILL')
})


async function startRedis(policy: string) {
  const port = await freePort()
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory', '3mb', '--maxmemory-policy', policy, '--maxmemory-samples', '10'], { stdio: 'ignore' })
  servers.push(proc)
  const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } })
  client.on('error', () => {})
  for (let i = 0; i < 50; i++) {
    try {
      await client.connect()
      return client
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  throw new Error('redis-server did not start')
}

const ROOM = { totalActiveUsers: 3, newUsersPerMinute: 100, sessionDurationMinutes: 30, syncIntervalMs: 0 }

describe('Redis with maxmemory and a volatile-* policy (README: safe), another app caching on it', () => {
  // noeviction and allkeys-lru (documented as a loss the room notices) are controls.
  for (const policy of ['volatile-lru', 'volatile-ttl', 'volatile-random', 'noeviction', 'allkeys-lru']) {
    it(`${policy}: the full room stays full`, async () => {
      const redis = await startRedis(policy)
      const coordinator = upstashCoordinator(fromNodeRedis(redis), { prefix: 'shop' })
      const clock = { now: START + 1000 }
      const fleet = [worker(coordinator, clock, ROOM), worker(coordinator, clock, ROOM)]
      const users = []
      for (let i = 0; i < 3; i++) users.push(await fleet[i % 2]!.request())
      expect(users.map((u) => u.reason)).toEqual(['slot', 'slot', 'slot'])
      for (const w of fleet) await w.room.room.flush()
      const before = (await redis.keys('shop:*')).sort()
      // Another app's cache: 1 KiB values with an hour's TTL, well past maxmemory in total.
      const value = 'x'.repeat(1024)
      for (let i = 0; i < 8000; i += 200) await Promise.all(Array.from({ length: 200 }, (_, j) => redis.set(`cache:${i + j}`, value, { EX: 3600 }).catch(() => null)))
      const after = (await redis.keys('shop:*')).sort()
      const evicted = Number(/evicted_keys:(\d+)/.exec(await redis.info('stats'))![1])
      clock.now += 90_000
      for (const w of fleet) await w.status()
      clock.now += 6000
      let admitted = 0
      for (let i = 0; i < 6; i++) if ((await fleet[i % 2]!.request()).reason === 'slot') admitted++
      console.log(`${policy}: evicted ${evicted} keys; room keys before ${before.length}, after ${after.length} (${JSON.stringify(after)}); newcomers admitted into the full room: ${admitted}`)
      await redis.close()
      expect(admitted).toBe(0)
    }, 30_000)
  }
})
