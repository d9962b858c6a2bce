/**
 * @module
 * The Redis adapter: Upstash over REST for Vercel Edge and other fetch runtimes, or any Redis 6.2+ over
 * TCP (node-redis) for self-hosted Node processes. A new user's decision is one Lua script call.
 *
 * @example
 * ```ts
 * import { Redis } from '@upstash/redis'
 * import { waitingRoom } from 'hono-waiting-room'
 * import { upstashCoordinator } from 'hono-waiting-room/upstash'
 *
 * app.use(waitingRoom({ coordinator: upstashCoordinator(Redis.fromEnv()) }))
 * ```
 */
export { upstashCoordinator, redisCoordinator, type UpstashCoordinator, type UpstashCoordinatorOptions } from './coordinator.ts'
export { fromNodeRedis, type FromNodeRedisOptions, type NodeRedisScripting } from './node-redis.ts'
export { DRIVER_NAME, type RedisScripting } from './run-script.ts'
export { SCRIPTS, type LuaScript } from './scripts.ts'
