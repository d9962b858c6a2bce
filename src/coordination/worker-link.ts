/**
 * @module
 * One worker's link to the coordinator: it collects this worker's deltas, reports them in the background,
 * keeps the latest room state and the snapshot built from it. No request waits on a report; only a worker
 * with no state at all (a cold start) waits once for its first sync, so it never decides blind.
 */
import { minuteOf } from '../clock.ts'
import type { Coordinator } from './coordinator.ts'
import { WaitingRoomError } from '../errors.ts'
import { buildSnapshot, type Snapshot } from '../admission/snapshot.ts'
import { addCounts, type RoomState, type WorkerReport } from './state.ts'
import { randomId } from '../ticket/ticket.ts'

export interface LinkOptions {
  roomId: string
  sessionDurationMinutes: number
  /** Shortest time between reports while there is something to report. */
  syncIntervalMs: number
  /** Longest time a snapshot is used before it is refreshed even with nothing to report. */
  maxSnapshotAgeMs: number
  timeoutMs: number
  /** The room's clock, for reports sent after the request that caused them. */
  clock: () => number
  /** Minutes a queued user stays in the waiting count (see `waitingWindowMinutes`). Default 2. */
  waitingWindowMinutes?: number
}

/** Ticket ids remembered per minute for deduplication; past this a worker stops deduplicating until the next minute. */
const SEEN_LIMIT = 200_000
/** A sync slower than this backs the report interval off (up to 8×), so a busy aggregator is not overrun. */
const SLOW_SYNC_MS = 250
/** Minutes of history the room keeps beyond the session window (traffic reference, admissions average). */
const EXTRA_HISTORY_MINUTES = 6

