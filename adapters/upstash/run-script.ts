/**
 * @module
 * Runs a script as one EVALSHA and falls back to EVAL when Redis answers NOSCRIPT (a new or flushed
 * server): that one call costs a second round trip and loads the script for everyone after it.
 * Failures become {@link WaitingRoomError}s that name the adapter and the likely fix.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import type { LuaScript } from './scripts.ts'

export const DRIVER_NAME = 'upstash'

/**
 * The two commands the adapter uses, in `@upstash/redis`'s shape (`Pick<Redis, 'evalsha' | 'eval'>`):
 * pass an `@upstash/redis` `Redis` as is, or wrap a node-redis client with `fromNodeRedis`.
 */
export interface RedisScripting {
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>
  eval(script: string, keys: string[], args: string[]): Promise<unknown>
}

export interface ScriptReply {
  reply: unknown
  /** Calls sent to Redis: 1, or 2 when the script had to be loaded. */
  roundTrips: number
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const isNoScript = (error: unknown): boolean => messageOf(error).toUpperCase().includes('NOSCRIPT')

function fixFor(message: string): string {
  const upper = message.toUpperCase()
  if (upper.includes('UNKNOWN COMMAND') || upper.includes('NOPERM')) {
    return 'this Redis does not allow EVAL/EVALSHA; the adapter needs Lua scripting (Upstash, or Redis 6.2+ with scripting enabled)'
  }
  if (upper.includes('CLOSED') || upper.includes('NOT CONNECTED')) {
    return 'the node-redis client is not connected: `await client.connect()` before serving requests'
  }
  if (upper.startsWith('WAIT:')) {
    return 'a master has fewer live replicas than fromNodeRedis({ replicas }) asks for (after a failover, until the old master rejoins): the room answers with its failMode until then'
  }
  if (upper.includes('CLUSTERDOWN') || upper.includes('TRYAGAIN') || upper.includes('MOVED')) {
    return 'the Redis cluster is failing over or resharding; the room answers with its failMode until it is back'
  }
  if (upper.includes('UNAUTHORIZED') || upper.includes('WRONGPASS') || upper.includes('NOAUTH')) {
    return 'Redis refused the credentials: check UPSTASH_REDIS_REST_TOKEN (or the password in the Redis URL)'
  }
  return 'check that Redis is reachable: UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN for Upstash, the URL passed to createClient for node-redis'
}

export function scriptError(script: LuaScript, error: unknown): WaitingRoomError {
  const message = messageOf(error)
  return new WaitingRoomError('ERR_WR_COORDINATOR', `${DRIVER_NAME}: script ${script.name} failed: ${message} (${fixFor(message)})`, {
    cause: error,
  })
}

export async function runScript(redis: RedisScripting, script: LuaScript, keys: string[], args: string[]): Promise<ScriptReply> {
  try {
    return { reply: await redis.evalsha(script.sha1, keys, args), roundTrips: 1 }
  } catch (error) {
    if (!isNoScript(error)) throw scriptError(script, error)
  }
  try {
    return { reply: await redis.eval(script.source, keys, args), roundTrips: 2 }
  } catch (error) {
    throw scriptError(script, error)
  }
}

/** The reply as an array, or an error that says the client changed it (a custom deserializer, say). */
export function replyArray(script: LuaScript, reply: unknown): unknown[] {
  if (Array.isArray(reply)) return reply
  throw new WaitingRoomError(
    'ERR_WR_COORDINATOR',
    `${DRIVER_NAME}: script ${script.name} answered ${JSON.stringify(reply)}, not an array (pass the client without a custom deserializer)`,
  )
}

/**
 * The reply as an integer of −1 or more (the counter scripts' packed answers; −1: refused while the room
 * recovers), or an error as {@link replyArray}'s.
 */
export function replyInteger(script: LuaScript, reply: unknown): number {
  const value = typeof reply === 'number' ? reply : typeof reply === 'string' && /^-?\d+$/.test(reply) ? Number(reply) : Number.NaN
  if (Number.isSafeInteger(value) && value >= -1) return value
  throw new WaitingRoomError(
    'ERR_WR_COORDINATOR',
    `${DRIVER_NAME}: script ${script.name} answered ${JSON.stringify(reply)}, not an integer (pass the client without a custom deserializer)`,
  )
}
