/**
 * The shared conformance suite over every way the adapter is reached: @upstash/redis (REST, as on
 * Vercel Edge) in its default, auto-pipelining and raw-reply configurations, and node-redis over TCP.
 * Each runs against the real redis-server, under its own key prefix (deleted afterwards).
 */
import { Redis } from '@upstash/redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { referencesConformance } from '../../test/conformance/references-suite.ts'
import { fromNodeRedis, upstashCoordinator, type RedisScripting } from './index.ts'
import { openRedisFixture, type RedisFixture } from './test/fixture.ts'
import { deleteKeys, storedReferences } from './test/redis.ts'

/** How each variant builds its client on a fixture. */
const variants: Record<string, (fixture: RedisFixture) => RedisScripting> = {
  'REST (@upstash/redis → bridge → redis-server)': (fixture) => fixture.rest(),
  'REST, auto-pipelining (commands go through /pipeline)': ({ bridge }) =>
    new Redis({ url: bridge.url, token: bridge.token, enableAutoPipelining: true }),
  'REST, no base64 and no automatic deserialization': ({ bridge }) =>
    new Redis({ url: bridge.url, token: bridge.token, responseEncoding: false, automaticDeserialization: false }),
  'TCP (node-redis)': (fixture) => fromNodeRedis(fixture.tcp),
}

for (const [label, clientOf] of Object.entries(variants)) {
  let fixture: RedisFixture
  coordinatorConformance({ describe, it, expect, beforeAll, afterAll }, {
    name: `upstash over ${label}`,
    create: async () => {
      fixture = await openRedisFixture('conformance')
      return upstashCoordinator(clientOf(fixture), { prefix: fixture.prefix })
    },
    // A new process over the same database: the state lives in Redis, so nothing is lost.
    reopen: () => upstashCoordinator(clientOf(fixture), { prefix: fixture.prefix }),
    close: () => fixture.close(),
    generations: true,
    // What a Redis restarted without persistence would have: none of the room's keys.
    wipe: async (_coordinator, roomId) => {
      await deleteKeys(fixture.tcp, `${fixture.prefix}:{${roomId}}`)
    },
  })

  let references: RedisFixture
  referencesConformance({ describe, it, expect, beforeAll, afterAll }, {
    name: `upstash over ${label}`,
    create: async () => {
      references = await openRedisFixture('references')
      return upstashCoordinator(clientOf(references), { prefix: references.prefix })
    },
    reopen: () => upstashCoordinator(clientOf(references), { prefix: references.prefix }),
    close: () => references.close(),
    storedReferences: (roomId) => storedReferences(references.tcp, references.prefix, roomId),
  })
}
