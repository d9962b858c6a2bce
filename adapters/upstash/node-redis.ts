/**
 * @module
 * node-redis (`redis` v5/v6, TCP) in the shape the adapter takes, for self-hosted Node servers and
 * clusters. A `createCluster()` client works too: it routes each script by its first key, and all of a
 * room's keys share one hash slot.
 */
import type { RedisScripting } from './run-script.ts'

/** The two node-redis methods used; a `createClient()` or `createCluster()` client has both. */
export interface NodeRedisScripting {
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
}

/**
 * Wraps a connected node-redis client for {@link upstashCoordinator}.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis'
 * const client = await createClient({ url: process.env.REDIS_URL }).connect()
 * app.use(waitingRoom({ coordinator: redisCoordinator(fromNodeRedis(client)) }))
 * ```
 */
export function fromNodeRedis(client: NodeRedisScripting): RedisScripting {
  return {
    evalsha: (sha1, keys, args) => client.evalSha(sha1, { keys, arguments: args }),
    eval: (script, keys, args) => client.eval(script, { keys, arguments: args }),
  }
}
