/// <reference types="node" />
/**
 * @module
 * Backends that can lose everything they store, for the tests of #14.4 (a backend that comes back empty): the
 * coordinator object stays the same for the fleet while what it stores behind is swapped for an empty one, as a
 * Redis restarted without persistence or a SQLite file deleted under the processes would. And backends whose
 * state can be copied and the copy put back later (a backup or an older RDB restored).
 */
import Database from 'better-sqlite3'
import { sqliteCoordinator } from '../../adapters/bun-sqlite/index.ts'
import { memoryCoordinator } from '../../adapters/memory/index.ts'
import { fromNodeRedis, upstashCoordinator } from '../../adapters/upstash/index.ts'
import { connectTestRedis, deleteKeys, testPrefix, type TestRedis } from '../../adapters/upstash/test/redis.ts'
import type { Coordinator } from '../../src/coordination/coordinator.ts'

/** A backend whose state can be lost. `lose` swaps synchronously (before its first await), so it may go unawaited. */
export interface Losable {
  coordinator: Coordinator
  lose(): Promise<void>
}

/** One memory coordinator per process, as the in-process backend is (its loss marks stay process-local). */
export function losableMemory(): Losable {
  let inner = memoryCoordinator()
  const coordinator: Coordinator = {
    name: 'losable',
    preferredSyncIntervalMs: 0,
    increment: (r) => inner.increment(r),
    takeSlot: (r) => inner.takeSlot(r),
    sync: (r) => inner.sync(r),
  }
  return { coordinator, lose: async () => void (inner = memoryCoordinator()) }
}

/** The memory coordinator as a shared backend would answer: the same epoch, without the process-local mark. */
export function losableSharedMemory(): Losable {
  let inner = memoryCoordinator()
  const coordinator: Coordinator = {
    name: 'shared-memory',
    increment: (r) => inner.increment(r),
    takeSlot: (r) => inner.takeSlot(r),
    sync: async (r) => {
      const state = await inner.sync(r)
      return state.epoch ? { ...state, epoch: { id: state.epoch.id, startedAt: state.epoch.startedAt } } : state
    },
  }
  return { coordinator, lose: async () => void (inner = memoryCoordinator()) }
}

/** SQLite (better-sqlite3, in memory) replaced by an empty database: a file deleted and started afresh. */
export function losableSqlite(): Losable {
  let inner = sqliteCoordinator(new Database(':memory:'))
  const coordinator: Coordinator = {
    name: 'sqlite',
    increment: (r) => inner.increment(r),
    takeSlot: (r) => inner.takeSlot!(r),
    sync: (r) => inner.sync(r),
  }
  return { coordinator, lose: async () => void (inner = sqliteCoordinator(new Database(':memory:'))) }
}

/**
 * Deletes every key under any of `prefixes` in one SCAN of the keyspace per label: a property test hands out hundreds
 * of prefixes, and a SCAN per prefix went over the whole shared test database each time — past the 10 s hook timeout
 * while other files filled it (CI, recovering-warm's afterAll). Keys of another run of the same label are kept.
 */
async function deletePrefixes(client: TestRedis, prefixes: string[]): Promise<void> {
  const mine = new Set(prefixes)
  const patterns = new Set(prefixes.map((prefix) => `${prefix.replace(/-[^-]*$/, '')}-*:*`))
  for (const pattern of patterns) {
    for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 1000 })) {
      const owned = keys.filter((key) => mine.has(key.slice(0, key.indexOf(':'))))
      if (owned.length > 0) await client.unlink(owned)
    }
  }
}

/**
 * Redis rooms whose keys are deleted on `lose` (a Redis restarted without persistence), each under a fresh
 * prefix. `connect` first (e.g. in `beforeAll`); `close` deletes every prefix it handed out and disconnects.
 */
export function losableRedis(label: string): { connect(): Promise<void>; make(): Losable; close(): Promise<void> } {
  let redis: TestRedis | undefined
  const prefixes: string[] = []
  return {
    async connect() {
      redis ??= await connectTestRedis()
    },
    make() {
      const client = redis
      if (!client) throw new Error('losableRedis: connect() before make()')
      const prefix = testPrefix(label)
      prefixes.push(prefix)
      return { coordinator: upstashCoordinator(fromNodeRedis(client), { prefix }), lose: async () => void (await deleteKeys(client, prefix)) }
    },
    async close() {
      if (!redis) return
      await deletePrefixes(redis, prefixes)
      await redis.close()
    },
  }
}

/** A backend whose state can be copied and the copy put back later; `coordinator` stays the fleet's. */
export interface Restorable {
  coordinator: Coordinator
  backup(): Promise<void>
  restore(): Promise<void>
}

/** A SQLite database copied (serialized) and the copy opened in its place. */
export function restorableSqlite(): Restorable {
  let db = new Database(':memory:')
  let inner = sqliteCoordinator(db)
  let copy: Buffer | undefined
  const coordinator: Coordinator = {
    name: 'sqlite',
    increment: (r) => inner.increment(r),
    takeSlot: (r) => inner.takeSlot!(r),
    sync: (r) => inner.sync(r),
  }
  return {
    coordinator,
    backup: async () => void (copy = db.serialize()),
    restore: async () => {
      db = new Database(copy!)
      inner = sqliteCoordinator(db)
    },
  }
}

/**
 * Redis rooms whose keys are copied aside on `backup` and put back in place of the live ones on `restore`, each
 * under a fresh prefix; `connect` first, `close` deletes every prefix (and its copy) it handed out.
 */
export function restorableRedis(label: string): { connect(): Promise<void>; make(): Restorable; close(): Promise<void> } {
  let redis: TestRedis | undefined
  const prefixes: string[] = []
  const keys = async (client: TestRedis, under: string): Promise<string[]> => {
    const found: string[] = []
    for await (const batch of client.scanIterator({ MATCH: `${under}:*`, COUNT: 1000 })) found.push(...batch)
    return found
  }
  return {
    async connect() {
      redis ??= await connectTestRedis()
    },
    make() {
      const client = redis
      if (!client) throw new Error('restorableRedis: connect() before make()')
      const prefix = testPrefix(label)
      prefixes.push(prefix, `bak-${prefix}`)
      return {
        coordinator: upstashCoordinator(fromNodeRedis(client), { prefix }),
        backup: async () => {
          await deleteKeys(client, `bak-${prefix}`)
          for (const key of await keys(client, prefix)) await client.copy(key, `bak-${key}`)
        },
        restore: async () => {
          await deleteKeys(client, prefix)
          for (const key of await keys(client, `bak-${prefix}`)) await client.copy(key, key.slice(4))
        },
      }
    },
    async close() {
      if (!redis) return
      await deletePrefixes(redis, prefixes)
      await redis.close()
    },
  }
}
