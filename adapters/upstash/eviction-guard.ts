/**
 * @module
 * Refuses to grant on a Redis that may evict the room's keys (#14.4). Nearly every room key carries a TTL
 * (location state, minute counters, registers, claims, report ids) and only the epoch and generation do not,
 * so under any eviction policy (`volatile-*` as much as `allkeys-*`) memory pressure from other data can drop
 * the counts while the epoch survives: the room would then admit as if empty, and no loss check can see it.
 * So the adapter reads `INFO memory` (allowed where CONFIG is disabled) at the first decision and again in the
 * first decision of each later minute (one more round trip a minute per room and process, never in the scripts), and
 * while `maxmemory` > 0 with a policy other than `noeviction`, every grant fails with an error naming the
 * setting and the fix: the core then answers with the room's `failMode` (closed: queued) and logs it.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { DRIVER_NAME, type RedisScripting } from './run-script.ts'

/** INFO from inside a script: the script interface is all the adapter needs of a client, and KEYS[1] routes it to the room's node. */
const INFO_SCRIPT = "return redis.call('INFO', 'memory')"

/** The eviction settings of one INFO reply; undefined when the reply does not name them. */
export function evictionOf(info: string): { maxmemory: number; policy: string } | undefined {
  const maxmemory = /^maxmemory:(\d+)\s*$/m.exec(info)?.[1]
  const policy = /^maxmemory_policy:(\S+)\s*$/m.exec(info)?.[1]
  return maxmemory === undefined || policy === undefined ? undefined : { maxmemory: Number(maxmemory), policy }
}

/** Why these settings may evict a room's keys, or undefined when they cannot (no limit, or `noeviction`). */
export function evictionRisk(settings: { maxmemory: number; policy: string }): string | undefined {
  if (settings.maxmemory === 0 || settings.policy === 'noeviction') return undefined
  return (
    `Redis may evict the room's keys (maxmemory ${settings.maxmemory} with maxmemory-policy ${settings.policy}: most room keys carry a TTL, ` +
    `so volatile-* policies evict them too); new users get the room's failMode until it is fixed: set maxmemory-policy noeviction, ` +
    `or give the room a Redis of its own without maxmemory`
  )
}

export interface EvictionGuard {
  /** Throws while this minute's reading says Redis may evict; the first check of each minute reads INFO (one round trip, shared by the minute's concurrent checks). */
  check(minute: number, routeKey: string): Promise<void>
}

export function evictionGuard(redis: RedisScripting): EvictionGuard {
  let risk: string | undefined
  let checkedMinute: number | undefined
  let reading: Promise<void> = Promise.resolve()
  let unreadable = false

  async function read(routeKey: string): Promise<void> {
    try {
      const settings = evictionOf(String(await redis.eval(INFO_SCRIPT, [routeKey], [])))
      if (settings === undefined) throw new Error('INFO memory names no maxmemory or maxmemory_policy')
      const next = evictionRisk(settings)
      if (next !== risk) console.warn(`[hono-waiting-room] ${DRIVER_NAME}: ${next ?? `Redis no longer evicts (maxmemory-policy ${settings.policy}): grants resume`}`)
      risk = next
    } catch (error) {
      // INFO refused (a REST service or an ACL without it): nothing to read, so nothing refused; said once.
      if (!unreadable) console.warn(`[hono-waiting-room] ${DRIVER_NAME}: cannot read INFO memory (${(error as Error)?.message ?? error}); make sure this Redis never evicts the room's keys (maxmemory-policy noeviction)`)
      unreadable = true
    }
  }

  return {
    async check(minute, routeKey) {
      // A grant of minute m is judged by a reading of minute m: a policy changed at runtime is seen within a minute.
      if (checkedMinute !== minute) {
        checkedMinute = minute
        reading = read(routeKey)
      }
      await reading
      if (risk !== undefined) throw new WaitingRoomError('ERR_WR_COORDINATOR', `${DRIVER_NAME}: ${risk}`)
    },
  }
}
