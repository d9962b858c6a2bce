/**
 * @module
 * The Redis coordinator: counters and aggregation as Lua scripts, so a new user's decision (location
 * counter, then Anywhere) is one round trip and a worker's report merge is another. Works over Upstash's
 * REST API (`@upstash/redis`: Vercel Edge, Cloudflare, Deno) and over TCP (node-redis via `fromNodeRedis`).
 */
import { ANYWHERE, type Coordinator, type CounterRequest, type CounterResult, type SlotRequest, type SlotResult } from '../../src/coordination/coordinator.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import { reentryExpiresAfter, registerExpiresAfter, type Reentry } from '../../src/coordination/moves.ts'
import { REFERENCE_KEEP_MINUTES } from '../../src/coordination/reference.ts'
import { onceRetentionMinutes, type RoomEpoch, type RoomState, type WorkerReport } from '../../src/coordination/state.ts'
import { grantFields, roomKeys, type RoomKeys } from './keys.ts'
import { readRoomState } from './room-state.ts'
import { DRIVER_NAME, replyInteger, runScript, type RedisScripting } from './run-script.ts'
import { incrementScript, syncScript } from './scripts.ts'
import { newAttempt, recoveryArg, reportedArg, seenArgs } from './script-args.ts'
import { byRoom, takeSlotsOfRoom } from './take-slots.ts'
import { historyKeys, readHistory, recordHistory } from './history.ts'
import { evictionGuard, type EvictionGuard } from './eviction-guard.ts'
import type { HistoryBatch, HistoryQuery, HistoryRow } from '../../src/history/model.ts'

export interface UpstashCoordinatorOptions {
  /** First part of every key, `{prefix}:{room}:…`; apps sharing one database need their own. Default `wr`. */
  prefix?: string | undefined
  /** Seconds a report id is remembered, so a retried report is applied once. Default 600 (10 minutes). */
  reportIdTtlSeconds?: number | undefined
  /** How often workers report, in ms, when the middleware's `syncIntervalMs` is not set. Default: unset (the middleware's 1000). */
  preferredSyncIntervalMs?: number | undefined
}

export interface UpstashCoordinator extends Coordinator {
  takeSlot(request: SlotRequest): Promise<SlotResult>
  takeSlots(requests: readonly SlotRequest[]): Promise<SlotResult[]>
  recordHistory(batch: HistoryBatch): Promise<void>
  readHistory(query: HistoryQuery): Promise<HistoryRow[]>
}

/**
 * A re-entry's register for the grant scripts (scripts.ts `reentrySource`): appends its key and ttl (seconds, from
 * the grant's minute, as a move's) to `keys` and `args`. A newcomer's grant (no re-entry) passes neither.
 */
function withReentry([keys, args]: [string[], string[]], roomKeys: RoomKeys, minute: number, reentry: Reentry | undefined): [string[], string[]] {
  if (!reentry) return [keys, args]
  keys.push(roomKeys.registerPrefix + reentry.ticket)
  args.push(String(Math.max(60, (reentryExpiresAfter(reentry, minute) - minute + 1) * 60)))
  return [keys, args]
}

/** The increment script's keys and arguments: where the grant's admission is counted (see the script). */
function incrementCall(keys: RoomKeys, request: CounterRequest, synced: RoomEpoch | undefined): [string[], string[]] {
  const { scope, location, minute } = request
  const fields = grantFields(minute)
  const anywhere = scope === ANYWHERE
  const kind = anywhere ? (location === undefined ? 'Z' : 'A') : location === undefined ? 'B' : location === scope ? 'L' : 'O'
  const own = anywhere ? keys.anywhere(minute) : keys.location(scope)
  const target = location === undefined ? own : keys.location(location)
  const counter = (m: number): string => (anywhere ? keys.anywhere(m) : keys.counter(scope, m))
  const firstField = kind === 'B' || kind === 'O' ? fields.notHere : kind === 'A' ? fields.fromAnywhere : ''
  return [
    [anywhere ? target : own, keys.token(minute, request.token), counter(minute), counter(minute - 1), target, keys.lost, keys.epoch, keys.generation],
    [
      newAttempt(),
      String(request.limit),
      reportedArg(request.previousReported),
      kind,
      String(minute),
      firstField,
      kind === 'O' ? fields.fromOther : '',
      recoveryArg(minute, request.recoveryMinutes),
      ...seenArgs(location === undefined ? {} : request, synced),
    ],
  ]
}

/**
 * Seconds a proposed reference's key lives: until REFERENCE_KEEP_MINUTES after its minute, counted from the
 * report's minute (no wall clock), at least a minute — then it expires, so the stored ones never grow with time.
 */
function referenceTtlSeconds(minute: number, reportMinute: number): number {
  return Math.max(60, (minute + REFERENCE_KEEP_MINUTES + 1 - reportMinute) * 60)
}

