/**
 * @module
 * The Redis coordinator: counters and aggregation as Lua scripts, so a new user's decision (location
 * counter, then Anywhere) is one round trip and a worker's report merge is another. Works over Upstash's
 * REST API (`@upstash/redis`: Vercel Edge, Cloudflare, Deno) and over TCP (node-redis via `fromNodeRedis`).
 */
import { ANYWHERE, COUNTER_TTL_MINUTES, type Coordinator, type CounterRequest, type CounterResult, type SlotRequest, type SlotResult } from '../../src/coordination/coordinator.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import type { LocationState, RoomState, WorkerReport } from '../../src/coordination/state.ts'
import { roomKeys, type RoomKeys } from './keys.ts'
import { DRIVER_NAME, replyArray, runScript, type RedisScripting } from './run-script.ts'
import { incrementScript, syncScript, takeSlotScript } from './scripts.ts'

export interface UpstashCoordinatorOptions {
  /** First part of every key, `{prefix}:{room}:…`; apps sharing one database need their own. Default `wr`. */
  prefix?: string
  /** Seconds a report id is remembered, so a retried report is applied once. Default 600 (10 minutes). */
  reportIdTtlSeconds?: number
  /** How often workers report, in ms, when the middleware's `syncIntervalMs` is not set. Default: unset (the middleware's 1000). */
  preferredSyncIntervalMs?: number
}

export interface UpstashCoordinator extends Coordinator {
  takeSlot(request: SlotRequest): Promise<SlotResult>
}

/**
 * Counters are created during their minute and must outlive it by COUNTER_TTL_MINUTES (late retries):
 * two more minutes cover the rest of the creating minute with a margin. The TTL is relative, so the
 * scripts never read the server's clock and a worker's clock never has to agree with it.
 */
const COUNTER_TTL_SECONDS = String((COUNTER_TTL_MINUTES + 2) * 60)

/**
 * A random id per adapter call. A transport retry resends the same command, so the script recognizes
 * its own attempt and answers as the first time (not `repeat`): the core then counts the admission once,
 * exactly as if the reply had not been lost.
 */
function newAttempt(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8))
  let hex = ''
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0')
  return hex
}

/** A `previousReported` as a script argument: '' when left out (no correction). */
function reportedArg(previousReported: number | undefined): string {
  return previousReported === undefined ? '' : String(previousReported)
}

function optionError(field: string, message: string): WaitingRoomError {
  return new WaitingRoomError('ERR_WR_OPTIONS', `${DRIVER_NAME}: invalid option ${field}: ${message}`)
}

function validate(redis: unknown, options: UpstashCoordinatorOptions): void {
  const client = redis as Partial<RedisScripting> | undefined
  if (typeof client?.evalsha !== 'function' || typeof client.eval !== 'function') {
    throw new WaitingRoomError(
      'ERR_WR_OPTIONS',
      `${DRIVER_NAME}: the first argument must be a Redis client with evalsha and eval: an @upstash/redis Redis, or fromNodeRedis(client) for node-redis`,
    )
  }
  const { prefix, reportIdTtlSeconds, preferredSyncIntervalMs } = options
  if (prefix !== undefined && !/^[^{}\s]+$/.test(prefix)) throw optionError('prefix', 'a non-empty string without spaces, { or }')
  if (reportIdTtlSeconds !== undefined && !(Number.isInteger(reportIdTtlSeconds) && reportIdTtlSeconds >= 60 && reportIdTtlSeconds <= 86_400)) {
    throw optionError('reportIdTtlSeconds', 'an integer from 60 to 86400')
  }
  if (preferredSyncIntervalMs !== undefined && !(Number.isInteger(preferredSyncIntervalMs) && preferredSyncIntervalMs >= 0 && preferredSyncIntervalMs <= 60_000)) {
    throw optionError('preferredSyncIntervalMs', 'an integer from 0 to 60000')
  }
}

