/// <reference types="node" />
/**
 * @module
 * The tests' Redis: the real redis-server on loopback, a database of their own, a fresh key prefix per
 * run, and cleanup. A Redis that does not answer fails the tests: they are never skipped.
 */
import { createClient } from 'redis'

export const REDIS_URL = 'redis://127.0.0.1:6379'
/** Kept apart from database 0 so a developer's own data is never touched. */
export const TEST_DATABASE = 13

/** A connected node-redis client (default settings otherwise, as an app would have). */
export async function connectTestRedis() {
  const client = createClient({ url: REDIS_URL, database: TEST_DATABASE, socket: { connectTimeout: 2000, reconnectStrategy: false } })
  client.on('error', () => {}) // failures surface as rejected commands
  try {
    await client.connect()
  } catch (error) {
    throw new Error(`redis-server does not answer on 127.0.0.1:6379 (${(error as Error).message}): run bash test/support/ensure-redis.sh`)
  }
  return client
}

export type TestRedis = Awaited<ReturnType<typeof connectTestRedis>>

/** A key prefix no other run uses. */
export const testPrefix = (label: string): string => `wrtest-${label}-${crypto.randomUUID().slice(0, 8)}`

/** Deletes every key under `prefix`. */
export async function deleteKeys(client: TestRedis, prefix: string): Promise<number> {
  let deleted = 0
  for await (const keys of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) {
    if (keys.length > 0) deleted += await client.unlink(keys)
  }
  return deleted
}

/** The reference traffic tables Redis holds for a room (`{room}:f:{minute}` keys, keys.ts), each with its time to live. */
export async function storedReferences(client: TestRedis, prefix: string, roomId: string): Promise<{ minute: number; expiresInMs: number }[]> {
  const stored: { minute: number; expiresInMs: number }[] = []
  const referencePrefix = `${prefix}:{${roomId}}:f:`
  for await (const keys of client.scanIterator({ MATCH: `${referencePrefix}*`, COUNT: 1000 })) {
    for (const key of keys) stored.push({ minute: Number(key.slice(referencePrefix.length)), expiresInMs: await client.pTTL(key) })
  }
  return stored
}