/** The sync script's arguments: the report's deltas (zeros left out), then its once entries, its moves, its proposed references. */
function syncArgs(report: WorkerReport, keys: RoomKeys, reportIdTtl: string): string[] {
  const { locationPrefix, oncePrefix } = keys
  const deltas: string[] = []
  for (const field in report.deltas) {
    const delta = report.deltas[field]!
    if (delta !== 0) deltas.push(field, String(delta))
  }
  const onceTtl = String((onceRetentionMinutes(report.keepMinutes) + 1) * 60)
  const args = [report.location, String(report.at), String(report.keepMinutes), locationPrefix, reportIdTtl, `${report.at}:${report.id}`, String(deltas.length / 2), oncePrefix, onceTtl, report.seen?.epoch ?? '', String(report.seen?.generation ?? 0), keys.registerPrefix, String(report.moves?.length ?? 0), String(report.references?.length ?? 0), ...deltas]
  for (const key in report.once) {
    const entry = report.once[key]!
    const start = args.push(key, '0')
    for (const field in entry) if (entry[field] !== 0) args.push(field, String(entry[field]))
    args[start - 1] = String((args.length - start) / 2)
  }
  const reportMinute = Math.floor(report.at / 60_000)
  for (const move of report.moves ?? []) {
    // The register lives until its count has left every window, counted from the report's minute (no wall clock).
    const ttl = Math.max(60, (registerExpiresAfter(move) - reportMinute + 1) * 60)
    args.push(move.ticket, move.from === undefined ? '' : String(move.from), String(move.to), String(move.since), String(ttl))
  }
  for (const { minute, table, id } of report.references ?? []) args.push(String(minute), JSON.stringify({ minute, table, id }), String(referenceTtlSeconds(minute, reportMinute)))
  return args
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
  // roomKeys first: it refuses a room id that would break the hash tag.
  const historyKeysOf = (roomId: string) => (keysOf(roomId), historyKeys(`${prefix}:{${roomId}}`))
  /** Room → the epoch this coordinator's last sync of it answered (one entry per room it serves): see seenArgs. */
  const synced = new Map<string, RoomEpoch>()
  /** Room → its reading of Redis's eviction settings (eviction-guard.ts): per room, as a cluster may hold rooms on different nodes. */
  const guards = new Map<string, EvictionGuard>()
  const guarded = (roomId: string, minute: number, keys: RoomKeys): Promise<void> => {
    let guard = guards.get(roomId)
    if (!guard) guards.set(roomId, (guard = evictionGuard(redis)))
    return guard.check(minute, keys.epoch)
  }

  const takeSlots = async (requests: readonly SlotRequest[]): Promise<SlotResult[]> => {
    const rooms = byRoom(requests)
    const results: SlotResult[] = new Array(requests.length)
    await Promise.all([...rooms].map(async ([roomId, indexes]) => {
      const keys = keysOf(roomId)
      const ofRoom = indexes.map((i) => requests[i]!)
      for (const minute of new Set(ofRoom.map((request) => request.minute))) await guarded(roomId, minute, keys)
      const answers = await takeSlotsOfRoom(redis, keys, ofRoom, synced.get(roomId))
      indexes.forEach((i, at) => (results[i] = answers[at]!))
    }))
    return results
  }

  const coordinator: Omit<UpstashCoordinator, 'takeSlots'> = {
    name: DRIVER_NAME,
    fixesReferences: true,

    async increment(request: CounterRequest): Promise<CounterResult> {
      const keys = keysOf(request.roomId)
      await guarded(request.roomId, request.minute, keys)
      const { reply } = await runScript(redis, incrementScript, ...withReentry(incrementCall(keys, request, synced.get(request.roomId)), keys, request.minute, request.reentry))
      const code = replyInteger(incrementScript, reply)
      if (code < 0) return { taken: false, seq: 0, recovering: true }
      const seq = Math.floor(code / 4)
      if (code & 2) return { taken: true, seq, repeat: true }
      return { taken: (code & 1) === 1, seq }
    },

    // A batch of one: the same script, so a single decision and a crowd's are decided by one Lua body.
    takeSlot: async (request: SlotRequest): Promise<SlotResult> => (await takeSlots([request]))[0]!,

    async sync(report: WorkerReport): Promise<RoomState> {
      const keys = keysOf(report.roomId)
      const { reply } = await runScript(
        redis,
        syncScript,
        [keys.location(report.location), keys.locations, keys.report(report.id), keys.epoch, keys.generation, keys.lost],
        syncArgs(report, keys, reportIdTtl),
      )
      const state = readRoomState(reply, report.at)
      if (state.epoch) synced.set(report.roomId, state.epoch)
      return state
    },

    recordHistory: (batch) => recordHistory(redis, historyKeysOf(batch.roomId), batch),
    readHistory: (query) => readHistory(redis, historyKeysOf(query.roomId), query),
  }
  // Not enumerable: a wrapper that spreads this coordinator and overrides `takeSlot` (a spy, a metrics layer) is asked
  // per request as before, not bypassed by a copied `takeSlots`; the core batches only through a `takeSlots` it is given.
  // Writable and configurable, as a plain property is: a Proxy wrapping each method (tracing, timing) must be free to
  // answer its own function for it (test/breaker/breakbatch17/proxy-wrapper.test.ts).
  const withBatches = (target: Coordinator): UpstashCoordinator =>
    Object.defineProperty(target, 'takeSlots', { value: takeSlots, enumerable: false, writable: true, configurable: true }) as UpstashCoordinator
  return withBatches(options.preferredSyncIntervalMs === undefined ? coordinator : { ...coordinator, preferredSyncIntervalMs: options.preferredSyncIntervalMs })
}

/** The same coordinator, named for self-hosted Redis (node-redis over TCP via `fromNodeRedis`). */
export const redisCoordinator: typeof upstashCoordinator = upstashCoordinator
