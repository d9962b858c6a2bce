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
import { sessionEnd, type SimUser } from './users.ts'

const MINUTE_MS = 60_000
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
  /** Users with a live session now. Sessions end on minute boundaries only, so within a minute this only grows. */
  activeNow = 0
  /** Users waiting now. */
  queueLength = 0
  readonly #room: RoomSpec
  readonly #admitted: SimUser[] = []
  readonly #everAdmitted = new Set<SimUser>()
  #row: MinuteRow

  constructor(room: RoomSpec) {
    this.#room = room
    this.#row = emptyRow(0, room.totalActiveUsers, 0)
  }

  get minute(): number {
    return this.#row.minute
  }

  /** Begins minute `minute`: sessions whose end has come no longer count. */
  startMinute(minute: number): void {
    const startMs = minute * MINUTE_MS
    this.activeNow = 0
    for (const user of this.#admitted) if (user.sessionEndMs > startMs) this.activeNow++
    this.#row = emptyRow(minute, this.#room.totalActiveUsers, this.activeNow)
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
  }

  arrived(): void {
    this.#row.arrivals++
  }

  /** An admitted response: an admission, or a request of a user already visiting. */
  admitted(user: SimUser, decision: WaitingRoomDecision, atMs: number): void {
    if (user.state !== 'visiting') {
      if (decision.reason !== 'slot') this.anomalies.unexpected++
      if (user.state === 'queued') this.queueLength--
      user.state = 'visiting'
      user.admittedMs = atMs
      this.#row.admitted++
      if (user.sessionEndMs <= atMs) this.activeNow++
      this.#row.active = Math.max(this.#row.active, this.activeNow)
      if (!this.#everAdmitted.has(user)) {
        this.#everAdmitted.add(user)
        this.#admitted.push(user)
      }
    } else if (decision.reason !== 'session') {
      this.anomalies.lostSessions++
    }
    user.sessionEndMs = sessionEnd(atMs, this.#room.sessionDurationMinutes)
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
      const example = diagnose(decision, truth, this.#room)
      this.prematureCauses[example.cause]++
      if (this.prematureExamples.length < EXAMPLES_KEPT) this.prematureExamples.push(example)
    }
  }
}
