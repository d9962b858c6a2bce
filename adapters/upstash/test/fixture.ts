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
