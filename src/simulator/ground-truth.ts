/**
 * @module
 * The ground truth the core is measured against: who holds a live session, who waits, and every response
 * turned into per-minute figures. It knows only what a browser would: the decisions and the cookies.
 */
import type { WaitingRoomDecision } from '../room/middleware.ts'
import type { CounterLog } from './counter-log.ts'
import { diagnose, type QueueDecision, type Truth } from './diagnose.ts'
import {
  emptyRow,
  PREMATURE_CAUSES,
  type Anomalies,
  type MinuteRow,
  type PrematureCause,
  type PrematureExample,
  type SeriesPoint,
} from './metrics.ts'
import type { RoomSpec } from './scenario.ts'
import { grantPosition, renewedPosition, sessionEnd, type SimUser } from './users.ts'

const MINUTE_MS = 60_000
const END_GRID_MS = 250
/** Premature decisions kept as examples in the result. */
const EXAMPLES_KEPT = 40

export class GroundTruth {
  readonly rows: MinuteRow[] = []
  readonly series: SeriesPoint[] = []
  readonly anomalies: Anomalies = { lostSessions: 0, tooEarly: 0, lostQueuePlaces: 0, unexpected: 0 }
  readonly prematureCauses = Object.fromEntries(PREMATURE_CAUSES.map((cause) => [cause, 0])) as Record<PrematureCause, number>
  readonly prematureExamples: PrematureExample[] = []
  /** Ground truth at the first queueing decision. */
  firstQueue: { atMs: number; activeUsers: number } | undefined
  /** Users with a live session now. */
  activeNow = 0
  /** Users waiting now. */
  queueLength = 0
  readonly #room: RoomSpec
  /** Utilisation (active ÷ totalActiveUsers, %) sampled while users waited and the limit was binding. */
  readonly utilisationSamples: number[] = []
  /** Session end (ms) → users whose session ends then. */
  readonly #ends = new Map<number, number>()
  #expiredTo = 0
  #row: MinuteRow

  constructor(room: RoomSpec) {
    this.#room = room
    this.#row = emptyRow(0, room.totalActiveUsers, 0)
  }

  get minute(): number {
    return this.#row.minute
  }

  /** Begins minute `minute` (call `expire` first: sessions that ended by its start no longer count). */
  startMinute(minute: number): void {
    this.#row = emptyRow(minute, this.#room.totalActiveUsers, this.activeNow)
  }

  /** Sessions whose end has come by `atMs` no longer count (ends fall on whole seconds). */
  expire(atMs: number): void {
    // Session ends fall on the positions' grid (3.75 s) or on whole minutes: all multiples of 250 ms.
    for (; this.#expiredTo <= atMs; this.#expiredTo += END_GRID_MS) {
      const ending = this.#ends.get(this.#expiredTo)
      if (ending === undefined) continue
      this.activeNow -= ending
      this.#ends.delete(this.#expiredTo)
    }
  }

  /** Ends the current minute; `coreMinute` names its counters (epoch minutes). */
  closeMinute(counters: CounterLog, coreMinute: number): void {
    const row = this.#row
    const { totalActiveUsers: limit, newUsersPerMinute } = this.#room
    row.overshoot = Math.max(0, row.active - limit)
    if (row.queued > 0) row.idleSlots = Math.max(0, Math.min(limit - row.active, newUsersPerMinute - row.admitted))
    row.queueLength = this.queueLength
    const unused = counters.unused(coreMinute)
    row.unusedLocationSlots = unused.locations
    row.unusedAnywhereSlots = unused.anywhere
    counters.useByMinute.delete(coreMinute)
    this.rows.push(row)
  }

  sample(atMs: number): void {
    this.series.push({ atMs, active: this.activeNow, queue: this.queueLength })
    // Utilisation while anyone waits, where totalActiveUsers is what keeps them waiting.
    if (this.queueLength > 0 && this.#row.admitted < this.#room.newUsersPerMinute) {
      this.utilisationSamples.push((100 * this.activeNow) / this.#room.totalActiveUsers)
    }
  }

  arrived(): void {
    this.#row.arrivals++
  }

  /** An admitted response: an admission, or a request of a user already visiting. */
  admitted(user: SimUser, decision: WaitingRoomDecision, atMs: number): void {
    const wasActive = user.sessionEndMs > atMs
    if (user.state !== 'visiting') {
      if (decision.reason !== 'slot') this.anomalies.unexpected++
      if (user.state === 'queued') this.queueLength--
      user.state = 'visiting'
      user.admittedMs = atMs
      this.#row.admitted++
    } else if (decision.reason !== 'session') {
      this.anomalies.lostSessions++
    }
    if (wasActive) this.#ends.set(user.sessionEndMs, this.#ends.get(user.sessionEndMs)! - 1)
    else this.activeNow++
    this.#row.active = Math.max(this.#row.active, this.activeNow)
    user.position = wasActive && user.state === 'visiting' ? renewedPosition(user.position, atMs) : grantPosition(atMs)
    user.sessionEndMs = sessionEnd(user.position, this.#room.sessionDurationMinutes)
    this.#ends.set(user.sessionEndMs, (this.#ends.get(user.sessionEndMs) ?? 0) + 1)
  }

  /** A queued response. Returns true when it was a queueing decision (not a too-early check-in). */
  queued(user: SimUser, decision: WaitingRoomDecision): boolean {
    if (decision.reason === 'too-early') {
      this.anomalies.tooEarly++
      return false
    }
    this.#row.queued++
    user.queueDecisions++
    if (user.state === 'visiting') this.anomalies.lostSessions++
    if (user.state !== 'queued') this.queueLength++
    if (user.state === 'arriving') this.#row.newlyQueued++
    if (user.state === 'queued' && decision.bucketId !== user.bucketId) this.anomalies.lostQueuePlaces++
    user.bucketId = decision.bucketId
    user.state = 'queued'
    return true
  }

  unexpected(): void {
    this.anomalies.unexpected++
  }

  /**
   * Judges the queueing decisions of one step, after every admission of the step, so a simultaneous
   * admission cannot make a queueing look premature: premature while active < limit and this minute's
   * admissions < newUsersPerMinute.
   */
  judge(queued: readonly QueueDecision[], atMs: number, now: number): void {
    if (queued.length === 0) return
    this.firstQueue ??= { atMs, activeUsers: this.activeNow }
    const row = this.#row
    if (this.activeNow >= this.#room.totalActiveUsers || row.admitted >= this.#room.newUsersPerMinute) return
    const truth: Truth = { atMs, now, activeUsers: this.activeNow, admittedThisMinute: row.admitted }
    for (const decision of queued) {
      row.premature++
      const keep = this.prematureExamples.length < EXAMPLES_KEPT
      const example = diagnose(decision, truth, this.#room, keep)
      this.prematureCauses[example.cause]++
      if (keep) this.prematureExamples.push(example)
    }
  }
}
