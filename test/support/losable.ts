/// <reference types="node" />
/**
 * @module
 * Backends that can lose everything they store, for the tests of #14.4 (a backend that comes back empty): the
 * coordinator object stays the same for the fleet while what it stores behind is swapped for an empty one, as a
 * Redis restarted without persistence or a SQLite file deleted under the processes would.
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
      for (const prefix of prefixes) await deleteKeys(redis, prefix)
      await redis.close()
    },
  }
}