/** Runs `promise` with a timeout; rejects with a coordinator error naming the adapter. */
export function withTimeout<T>(promise: Promise<T>, ms: number, adapter: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WaitingRoomError('ERR_WR_COORDINATOR', `${adapter}: no answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, timeout]).finally(() => {
    if (timer !== undefined) clearTimeout(timer)
  })
}

export class WorkerLink {
  readonly options: LinkOptions
  keepMinutes: number
  #state: RoomState | undefined
  #snapshot: Snapshot | undefined
  #pending = new Map<string, Record<string, number>>()
  /** Reports sent but not acknowledged: resent with the same id, so a lost reply is not counted twice. */
  #unacknowledged: WorkerReport[] = []
  #syncing: Promise<void> | undefined
  #lastSyncAt = Number.NEGATIVE_INFINITY
  #laterScheduled = false
  #last: { coordinator: Coordinator; location: string } | undefined
  #backoff = 1
  #seenMinute = Number.NaN
  #seen = new Set<string>()
  /** Failed coordinator calls (sync and counters), for metrics. */
  errors = 0
  #lastLoggedMinute = Number.NaN

  constructor(options: LinkOptions) {
    this.options = options
    this.keepMinutes = options.sessionDurationMinutes + EXTRA_HISTORY_MINUTES
  }

  /** Adds `delta` to `field` of `location`, to be reported. */
  record(location: string, field: string, delta: number): void {
    let deltas = this.#pending.get(location)
    if (!deltas) this.#pending.set(location, (deltas = {}))
    deltas[field] = (deltas[field] ?? 0) + delta
  }

  /**
   * True the first time `ticketId` is seen checking in during `minute` on this worker. Fifty clients
   * replaying one cookie are one user (DESIGN: deduplicate by ticket id within a minute).
   */
  firstCheckIn(ticketId: string, minute: number): boolean {
    if (minute !== this.#seenMinute) {
      this.#seenMinute = minute
      this.#seen.clear()
    }
    if (this.#seen.has(ticketId)) return false
    if (this.#seen.size < SEEN_LIMIT) this.#seen.add(ticketId)
    return true
  }

  /** Follows a runtime change of the session length (admin API, events): the active window changes with it. */
  setSessionDuration(minutes: number, now: number): void {
    if (minutes === this.options.sessionDurationMinutes) return
    this.options.sessionDurationMinutes = minutes
    this.keepMinutes = Math.max(this.keepMinutes, minutes + EXTRA_HISTORY_MINUTES)
    this.#rebuild(now)
  }

  /** The snapshot for `now`, rebuilt when the minute turned; undefined before the first sync. */
  snapshot(now: number): Snapshot | undefined {
    if (this.#snapshot && this.#snapshot.minute !== minuteOf(now)) this.#rebuild(now)
    return this.#snapshot
  }

  /**
   * The snapshot, waiting for a first sync on a cold start. It starts no report: the caller reports after it
   * has recorded its decision, so the decision itself goes out with that report.
   */
  async ready(coordinator: Coordinator, location: string, now: number): Promise<Snapshot> {
    if (!this.#state) await this.sync(coordinator, location, now)
    return this.snapshot(now)!
  }

  /**
   * Starts a background sync if one is due; never waits for it. With deltas pending but the interval not
   * over, a timer reports them when it is, so a worker's last decisions never wait for a request that may
   * not come.
   */
  maybeSync(coordinator: Coordinator, location: string, now: number, waitUntil?: (p: Promise<unknown>) => void): void {
    if (this.#syncing) return
    const since = now - this.#lastSyncAt
    const hasDeltas = this.#pending.size > 0 || this.#unacknowledged.length > 0
    const interval = hasDeltas ? this.options.syncIntervalMs * this.#backoff : this.options.maxSnapshotAgeMs
    if (since >= interval) waitUntil?.(this.sync(coordinator, location, now).catch(() => {}))
    else if (hasDeltas) waitUntil?.(this.#syncLater(coordinator, location, interval - since))
  }

  /**
   * Reports everything pending and takes the answer as the new state. Concurrent callers share one sync.
   * Deltas recorded while it was under way go out right after (with no interval) or one interval later.
   */
  sync(coordinator: Coordinator, location: string, now: number): Promise<void> {
    if (this.#syncing) return this.#syncing
    this.#last = { coordinator, location }
    this.#syncing = (async () => {
      await this.#send(coordinator, location, now)
      while (this.#pending.size > 0 && this.options.syncIntervalMs === 0) await this.#send(coordinator, location, this.options.clock())
    })().finally(() => {
      this.#syncing = undefined
    })
    if (this.options.syncIntervalMs === 0) return this.#syncing
    return this.#syncing.then(() => {
      if (this.#pending.size > 0) return this.#syncLater(coordinator, location, this.options.syncIntervalMs * this.#backoff)
    })
  }

  /** Reports what is pending now, with the coordinator and location of the last sync (e.g. before a shutdown). */
  async flush(): Promise<void> {
    if (!this.#last) return
    await this.#syncing?.catch(() => {})
    if (this.#pending.size > 0 || this.#unacknowledged.length > 0) await this.sync(this.#last.coordinator, this.#last.location, this.options.clock())
  }

  /** One report after `delayMs` (a call while one is waiting does nothing). */
  async #syncLater(coordinator: Coordinator, location: string, delayMs: number): Promise<void> {
    if (this.#laterScheduled) return
    this.#laterScheduled = true
    await new Promise((resolve) => setTimeout(resolve, delayMs))
    this.#laterScheduled = false
    if (this.#pending.size > 0 || this.#unacknowledged.length > 0) {
      await this.sync(coordinator, location, this.options.clock()).catch(() => {})
    }
  }

  async #send(coordinator: Coordinator, location: string, now: number): Promise<void> {
    for (const [where, deltas] of this.#pending) this.#unacknowledged.push(this.#report(where, deltas, now))
    this.#pending.clear()
    if (this.#unacknowledged.length === 0) this.#unacknowledged.push(this.#report(location, {}, now))
    const started = Date.now()
    try {
      let state: RoomState | undefined
      while (this.#unacknowledged.length > 0) {
        state = await withTimeout(coordinator.sync(this.#unacknowledged[0]!), this.options.timeoutMs, coordinator.name)
        this.#unacknowledged.shift()
      }
      this.#state = state
      this.#lastSyncAt = now
      this.#backoff = Date.now() - started > SLOW_SYNC_MS ? Math.min(8, this.#backoff * 2) : 1
      this.#rebuild(now)
    } catch (error) {
      this.#lastSyncAt = now
      this.#backoff = Math.min(8, this.#backoff * 2)
      this.failed(error, now)
      throw error
    }
  }

  /** Counts a coordinator failure; logs at most once a minute (an outage must not flood the logs). */
  failed(error: unknown, now: number): void {
    this.errors++
    const minute = minuteOf(now)
    if (minute === this.#lastLoggedMinute) return
    this.#lastLoggedMinute = minute
    console.warn(`[hono-waiting-room] coordinator error (logged once a minute): ${(error as Error)?.message ?? error}`)
  }

  #report(location: string, deltas: Record<string, number>, now: number): WorkerReport {
    return { id: randomId(), roomId: this.options.roomId, location, at: now, keepMinutes: this.keepMinutes, deltas }
  }

  /** Builds the snapshot from the last state plus this worker's own unreported deltas (read-your-writes). */
  #rebuild(now: number): void {
    if (!this.#state) return
    let state = this.#state
    if (this.#pending.size > 0 || this.#unacknowledged.length > 0) {
      const locations = { ...state.locations }
      const own = (where: string, deltas: Record<string, number>): void => {
        const counts = { ...(locations[where]?.counts ?? {}) }
        addCounts(counts, deltas)
        locations[where] = { counts, updatedAt: locations[where]?.updatedAt ?? now }
      }
      for (const report of this.#unacknowledged) own(report.location, report.deltas)
      for (const [where, deltas] of this.#pending) own(where, deltas)
      state = { locations, at: state.at }
    }
    this.#snapshot = buildSnapshot(state, now, this.options.sessionDurationMinutes, this.options.waitingWindowMinutes)
  }
}
