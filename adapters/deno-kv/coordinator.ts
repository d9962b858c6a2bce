/**
 * @module
 * `denoKvCoordinator(kv)`: counters and room state in Deno KV, shared by every isolate and region that
 * opens the same database (Deno Deploy's KV, or one file for several local processes). KV is one global
 * store, so there is no aggregator hierarchy: a report is summed into its location's keys and `sync`
 * answers with one `list` over the room's state (strongly consistent unless `stateConsistency` says not).
 * A slot's admission is summed into the asking location's keys by the counter's own commit (counters.ts).
 */
import type { Coordinator, CounterRequest, CounterResult } from '../../src/coordination/coordinator.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import { newEpoch, type RoomState, type WorkerReport } from '../../src/coordination/state.ts'
import { kvCounters } from './counters.ts'
import { roomKeys } from './keys.ts'
import { DRIVER_NAME, isKvLike, MAX_MUTATIONS, type KvConsistency, type KvKey, type KvLike } from './kv.ts'
import { applyReport, type ReportSettings } from './report.ts'
import { applyMoves } from './moves.ts'
import { fixReferences } from './references.ts'
import { markSighting } from './generation.ts'
import { ensureEpoch, readRoomState, type StateSettings } from './room-state.ts'
import { kvHistory, type KvHistoryLike } from './history.ts'

export interface DenoKvCoordinatorOptions {
  /** First parts of every key the adapter writes, to share a database with other data. Default `['hono-waiting-room']`. */
  prefix?: KvKey | undefined
  /**
   * Consistency of the state read in `sync`. `strong` (default) sees every report so far; `eventual` may read
   * a nearby replica on Deno Deploy — faster, a moment behind. Counters are always read strongly.
   */
  stateConsistency?: KvConsistency | undefined
  /** Most overlapping increments of one counter combined into one commit (1–998). Default 100. */
  maxBatch?: number | undefined
  /**
   * Attempts per counter round while other isolates keep winning the check, and per KV call while a shared
   * database file is locked by another process, before the call fails. Default 20.
   */
  maxAttempts?: number | undefined
  /** Most mutations per commit when applying a report (a field, or a once key and its deltas); a bigger report is split (1–998). Default 500. */
  fieldsPerCommit?: number | undefined
  /** How long a report id is remembered, in ms, so a retried report is applied once. Default 10 minutes. */
  reportIdTtlMs?: number | undefined
}

const DEFAULT_PREFIX: KvKey = ['hono-waiting-room']
/** Two mutations of a commit are not fields or tokens: the report id and `@updated`, or the counter itself. */
const MAX_ITEMS_PER_COMMIT = MAX_MUTATIONS - 2

/**
 * A coordinator on Deno KV. Pass the handle: `denoKvCoordinator(await Deno.openKv())`.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono'
 * import { waitingRoom } from 'hono-waiting-room'
 * import { denoKvCoordinator } from 'hono-waiting-room/deno-kv'
 *
 * const kv = await Deno.openKv()
 * const app = new Hono()
 * app.use(waitingRoom({ coordinator: denoKvCoordinator(kv) }))
 * Deno.serve(app.fetch)
 * ```
 */
export function denoKvCoordinator(kv: KvLike, options: DenoKvCoordinatorOptions = {}): Coordinator {
  checkHandle(kv)
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const stateConsistency = options.stateConsistency ?? 'strong'
  const maxBatch = integerOption('maxBatch', options.maxBatch, 100, 1, MAX_ITEMS_PER_COMMIT)
  const maxAttempts = integerOption('maxAttempts', options.maxAttempts, 20, 1, 1000)
  const fieldsPerCommit = integerOption('fieldsPerCommit', options.fieldsPerCommit, 500, 1, MAX_ITEMS_PER_COMMIT)
  const reportIdTtlMs = integerOption('reportIdTtlMs', options.reportIdTtlMs, 10 * 60_000, 1000, 24 * 60 * 60_000)
  if (!Array.isArray(prefix) || !prefix.every(isKeyPart)) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `${DRIVER_NAME}: prefix must be an array of strings, numbers, bigints, booleans or Uint8Arrays`)
  }
  if (stateConsistency !== 'strong' && stateConsistency !== 'eventual') {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `${DRIVER_NAME}: stateConsistency must be 'strong' or 'eventual'`)
  }

  const increment = kvCounters(kv, { prefix, maxBatch, maxAttempts })
  const reports: ReportSettings = { fieldsPerCommit, reportIdTtlMs, maxAttempts }
  const state: StateSettings = { maxAttempts, consistency: stateConsistency }
  // A `Deno.Kv` lists ranges too; a KV-compatible client without `{ start, end }` lists fails its history reads (503).
  const history = kvHistory(kv as unknown as KvHistoryLike, prefix, maxAttempts)
  return {
    name: DRIVER_NAME,
    fixesReferences: true,
    recordHistory: history.recordHistory,
    readHistory: history.readHistory,
    increment(request: CounterRequest): Promise<CounterResult> {
      return increment(request)
    },
    async sync(report: WorkerReport): Promise<RoomState> {
      const keys = roomKeys(prefix, report.roomId)
      // Before applying: the report advances the generation it is compared with.
      await markSighting(kv, keys, report, maxAttempts)
      await applyReport(kv, keys, report, reports)
      const moved = await applyMoves(kv, keys, report, maxAttempts)
      // The references touch no state key: fixed while the state is read, no round trip added.
      const [references, view] = await Promise.all([fixReferences(kv, keys, report, maxAttempts), readRoomState(kv, keys, report.at, report.keepMinutes, state)])
      if (moved) view.moved = moved
      if (references) view.references = references
      // No epoch stored: this report's room state is new (or was lost), so this report names its epoch.
      view.epoch ??= await ensureEpoch(kv, keys, newEpoch(report.id, report.at), state)
      return view
    },
  }
}

/** Throws an error that says how to get a handle when `kv` is not one. */
function checkHandle(kv: unknown): void {
  if (isKvLike(kv)) return
  const got = kv === null || kv === undefined ? String(kv) : typeof (kv as { then?: unknown }).then === 'function' ? 'a Promise' : typeof kv
  const fix =
    got === 'a Promise'
      ? 'await it: `denoKvCoordinator(await Deno.openKv())`'
      : 'pass `await Deno.openKv()` — are you running Deno with --unstable-kv (or "unstable": ["kv"] in deno.json)?'
  throw new WaitingRoomError('ERR_WR_OPTIONS', `${DRIVER_NAME}: expected an open Deno.Kv, got ${got}; ${fix}`)
}

function integerOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (Number.isInteger(value) && value >= min && value <= max) return value
  throw new WaitingRoomError('ERR_WR_OPTIONS', `${DRIVER_NAME}: ${name} must be an integer from ${min} to ${max}, got ${value}`)
}

function isKeyPart(part: unknown): boolean {
  return ['string', 'number', 'bigint', 'boolean'].includes(typeof part) || part instanceof Uint8Array
}
