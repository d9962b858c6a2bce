/**
 * #14.4 probe: README (Redis) advises `maxmemory-policy volatile-*` (or noeviction) as safe: only the epoch key
 * must survive. But a volatile-* policy may evict ANY key that has a TTL — and the room's counts (minute counters,
 * location state, registers, revocation claims) carry TTLs. Here every room key with a TTL is deleted, which is
 * exactly what volatile-* eviction under memory pressure may do; the epoch stays. Must hold: never above the limit.
 * Measured: 3 newcomers admitted into a full room of 3 (6 active) for 1–3 workers, evicted 0–240 s after the room
 * filled; only `epoch` and `generation` survive. Any one kind of key alone holds; the location state (`l:`) together
 * with the minute's Anywhere counter (`a:`) is enough to reopen the room.
 * Keys with a TTL vanish early only on a Redis that may evict, so the deletion now runs on a redis-server of the
 * test's own switched to `maxmemory-policy volatile-lru` under the full room (a Redis never switched refuses from its
 * first decision: volatile-lru-real.test.ts); the adapter reads the policy at the first decision of each minute
 * (eviction-guard.ts), so the newcomers of the next minute are refused (failMode closed).
 */
import type { ChildProcess } from 'node:child_process'
import { createClient } from 'redis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { fromNodeRedis, upstashCoordinator } from '../../../adapters/upstash/index.ts'
import { testPrefix } from '../../../adapters/upstash/test/redis.ts'
import { worker, START } from '../harness.ts'
import { startRedis } from './support.ts'

let redis: ReturnType<typeof createClient>
let server: ChildProcess
const prefixes: string[] = []
beforeAll(async () => {
  const started = await startRedis(['--maxmemory', '100mb', '--maxmemory-policy', 'noeviction'])
  server = started.proc
  redis = createClient({ url: `redis://127.0.0.1:${started.port}`, socket: { reconnectStrategy: false } })
  redis.on('error', () => {})
  await redis.connect()
})
afterAll(async () => {
  await redis.close()
  server.kill('SIGKILL')
})

/** Deletes the keys under `prefix` that carry a TTL (what volatile-lru/-random/-ttl may evict); returns their names. */
async function evictVolatile(prefix: string, only?: (key: string) => boolean): Promise<string[]> {
  const gone: string[] = []
  for await (const keys of redis.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) {
    for (const key of keys) {
      if (only && !only(key)) continue
      if ((await redis.ttl(key)) > 0) {
        await redis.del(key)
        gone.push(key)
      }
    }
  }
  return gone
}

const ROOM = { totalActiveUsers: 3, newUsersPerMinute: 100, sessionDurationMinutes: 30, syncIntervalMs: 0 }

async function run(workers: number, gapMs: number, only?: (key: string) => boolean) {
  vi.spyOn(console, 'warn').mockImplementation(() => {})
  const prefix = testPrefix('b14f-volatile')
  prefixes.push(prefix)
  await redis.configSet('maxmemory-policy', 'noeviction')
  const coordinator = upstashCoordinator(fromNodeRedis(redis), { prefix })
  const clock = { now: START + 1000 }
  const fleet = Array.from({ length: workers }, () => worker(coordinator, clock, ROOM))
  const users = []
  for (let i = 0; i < 3; i++) users.push(await fleet[i % workers]!.request())
  expect(users.map((u) => u.reason)).toEqual(['slot', 'slot', 'slot'])
  for (const w of fleet) await w.room.room.flush()
  clock.now += gapMs
  for (const w of fleet) await w.status()
  const all: string[] = []
  for await (const keys of redis.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) all.push(...keys)
  await redis.configSet('maxmemory-policy', 'volatile-lru')
  const gone = await evictVolatile(prefix, only)
  clock.now = (Math.floor(clock.now / 60_000) + 1) * 60_000 // the next minute: a reading of the switched policy
  for (const w of fleet) await w.status()
  clock.now += 6000
  let admitted = 0
  for (let i = 0; i < 3 * workers; i++) if ((await fleet[i % workers]!.request()).reason === 'slot') admitted++
  // the admitted users keep browsing
  for (const [i, u] of users.entries()) expect((await fleet[i % workers]!.request(u.cookie)).admitted).toBe(true)
  return { admitted, gone: gone.map((k) => k.slice(prefix.length + 1)), kept: all.filter((k) => !gone.includes(k)).map((k) => k.slice(prefix.length + 1)) }
}

describe('Redis under a volatile-* eviction policy (README: safe)', () => {
  for (const [workers, gapMs] of [[1, 0], [2, 0], [2, 90_000], [3, 240_000]] as const) {
    it(`${workers} worker(s), eviction ${gapMs / 1000} s after the room filled: nobody new in a full room`, async () => {
      const r = await run(workers, gapMs)
      console.log(`workers ${workers} gap ${gapMs}: admitted ${r.admitted}; evicted ${JSON.stringify(r.gone)}; kept ${JSON.stringify(r.kept)}`)
      expect(r.admitted).toBe(0)
    })
  }
})

describe('which kinds of evicted key reopen the room', () => {
  for (const kind of ['l', 'locations', 'a', 'k', 'r', 'h', 'hb', 'hm', 'l+a', 'l+k', 'l+locations', 'locations+a', 'l+a+k', 'l+r', 'a+k']) {
    it(`only '${kind}' keys evicted`, async () => {
      const r = await run(2, 90_000, (key) => kind.split('+').includes(key.split(':')[2]!))
      console.log(`kind ${kind}: admitted ${r.admitted}; evicted ${r.gone.length}`)
      expect(r.admitted).toBe(0)
    })
  }
})