/** Reads the sync script's flat triples ('@'name, updatedAt, [field, value, …]) into a room state. */
function readRoomState(reply: unknown, at: number): RoomState {
  const flat = replyArray(syncScript, reply)
  const locations: Record<string, LocationState> = {}
  for (let i = 0; i + 2 < flat.length; i += 3) {
    const fields = replyArray(syncScript, flat[i + 2])
    const counts: Record<string, number> = {}
    for (let j = 0; j + 1 < fields.length; j += 2) counts[String(fields[j])] = Number(fields[j + 1])
    locations[String(flat[i]).slice(1)] = { counts, updatedAt: Number(flat[i + 1]) }
  }
  return { locations, at }
}

/**
 * A coordinator over Redis: Upstash (REST) or any Redis 6.2+ (TCP).
 *
 * @example
 * ```ts
 * import { Redis } from '@upstash/redis'
 * import { upstashCoordinator } from 'hono-waiting-room/upstash'
 *
 * app.use(waitingRoom({ coordinator: upstashCoordinator(Redis.fromEnv()) }))
 * ```
 */
export function upstashCoordinator(redis: RedisScripting, options: UpstashCoordinatorOptions = {}): UpstashCoordinator {
  validate(redis, options)
  const prefix = options.prefix ?? 'wr'
  const reportIdTtl = String(options.reportIdTtlSeconds ?? 600)
  const keysOf = (roomId: string): RoomKeys => roomKeys(prefix, roomId)

  const coordinator: UpstashCoordinator = {
    name: DRIVER_NAME,

    async increment(request: CounterRequest): Promise<CounterResult> {
      const keys = keysOf(request.roomId)
      const { reply } = await runScript(
        redis,
        incrementScript,
        [keys.counter(request.scope, request.minute), keys.counter(request.scope, request.minute - 1)],
        [request.token, String(request.limit), COUNTER_TTL_SECONDS, newAttempt(), reportedArg(request.previousReported)],
      )
      const [taken, seq, repeat] = replyArray(incrementScript, reply).map(Number)
      return repeat ? { taken: true, seq: seq!, repeat: true } : { taken: taken === 1, seq: seq! }
    },

    async takeSlot(request: SlotRequest): Promise<SlotResult> {
      const keys = keysOf(request.roomId)
      const { reply, roundTrips } = await runScript(
        redis,
        takeSlotScript,
        [
          keys.counter(request.location, request.minute),
          keys.counter(ANYWHERE, request.minute),
          keys.counter(request.location, request.minute - 1),
          keys.counter(ANYWHERE, request.minute - 1),
        ],
        [
          request.token,
          String(request.localLimit),
          String(request.anywhereLimit),
          COUNTER_TTL_SECONDS,
          newAttempt(),
          reportedArg(request.localPreviousReported),
          reportedArg(request.anywherePreviousReported),
        ],
      )
      const [via, repeat] = replyArray(takeSlotScript, reply).map(Number)
      if (via !== 1 && via !== 2) return { admitted: false, roundTrips }
      return { admitted: true, via: via === 1 ? 'location' : 'anywhere', repeat: repeat === 1, roundTrips }
    },

    async sync(report: WorkerReport): Promise<RoomState> {
      const keys = keysOf(report.roomId)
      const args = [report.location, String(report.at), String(report.keepMinutes), keys.locationPrefix, reportIdTtl]
      for (const field in report.deltas) {
        const delta = report.deltas[field]!
        if (delta !== 0) args.push(field, String(delta))
      }
      const { reply } = await runScript(redis, syncScript, [keys.location(report.location), keys.locations, keys.report(report.id)], args)
      return readRoomState(reply, report.at)
    },
  }
  if (options.preferredSyncIntervalMs !== undefined) {
    return { ...coordinator, preferredSyncIntervalMs: options.preferredSyncIntervalMs }
  }
  return coordinator
}

/** The same coordinator, named for self-hosted Redis (node-redis over TCP via `fromNodeRedis`). */
export const redisCoordinator: typeof upstashCoordinator = upstashCoordinator
