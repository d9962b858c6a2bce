/**
 * @module
 * The SQLite coordinator: counters and room state in one SQLite file, so every process on a host —
 * a Bun server started several times with `reusePort`, a Node cluster — shares one room. Location
 * aggregation is the file itself: each report is merged by one `UPSERT … value = value + excluded.value`
 * and every sync reads the whole room back, so there is no aggregator to restart.
 *
 * The handle is passed in (`bun:sqlite` on Bun, `better-sqlite3` on Node; `./node.ts` opens the
 * latter from a path). Both are synchronous; each call runs in a short `BEGIN IMMEDIATE` transaction
 * (calls that queued while the file was locked share one), and a locked file is retried asynchronously,
 * never waited for on the thread that serves requests (`./writer.ts`). The
 * coordinator owns the handle: it sets WAL, `synchronous` and a busy timeout of 0 on it, and closes it
 * when its file is deleted or replaced (`./file-connection.ts`) — give the room its own connection
 * (another `new Database(path)` on the same file is cheap).
 *
 * @example
 * ```ts
 * import { Database } from 'bun:sqlite'
 * import { sqliteCoordinator } from 'hono-waiting-room/bun-sqlite'
 * app.use(waitingRoom({ coordinator: sqliteCoordinator(new Database('./room.db')) }))
 * ```
 */
import { minuteOf } from '../../src/clock.ts'
import {
  COUNTER_TTL_MINUTES,
  takeInOrder,
  type Coordinator,
  type CounterRequest,
  type CounterResult,
  type SlotRequest,
  type SlotResult,
} from '../../src/coordination/coordinator.ts'
import { onceRetentionMinutes, type RoomState, type WorkerReport } from '../../src/coordination/state.ts'
import type { SqliteDatabase } from './driver.ts'
import { fileConnections } from './file-connection.ts'
import type { Statements } from './schema.ts'
import { resolveOptions, type SqliteCoordinatorOptions } from './setup.ts'
import { advanceGeneration, applyMoves, applyReport, fixReferences, readRoom, roomEpoch, takeCounter } from './rows.ts'
import { REFERENCE_KEEP_MINUTES } from '../../src/coordination/reference.ts'
import { writer } from './writer.ts'
import { applyHistory, readHistoryRows } from './history.ts'
import type { HistoryBatch, HistoryQuery, HistoryRow } from '../../src/history/model.ts'
import { epochMarker } from './epoch-marker.ts'

export { isBusy, isFileError, type SqliteDatabase, type SqliteStatement, type SqlValue } from './driver.ts'
export type { SqliteCoordinatorOptions } from './setup.ts'

export const DRIVER_NAME = 'bun-sqlite'

/** Report ids are remembered this long, for retried reports (as long as the in-process aggregator does). */
const REPORT_ID_MEMORY_MS = 10 * 60_000
/** A location silent this long is dropped from the view (its sessions have all expired). */
const LOCATION_FORGET_MS = 24 * 60 * 60_000

/** The coordinator, with the fused `takeSlot` always there. */
export interface SqliteCoordinator extends Coordinator {
  readonly preferredSyncIntervalMs: number
  takeSlot(request: SlotRequest): Promise<SlotResult>
  recordHistory(batch: HistoryBatch): Promise<void>
  readHistory(query: HistoryQuery): Promise<HistoryRow[]>
  /** Closes the database handle (checkpointing the WAL when it is the file's last connection); later calls fail. */
  close(): void
}

/**
 * A coordinator over an open SQLite database. Creates its tables if missing, switches the file to WAL
 * (readers never block the writer; the other processes' commits are visible at once). Throws a
 * WaitingRoomError at once if the options are invalid or the handle cannot be set up; a file this process
 * cannot write is logged, and calls fail (the room's `failMode`) until it can.
 */
