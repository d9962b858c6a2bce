/**
 * Errors name the adapter and the fix: bad options at build time (ERR_WR_OPTIONS), an unreachable or
 * misconfigured Redis per call (ERR_WR_COORDINATOR, with the cause kept).
 */
import { Redis } from '@upstash/redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WaitingRoomError } from '../../src/errors.ts'
import { fromNodeRedis, upstashCoordinator, type RedisScripting } from './index.ts'
import { openRedisFixture, type RedisFixture } from './test/fixture.ts'
import { connectTestRedis } from './test/redis.ts'

const slot = { roomId: 'errors', location: 'SJC', minute: 29_405_520, localLimit: 1, anywhereLimit: 1, token: 't' }

async function failure(promise: Promise<unknown>): Promise<WaitingRoomError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(WaitingRoomError)
  return error as WaitingRoomError
}

let fixture: RedisFixture
beforeAll(async () => {
  fixture = await openRedisFixture('errors')
})
afterAll(() => fixture.close())

describe('upstash adapter errors', () => {
  it('rejects a client without evalsha/eval, naming both ways to pass one', () => {
    expect(() => upstashCoordinator({} as RedisScripting)).toThrow(WaitingRoomError)
    expect(() => upstashCoordinator(undefined as unknown as RedisScripting)).toThrow(/upstash: .*@upstash\/redis.*fromNodeRedis/)
    try {
      upstashCoordinator({} as RedisScripting)
    } catch (error) {
      expect((error as WaitingRoomError).code).toBe('ERR_WR_OPTIONS')
    }
  })

  it('rejects bad options, naming the field', () => {
    const redis = fixture.rest()
    expect(() => upstashCoordinator(redis, { prefix: 'a{b}' })).toThrow(/upstash: invalid option prefix/)
    expect(() => upstashCoordinator(redis, { prefix: '' })).toThrow(/invalid option prefix/)
    expect(() => upstashCoordinator(redis, { reportIdTtlSeconds: 1 })).toThrow(/invalid option reportIdTtlSeconds/)
    expect(() => upstashCoordinator(redis, { preferredSyncIntervalMs: -1 })).toThrow(/invalid option preferredSyncIntervalMs/)
    expect(upstashCoordinator(redis, { preferredSyncIntervalMs: 250 }).preferredSyncIntervalMs).toBe(250)
    expect(upstashCoordinator(redis).preferredSyncIntervalMs).toBeUndefined()
  })

  it('rejects a room id that would break the hash tag', async () => {
    const error = await failure(upstashCoordinator(fixture.rest(), { prefix: fixture.prefix }).takeSlot({ ...slot, roomId: 'a}b' }))
    expect(error.code).toBe('ERR_WR_OPTIONS')
  })

  it('a wrong REST token: points at UPSTASH_REDIS_REST_TOKEN', async () => {
    const coordinator = upstashCoordinator(fixture.rest({ token: 'wrong' }), { prefix: fixture.prefix })
    const error = await failure(coordinator.takeSlot(slot))
    expect(error.code).toBe('ERR_WR_COORDINATOR')
    expect(error.message).toMatch(/upstash: script takeSlot failed: .*Unauthorized.*UPSTASH_REDIS_REST_TOKEN/)
    expect(error.cause).toBeInstanceOf(Error)
  })

  it('an unreachable REST URL: points at UPSTASH_REDIS_REST_URL', async () => {
    const coordinator = upstashCoordinator(new Redis({ url: 'http://127.0.0.1:9', token: 'x', retry: false }), { prefix: fixture.prefix })
    const error = await failure(coordinator.sync({ id: 'r', roomId: 'errors', location: 'SJC', at: 0, keepMinutes: 5, deltas: {} }))
    expect(error.message).toMatch(/upstash: script sync failed: .*UPSTASH_REDIS_REST_URL/)
  })

  it('a node-redis client that is not connected: says to connect it', async () => {
    const client = await connectTestRedis()
    await client.close()
    const error = await failure(upstashCoordinator(fromNodeRedis(client)).increment({ ...slot, scope: 'SJC', limit: 1 }))
    expect(error.message).toMatch(/upstash: script increment failed: .*client\.connect\(\)/)
  })

  it('a client that changes replies (a custom deserializer): says so', async () => {
    const mangled: RedisScripting = { evalsha: async () => 'OK', eval: async () => 'OK' }
    const error = await failure(upstashCoordinator(mangled).takeSlot(slot))
    expect(error.message).toMatch(/script takeSlot answered "OK", not an array.*custom deserializer/)
    const synced = await failure(upstashCoordinator(mangled).sync({ id: 'r', roomId: 'errors', location: 'SJC', at: 0, keepMinutes: 5, deltas: {} }))
    expect(synced.message).toMatch(/script sync answered "OK", not an array.*custom deserializer/)
  })
})
