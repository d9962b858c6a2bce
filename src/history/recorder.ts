/**
 * @module
 * The worker's side of history: it folds what this worker saw into per-(minute, location) fields — counters
 * as deltas, gauges as the highest value seen — and writes them to the coordinator in the background, a batch
 * every `flushIntervalMs` at most. No request waits on it; a failed batch is retried with the same id (applied
 * once by the backend), and what is pending stays bounded (oldest minutes dropped first) if the backend is down.
 */
import { binOf, SESSION_BINS_SECONDS, WAIT_BINS_SECONDS } from './bins.ts'
import { F, HISTORY_DEDUPE_MINUTES, mergeField, mergeFields, type HistoryBatch, type HistoryRow, type HistoryStore } from './model.ts'
import { randomId } from '../ticket/random.ts'

export interface RecorderOptions {
  roomId: string
  retentionMinutes: number
  /** Shortest time between two writes. */
  flushIntervalMs: number
  /** The room's clock, for a write a timer makes. Default `Date.now`. */
  clock?: (() => number) | undefined
}

/** Rows held while the backend is unreachable, at most (then the oldest minutes go first). */
const MAX_PENDING_ROWS = 2000
const MINUTE_MS = 60_000

/** What a worker's snapshot shows of the room as a whole, plus the limits in force. */
export interface RoomGauges {
  activeUsers: number
  waitingUsers: number
  limit: number
  newUsersPerMinute: number
}

type MaybeHistory = Partial<HistoryStore>

export class HistoryRecorder {
  readonly options: RecorderOptions
  #pending = new Map<string, HistoryRow>()
  /** A batch sent but not acknowledged: resent as it is (same id). */
  #unsent: HistoryBatch | undefined
  #flushing: Promise<void> | undefined
  #lastFlushAt = Number.NEGATIVE_INFINITY
  #lastGauges: { minute: number; source: unknown } | undefined
  /** The coordinator of the last write: where `flushPending()` and the trailing timer write. */
  #lastCoordinator: MaybeHistory | undefined
  #trailing = false

  constructor(options: RecorderOptions) {
    this.options = options
  }

  /** The row last asked for, while it is pending: under a flood nearly every request adds to the same one. */
  #last: HistoryRow | undefined

  #row(minute: number, location: string): Record<string, number> {
    const last = this.#last
    if (last !== undefined && last.minute === minute && last.location === location) return last.fields
    const key = `${minute}\n${location}`
    let row = this.#pending.get(key)
    if (!row) {
      if (this.#pending.size >= MAX_PENDING_ROWS) this.#pending.delete(this.#pending.keys().next().value!)
      this.#pending.set(key, (row = { minute, location, fields: {} }))
    }
    this.#last = row
    return row.fields
  }