export function sqliteCoordinator(db: SqliteDatabase, options: SqliteCoordinatorOptions = {}): SqliteCoordinator {
  const o = resolveOptions(DRIVER_NAME, options)
  const connections = fileConnections(DRIVER_NAME, db, o)
  const transaction = writer(DRIVER_NAME, connections)
  const decisionWait = { ms: o.maxLockWaitMs, option: 'maxLockWaitMs' }
  const reportWait = { ms: o.maxSyncLockWaitMs, option: 'maxSyncLockWaitMs' }
  const marker = connections.path === undefined ? undefined : epochMarker(DRIVER_NAME, connections.path)

  // Pruning runs once per minute per process, inside the call that first sees the new minute, so it
  // costs one range delete a minute instead of a scan per call. Several processes each doing it is
  // harmless, and a prune rolled back with its transaction is caught up by the next minute's (ranges).
  let countersPrunedFor = Number.NEGATIVE_INFINITY
  const statePrunedFor = new Map<string, number>()

  const pruneCounters = (s: Statements, minute: number): void => {
    if (minute <= countersPrunedFor) return
    countersPrunedFor = minute
    s.pruneCounters.run(minute - COUNTER_TTL_MINUTES)
    s.pruneTokens.run(minute - COUNTER_TTL_MINUTES)
  }

  const pruneRoom = (s: Statements, roomId: string, minute: number, keepMinutes: number, at: number): void => {
    if (minute <= (statePrunedFor.get(roomId) ?? Number.NEGATIVE_INFINITY)) return
    statePrunedFor.set(roomId, minute)
    s.pruneState.run(roomId, keepMinutes > 0 ? minute - keepMinutes : Number.MIN_SAFE_INTEGER)
    if (keepMinutes > 0) s.pruneOnce.run(roomId, minute - onceRetentionMinutes(keepMinutes))
    s.pruneRegisters.run(roomId, minute)
    s.pruneReferences.run(roomId, minute - REFERENCE_KEEP_MINUTES)
    s.pruneLocations.run(roomId, at - LOCATION_FORGET_MS)
    s.pruneReports.run(at - REPORT_ID_MEMORY_MS)
  }

  return {
    name: DRIVER_NAME,
    preferredSyncIntervalMs: o.syncIntervalMs,
    fixesReferences: true,

    increment(request: CounterRequest): Promise<CounterResult> {
      return transaction('increment', decisionWait, (s) => {
        pruneCounters(s, request.minute)
        return takeCounter(s, request)
      })
    },

    // The location counter, then the Anywhere counter (seed 000), in one transaction: one lock, one commit.
    takeSlot(request: SlotRequest): Promise<SlotResult> {
      return transaction('takeSlot', decisionWait, (s): SlotResult => {
        pruneCounters(s, request.minute)
        return takeInOrder((counter) => takeCounter(s, counter), request, true)
      })
    },

    sync(report: WorkerReport): Promise<RoomState> {
      const { roomId, at } = report
      const minute = minuteOf(at)
      const oldest = report.keepMinutes > 0 ? minute - report.keepMinutes : Number.MIN_SAFE_INTEGER
      const synced = transaction('sync', reportWait, (s) => {
        pruneRoom(s, roomId, minute, report.keepMinutes, at)
        const applied = applyReport(s, report)
        const moved = applyMoves(s, report)
        const references = fixReferences(s, roomId, report.references)
        const epoch = roomEpoch(s, roomId, report, marker)
        const generation = advanceGeneration(s, roomId, report, epoch, applied, marker)
        const state = { ...readRoom(s, roomId, oldest, at, at - LOCATION_FORGET_MS), epoch, generation }
        const answered = references ? { ...state, references } : state
        return moved ? { ...answered, moved } : answered
      })
      if (!marker) return synced
      // Noted once committed: a generation of a transaction rolled back would later read as a restore.
      return synced.then((state) => (marker.noteGeneration(roomId, state.epoch.id, state.generation), state))
    },

    recordHistory: (batch) => transaction('recordHistory', reportWait, (s) => applyHistory(s, batch)),
    readHistory: (q) => transaction('readHistory', reportWait, (s) => readHistoryRows(s, q.roomId, q.fromMinute, q.toMinute)),

    // The generations this process saw are written before it lets go: a copy put back after a restart is then
    // noticed even when its last changes came within the marker's write interval (break19: a fleet restarted on a
    // copy of the file missed it when the marker last held the copy's own generation).
    close: () => {
      marker?.flush()
      connections.close()
    },
  }
}
