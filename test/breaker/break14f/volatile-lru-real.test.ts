/**
 * #14.4 probe on a real redis-server: the README's advice "use `volatile-*` or `noeviction`". A Redis of our own
 * (loopback, free port, no persistence needed) with `maxmemory 3mb` and each `maxmemory-policy`: another application
 * on the same Redis writes cache keys with a TTL (the ordinary reason to pick a volatile policy), and its memory
 * pressure evicts the room's counters (they carry TTLs) while the epoch stays. Measured before the fix: 3 newcomers
 * admitted into a full room of 3 under volatile-lru/-ttl/-random. Must hold: never above `totalActiveUsers`.
 * Since the fix the adapter reads INFO memory and refuses every grant on a Redis that may evict (eviction-guard.ts):
 * the room answers with failMode closed from its first decision, and says why in one log line; noeviction fills and
 * holds; a policy switched to an evicting one under a full room is seen in the next minute, before any newcomer.
 */
import type { ChildProcess } from 'node:child_process'
import { createClient } from 'redis'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { fromNodeRedis, upstashCoordinator } from '../../../adapters/upstash/index.ts'
import { worker, START } from '../harness.ts'
import { EVICTING_POLICIES, startRedis } from './support.ts'

const servers: ChildProcess[] = []
afterAll(() => {
  for (const s of servers) s.kill('SIGKILL')
})

async function connect(policy: string) {
  const { port, proc } = await startRedis(['--maxmemory', '3mb', '--maxmemory-policy', policy, '--maxmemory-samples', '10'])
  servers.push(proc)
  const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } })
  client.on('error', () => {})
  await client.connect()
  return client
}

const ROOM = { totalActiveUsers: 3, newUsersPerMinute: 100, sessionDurationMinutes: 30, syncIntervalMs: 0 }

/** Another app's cache: 1 KiB values with an hour's TTL, well past maxmemory in total. Returns evicted_keys. */
async function fillCache(redis: Awaited<ReturnType<typeof connect>>): Promise<number> {
  const value = 'x'.repeat(1024)
  for (let i = 0; i < 8000; i += 200) await Promise.all(Array.from({ length: 200 }, (_, j) => redis.set(`cache:${i + j}`, value, { EX: 3600 }).catch(() => null)))
  return Number(/evicted_keys:(\d+)/.exec(await redis.info('stats'))![1])
}

async function scenario(policy: string, workers: number, switchTo?: string) {
  const redis = await connect(policy)
  const coordinator = upstashCoordinator(fromNodeRedis(redis), { prefix: 'shop' })
  const clock = { now: START + 1000 }
  const fleet = Array.from({ length: workers }, () => worker(coordinator, clock, ROOM))
  const first = []
  for (let i = 0; i < 3; i++) first.push(await fleet[i % workers]!.request())
  for (const w of fleet) await w.room.room.flush()
  if (switchTo) await redis.configSet('maxmemory-policy', switchTo)
  const evicted = await fillCache(redis)
  clock.now += 90_000 // the next minute
  for (const w of fleet) await w.status()
  clock.now += 6000
  let admitted = 0
  for (let i = 0; i < 2 * 3; i++) if ((await fleet[i % workers]!.request()).admitted) admitted++
  const stillIn = []
  for (const [i, u] of first.entries()) if (u.admitted) stillIn.push((await fleet[i % workers]!.request(u.cookie)).admitted)
  await redis.close()
  return { first: first.filter((u) => u.admitted).length, admitted, evicted, stillIn }
}

describe('Redis with maxmemory, another app caching on it: the room never exceeds its limit', () => {
  for (const workers of [1, 2, 3]) {
    for (const policy of EVICTING_POLICIES) {
      it(`${policy}, ${workers} worker(s): no grant at all (failMode closed), the fix logged`, async () => {
        const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
        const r = await scenario(policy, workers)
        const logged = warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes(`maxmemory-policy ${policy}`) && l.includes('maxmemory-policy noeviction'))
        warn.mockRestore()
        console.log(`${policy} x${workers}: evicted ${r.evicted}; first admitted ${r.first}, newcomers admitted ${r.admitted}`)
        expect(r.first + r.admitted).toBe(0)
        expect(logged.length).toBeGreaterThan(0)
      }, 30_000)
    }
    it(`noeviction, ${workers} worker(s): the room fills and stays full`, async () => {
      const r = await scenario('noeviction', workers)
      expect([r.first, r.admitted, r.evicted]).toEqual([3, 0, 0])
      expect(r.stillIn).toEqual([true, true, true])
    }, 30_000)
    it(`switched from noeviction to volatile-lru under a full room, ${workers} worker(s): nobody new the next minute`, async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
      const r = await scenario('noeviction', workers, 'volatile-lru')
      warn.mockRestore()
      console.log(`switched x${workers}: evicted ${r.evicted}; newcomers admitted ${r.admitted}`)
      expect(r.first).toBe(3)
      expect(r.evicted).toBeGreaterThan(0)
      expect(r.admitted).toBe(0)
      expect(r.stillIn).toEqual([true, true, true]) // admitted users keep browsing: their tickets need no grant
    }, 30_000)
  }
})
