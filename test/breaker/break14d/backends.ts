/** break14d: the coordinators under test, each fresh — memory, SQLite (a file of our own), Redis (db 13, own prefix). */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import { sqliteStoreCoordinator } from '../../../adapters/bun-sqlite/node.ts'
import { fromNodeRedis, redisCoordinator } from '../../../adapters/upstash/index.ts'
import { connectTestRedis, testPrefix, type TestRedis } from '../../../adapters/upstash/test/redis.ts'
import type { Coordinator } from '../../../src/index.ts'

export type Backend = 'memory' | 'sqlite' | 'redis'
let redis: TestRedis | undefined
export async function coordinatorFor(backend: Backend): Promise<Coordinator> {
  if (backend === 'memory') return memoryCoordinator()
  if (backend === 'sqlite') return sqliteStoreCoordinator(join(mkdtempSync(join(tmpdir(), 'b14d-')), 'room.db'))
  redis ??= await connectTestRedis()
  return redisCoordinator(fromNodeRedis(redis), { prefix: testPrefix('b14d') })
}
export async function closeBackends() { await redis?.quit().catch(() => {}); redis = undefined }
