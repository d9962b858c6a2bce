/// <reference types="node" />
/**
 * @module
 * One test file's Redis setup: a TCP client, an Upstash REST bridge in front of the same database, a
 * fresh key prefix, and cleanup of every key under it.
 */
import { Redis } from '@upstash/redis'
import { startUpstashBridge, type UpstashBridge } from '../../../test/support/upstash-bridge.ts'
import { connectTestRedis, deleteKeys, TEST_DATABASE, testPrefix, type TestRedis } from './redis.ts'

export interface RedisFixture {
  tcp: TestRedis
  bridge: UpstashBridge
  prefix: string
  /**
   * An @upstash/redis client on the bridge; `retry: false` makes a lost reply an error (it sets
   * `retries: 0`: the client's own `retry: false` still tries twice, in 1.39).
   */
  rest(options?: { retry?: false; token?: string }): Redis
  close(): Promise<void>
}

export async function openRedisFixture(label: string): Promise<RedisFixture> {
  const tcp = await connectTestRedis()
  const bridge = await startUpstashBridge({ database: TEST_DATABASE })
  const prefix = testPrefix(label)
  return {
    tcp,
    bridge,
    prefix,
    rest: (options = {}) =>
      new Redis({ url: bridge.url, token: options.token ?? bridge.token, ...(options.retry === false ? { retry: { retries: 0 } } : {}) }),
    async close() {
      await bridge.close()
      await deleteKeys(tcp, prefix)
      await tcp.close()
    },
  }
}

/**
 * What a room's counter of `minute` has given, read straight from Redis: a location counter is the string key
 * `c:{m}:{location}`, the Anywhere counter (`scope` '*') the minute's string key `a:{m}`.
 */
export async function counterValue(tcp: TestRedis, prefix: string, roomId: string, scope: string, minute: number): Promise<number> {
  const room = `${prefix}:{${roomId}}`
  const value = await tcp.get(scope === '*' ? `${room}:a:${minute}` : `${room}:c:${minute}:${scope}`)
  return Number(value ?? 0)
}

/** How many tickets hold a slot of `minute` in a room (one key `k:{m}:{ticket}` each). */
export async function ticketsWithSlots(tcp: TestRedis, prefix: string, roomId: string, minute: number): Promise<number> {
  let count = 0
  for await (const keys of tcp.scanIterator({ MATCH: `${prefix}:{${roomId}}:k:${minute}:*`, COUNT: 1000 })) count += keys.length
  return count
}