  /** Adds `delta` to a counter (admissions, arrivals, bins, extra counters). */
  add(minute: number, location: string, field: string, delta = 1): void {
    mergeField(this.#row(minute, location), field, delta)
  }

  /** An open counter another part of the room keeps (e.g. `challenge.passed`), summed like the others. */
  count(now: number, location: string, name: string, delta = 1): void {
    this.add(Math.floor(now / MINUTE_MS), location, F.extra(name), delta)
  }

  /** A user given a session now, after waiting since the start of minute `bucketId` (now, for a new user). */
  admitted(now: number, location: string, bucketId: number | undefined): void {
    const minute = Math.floor(now / MINUTE_MS)
    const waited = bucketId === undefined ? 0 : Math.max(0, Math.floor((now - bucketId * MINUTE_MS) / 1000))
    // Field by field, not an object literal with computed names: each such name was a runtime call, per new user (#16).
    const row = this.#row(minute, location)
    mergeField(row, F.admissions, 1)
    mergeField(row, F.waitBin(binOf(WAIT_BINS_SECONDS, waited)), 1)
    mergeField(row, F.waitMaxSeconds, waited)
    // The session starts: one sample at 0 s, moved along by each renewal (sessionRenewed).
    mergeField(row, F.sessionBin(0), 1)
  }

  /** A new user (no ticket yet) answered now. */
  arrived(now: number, location: string): void {
    this.add(Math.floor(now / MINUTE_MS), location, F.arrivals)
  }

  /**
   * A session renewed now: its one sample moves from the bin of its previous check-in (in that minute) to the
   * bin of its length now (in this minute). So each session is counted once, at its last check-in — what its
   * length was when it expired — and the move is two additive deltas, like the active count's.
   */
  sessionRenewed(now: number, location: string, acceptedAt: number, lastCheckInTime: number): void {
    if (!(acceptedAt > 0)) return
    const before = Math.max(0, (lastCheckInTime - acceptedAt) / 1000)
    const after = Math.max(0, (now - acceptedAt) / 1000)
    this.add(Math.floor(lastCheckInTime / MINUTE_MS), location, F.sessionBin(binOf(SESSION_BINS_SECONDS, before)), -1)
    this.add(Math.floor(now / MINUTE_MS), location, F.sessionBin(binOf(SESSION_BINS_SECONDS, after)), 1)
  }

  /** The room-wide gauges a snapshot shows; `source` (the snapshot) skips re-reading one already recorded. */
  gauges(now: number, location: string, gauges: RoomGauges, source?: unknown): void {
    const minute = Math.floor(now / MINUTE_MS)
    if (source !== undefined && this.#lastGauges?.source === source && this.#lastGauges.minute === minute) return
    this.#lastGauges = { minute, source }
    mergeFields(this.#row(minute, location), {
      [F.activeUsers]: gauges.activeUsers,
      [F.waitingUsers]: gauges.waitingUsers,
      [F.limit]: gauges.limit,
      [F.newUsersPerMinute]: gauges.newUsersPerMinute,
    })
  }

  /** Rows not yet written (tests, and the bound on memory). */
  get pendingRows(): number {
    return this.#pending.size
  }

  /**
   * Starts a background write if one is due; never waits for it. With rows pending but the interval not
   * over, a timer writes them when it is (unref'd, so it never keeps a process alive), so a worker that goes
   * idle still writes its last seconds.
   */
  maybeFlush(coordinator: MaybeHistory, now: number, waitUntil?: (p: Promise<unknown>) => void): void {
    this.#lastCoordinator = coordinator
    if (this.#pending.size === 0 && !this.#unsent) return
    const since = now - this.#lastFlushAt
    let work: Promise<unknown> | undefined
    if (!this.#flushing && since >= this.options.flushIntervalMs) work = this.flush(coordinator, now).catch(() => {})
    // The trailing write is not handed to `waitUntil`: it would hold the request's context open for up to the
    // flush interval, and its timer is unref'd (Deno and Node) so nothing would keep that context's loop alive.
    // An isolate that lives writes it; one evicted first loses at most its last interval.
    else if (!this.#trailing) void this.#flushLater(Math.max(0, this.options.flushIntervalMs - since))
    if (work) waitUntil?.(work) // started whether or not there is a waitUntil
  }

  /** One write after `delayMs` (a call while one is waiting does nothing). Nothing awaits it but `waitUntil`. */
  async #flushLater(delayMs: number): Promise<void> {
    this.#trailing = true
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, delayMs) as unknown as { unref?: () => void } | number
      if (typeof timer === 'object') timer.unref?.()
    })
    this.#trailing = false
    await this.flushPending().catch(() => {})
  }

  /** Writes what is pending now to the coordinator of the last write (`room.flush()`, the trailing timer). */
  flushPending(): Promise<void> {
    const coordinator = this.#lastCoordinator
    if (!coordinator || (this.#pending.size === 0 && !this.#unsent && !this.#flushing)) return Promise.resolve()
    return this.flush(coordinator, (this.options.clock ?? Date.now)())
  }

  /** Writes everything pending now (the admin API does, so a chart shows this worker's last seconds too). */
  flush(coordinator: MaybeHistory, now: number): Promise<void> {
    if (this.#flushing) return this.#flushing.then(() => this.flush(coordinator, now))
    this.#lastFlushAt = now
    if (!coordinator.recordHistory) {
      // A backend without history: nothing to keep.
      this.#pending.clear()
      this.#last = undefined
      return Promise.resolve()
    }
    const record = coordinator.recordHistory.bind(coordinator)
    this.#flushing = (async () => {
      // Past the backend's memory of ids, a resend could count twice: dropped instead (lost, never doubled).
      if (this.#unsent && now - this.#unsent.at < HISTORY_DEDUPE_MINUTES * MINUTE_MS) await record(this.#unsent)
      this.#unsent = undefined
      if (this.#pending.size === 0) return
      const rows = [...this.#pending.values()].filter((row) => Object.keys(row.fields).length > 0)
      this.#pending.clear()
      this.#last = undefined
      if (rows.length === 0) return
      this.#unsent = { id: randomId(), roomId: this.options.roomId, at: now, retentionMinutes: this.options.retentionMinutes, rows }
      await record(this.#unsent)
      this.#unsent = undefined
    })().finally(() => {
      this.#flushing = undefined
    })
    return this.#flushing
  }
}
