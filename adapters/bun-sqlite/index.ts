/**
 * @module
 * The SQLite coordinator: counters and room state in one SQLite file, so every process on a host —
 * a Bun server started several times with `reusePort`, a Node cluster — shares one room. Location
 * aggregation is the file itself: each report is merged by one `UPSERT … value = value + excluded.value`
 * and every sync reads the whole room back, so there is no aggregator to restart.
 *
 * The handle is passed in (`bun:sqlite` on Bun, `better-sqlite3` on Node; `./node.ts` opens the
 * latter from a path). Both are synchronous; each call is one short `BEGIN IMMEDIATE` transaction.
 * The adapter sets WAL, `synchronous` and `busy_timeout` on that handle: give the room its own
 * connection (another `new Database(path)` on the same file is cheap).
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
  anywhereCounterRequest,
  COUNTER_TTL_MINUTES,
  locationCounterRequest,
  type Coordinator,
  type CounterRequest,
  type CounterResult,
  type SlotRequest,
  type SlotResult,
} from '../../src/coordination/coordinator.ts'
import { fieldMinute, type RoomState, type WorkerReport } from '../../src/coordination/state.ts'
import { transactions, type SqliteDatabase } from './driver.ts'
import { openSchema, resolveOptions, type SqliteCoordinatorOptions } from './setup.ts'
import { readRoom, takeCounter } from './rows.ts'

export { isBusy, type SqliteDatabase, type SqliteStatement, type SqlValue } from './driver.ts'
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
}

/**
 * A coordinator over an open SQLite database. Creates its tables if missing, switches the file to WAL
 * (readers never block the writer; the other processes' commits are visible at once) and sets the busy
 * timeout. Throws a WaitingRoomError at once if the options are invalid or the file cannot be set up.
 */
export function sqliteCoordinator(db: SqliteDatabase, options: SqliteCoordinatorOptions = {}): SqliteCoordinator {
  const o = resolveOptions(DRIVER_NAME, options)
  const s = openSchema(DRIVER_NAME, db, o)
  const transaction = transactions(db, { adapter: DRIVER_NAME, maxLockWaitMs: o.maxLockWaitMs })

  // Pruning runs once per minute per process, inside the call that first sees the new minute, so it
  // costs one range delete a minute instead of a scan per call. Several processes each doing it is
  // harmless, and a prune rolled back with its transaction is caught up by the next minute's (ranges).
  let countersPrunedFor = Number.NEGATIVE_INFINITY
  const statePrunedFor = new Map<string, number>()

  const pruneCounters = (minute: number): void => {
    if (minute <= countersPrunedFor) return
    countersPrunedFor = minute
    s.pruneCounters.run(minute - COUNTER_TTL_MINUTES)
    s.pruneTokens.run(minute - COUNTER_TTL_MINUTES)
  }

  const pruneRoom = (roomId: string, minute: number, oldest: number, at: number): void => {
    if (minute <= (statePrunedFor.get(roomId) ?? Number.NEGATIVE_INFINITY)) return
    statePrunedFor.set(roomId, minute)
    s.pruneState.run(roomId, oldest)
    s.pruneLocations.run(roomId, at - LOCATION_FORGET_MS)
    s.pruneReports.run(at - REPORT_ID_MEMORY_MS)
  }

  return {
    name: DRIVER_NAME,
    preferredSyncIntervalMs: o.syncIntervalMs,

    increment(request: CounterRequest): Promise<CounterResult> {
      return transaction('increment', () => {
        pruneCounters(request.minute)
        return takeCounter(s, request)
      })
    },

    // The location counter, then the Anywhere counter (seed 000), in one transaction: one lock, one commit.
    takeSlot(request: SlotRequest): Promise<SlotResult> {
      return transaction('takeSlot', (): SlotResult => {
        pruneCounters(request.minute)
        if (request.localLimit > 0) {
          const local = takeCounter(s, locationCounterRequest(request))
          if (local.taken) return { admitted: true, via: 'location', repeat: local.repeat === true, roundTrips: 1 }
        }
        if (request.anywhereLimit > 0) {
          const anywhere = takeCounter(s, anywhereCounterRequest(request))
          if (anywhere.taken) return { admitted: true, via: 'anywhere', repeat: anywhere.repeat === true, roundTrips: 1 }
        }
        return { admitted: false, roundTrips: 1 }
      })
    },

    sync(report: WorkerReport): Promise<RoomState> {
      const { roomId, location, at } = report
      const minute = minuteOf(at)
      const oldest = report.keepMinutes > 0 ? minute - report.keepMinutes : Number.MIN_SAFE_INTEGER
      return transaction('sync', () => {
        pruneRoom(roomId, minute, oldest, at)
        if (s.claimReport.get(roomId, report.id, at) != null) {
          for (const field in report.deltas) {
            const amount = report.deltas[field]!
            if (amount !== 0) s.addField.run(roomId, location, field, fieldMinuteOrThrow(field), amount)
          }
          s.touchLocation.run(roomId, location, at)
        }
        return readRoom(s, roomId, oldest, at, at - LOCATION_FORGET_MS)
      })
    },
  }
}

/** A field without a minute is a bug in the caller: fail the sync rather than keep the field forever. */
function fieldMinuteOrThrow(field: string): number {
  const minute = fieldMinute(field)
  if (!Number.isInteger(minute)) throw new Error(`field "${field}" has no minute number`)
  return minute
}
