/**
 * @module
 * The location stage of seed 001 as hosted by a counter object: it merges its workers' reports into a
 * {@link LocationAggregator} and exchanges the merged state with the global object at an adaptive
 * interval — not on every report — so the global object's load stays flat however busy a colo is.
 *
 * After a restart it first adopts its earlier state from the global view (the aggregator's restore) plus the
 * grants its {@link GrantLog} holds past the global copy's mark, and only then publishes, so a half-rebuilt
 * state never replaces the global copy (see grant-log.ts for why nothing is counted twice).
 *
 * The room's epoch comes with every global view; the stage answers with the one of its last exchange. A
 * stage that has not reached the global object yet (it is down) answers with none.
 */
import { LocationAggregator } from '../../src/coordination/aggregator.ts'
import { MINUTE_MS, minuteOf } from '../../src/clock.ts'
import { emptyRoomState, OnceRegistry, onceRetentionMinutes, type LocationState, type RoomEpoch, type RoomState, type WorkerReport } from '../../src/coordination/state.ts'
import { MemoryGrantLog, type GrantLog, type GrantMark } from './grant-log.ts'
import { MoveRegisters, type Move } from '../../src/coordination/moves.ts'
import type { MoveResult } from './protocol.ts'
import { StageReferences, type FixReferences } from './stage-references.ts'

/** The global object's answer: every location, and the grant mark its copy of the asking location holds. */
export interface ExchangeAnswer extends RoomState {
  grants?: GrantMark
}

/**
 * Sends this location's state (null: only reads) with the mark of the newest grant it includes, and gets every
 * location back. `now` is the stage's clock (the reports' clock).
 */
export type Exchange = (state: LocationState | null, grants: GrantMark | undefined, now: number) => Promise<ExchangeAnswer>

/**
 * The room-wide once registry (the global object's `claim`): answers the keys this report holds. A stage
 * given none claims in its own memory only (one location: tests).
 */
export type Claim = (keys: string[], reportId: string, now: number, retentionMinutes: number) => Promise<string[]>

/** The room's move registers (the global object's `move`). A stage given none keeps them in its own memory (tests). */
export type MoveAt = (moves: Move[], now: number) => Promise<MoveResult[]>

export interface ExchangePacing {
  /** Shortest interval between exchanges, ms. */
  exchangeIntervalMs: number
  /** Target exchanges per second at the global object from all locations together. */
  globalExchangesPerSecond: number
}

/** An exchange slower than this (or failing) backs the interval off, up to 8×. */
const SLOW_EXCHANGE_MS = 250
const MAX_BACKOFF = 8

const changes = (report: WorkerReport): boolean => Object.keys(report.deltas).length > 0 || Object.keys(report.once ?? {}).length > 0

/** In-memory registers answering as the global object does (a stage with no global object: tests). */
function localMoves(registers: MoveRegisters): MoveAt {
  return (moves, now) => {
    registers.prune(minuteOf(now))
    return Promise.resolve(moves.map((move) => registers.apply(move)))
  }
}

export class LocationStage {
  readonly aggregator: LocationAggregator
  readonly grants: GrantLog
  /** The global view from the last exchange. */
  #view: RoomState = emptyRoomState()
  #lastExchangeAt = Number.NEGATIVE_INFINITY
  /** Wall-clock time of the last exchange: paces {@link flush}, which runs without a report (an alarm). */
  #lastExchangeWallMs = Number.NEGATIVE_INFINITY
  #backoff = 1
  #exchanging: Promise<void> | undefined
  /** Something changed since the state last reached the global object. */
  #dirty = false
  /** Newest time seen on the reports' clock (reports, views, grant minutes): the clock of a flush. */
  #knownAt = 0
  /** Newest `updatedAt` the global copy of this location had: the state sent is never older, or it would be ignored. */
  #heldAt = 0

  readonly #wallClock: () => number
  readonly #localOnce = new OnceRegistry()
  readonly #localMoves = localMoves(new MoveRegisters())
  readonly #references = new StageReferences()

  /** `wallClock` (default `Date.now`) paces {@link flush} and times exchanges; tests pass a fake one. */
  constructor(location: string, grants: GrantLog = new MemoryGrantLog(), wallClock: () => number = Date.now) {
    this.aggregator = new LocationAggregator(location)
    this.grants = grants
    this.#wallClock = wallClock
    for (const grant of grants.carried) this.#knownAt = Math.max(this.#knownAt, grant.minute * MINUTE_MS)
    // Reports earlier instances applied (and logged) stay applied: a retry after a restart adds nothing.
    this.aggregator.remember(grants.reports(), this.#knownAt)
  }

  /** Counts a fresh grant and records it in the log, in one synchronous step (the caller's counter row's). */
  grant(minute: number, deltas: Record<string, number>): void {
    this.aggregator.add(deltas)
    this.grants.record(minute, deltas)
    this.#dirty = true
    this.#knownAt = Math.max(this.#knownAt, minute * MINUTE_MS)
  }

  /** The room's epoch as of the last exchange (none before this stage's first one since a (re)start). */
  get epoch(): RoomEpoch | undefined {
    return this.#view.epoch
  }

  /** Newest time seen on the reports' clock. */
  get knownAt(): number {
    return this.#knownAt
  }

  /** True while the global object may lack something this location counted. */
  get unsent(): boolean {
    return this.#dirty || this.grants.unacknowledged
  }

  /**
   * Applies the report (once per id; its once keys as far as the room-wide `claim` grants them) and answers
   * with this location fresh and the others as of the last exchange. What it added is logged with the grants
   * in the same synchronous step (the output gate holds the answer until it is stored), so an abrupt restart
   * loses no acknowledged report: the restarted stage adds it back past the global copy's mark.
   */
  async sync(report: WorkerReport, pacing: ExchangePacing, exchange: Exchange, claim?: Claim, moveAt?: MoveAt, fix?: FixReferences): Promise<RoomState> {
    const now = report.at
    this.#knownAt = Math.max(this.#knownAt, now)
    const keys = Object.keys(report.once ?? {})
    // A retried report claims again and gets the same keys (claims are per report id); its apply adds nothing.
    const held = new Set(keys.length > 0 ? await this.#claim(claim, keys, report, now) : [])
    const added = this.aggregator.apply(report, now, (key) => held.has(key))
    if (added && changes(report)) {
      this.grants.record(minuteOf(now), added, report.id)
      this.#dirty = true
    }
    const moved = report.moves?.length ? await this.#move(moveAt ?? this.#localMoves, report.moves, now) : undefined
    // Asked of the room's global object beside the exchange (stage-references.ts): never a table of this stage's own.
    const fixing = this.#references.answer(report.references, now, this.#view.epoch?.id, fix)
    let running = this.#exchanging
    const due = !running && now - this.#lastExchangeAt >= this.intervalMs(pacing)
    if (due) running = this.#start(now, exchange, true)
    // The caller that started the exchange waits for it; others only while a restore is pending, so a
    // restarted stage never answers with half its state.
    if (running && (due || !this.aggregator.restored)) await running
    const locations = { ...this.#view.locations, [this.aggregator.location]: this.aggregator.state() }
    const { epoch } = this.#view
    const state: RoomState = epoch ? { locations, at: now, epoch } : { locations, at: now }
    if (moved) state.moved = moved
    const references = await fixing
    if (references) state.references = references
    return state
  }

  /**
   * Applies moves at the room's registers (on a retry too: they change nothing then), and their deltas here, logged
   * like a grant's (no report id: a retry's moves add nothing, so it needs none). Answers each ticket's minute.
   */
  async #move(moveAt: MoveAt, moves: Move[], now: number): Promise<Record<string, number>> {
    const results = await moveAt(moves, now)
    const moved: Record<string, number> = {}
    results.forEach((result, i) => {
      moved[moves[i]!.ticket] = result.answer
      if (Object.keys(result.deltas).length === 0) return
      this.aggregator.add(result.deltas)
      this.grants.record(minuteOf(now), result.deltas)
      this.#dirty = true
    })
    return moved
  }

  /**
   * Exchanges now — with no report, from the object's alarm — if something is unsent and the last exchange is
   * an interval ago (wall clock, so alarms and reports together keep the pacing). Answers in how many ms to
   * try again, or undefined when everything reached the global object.
   */
  async flush(pacing: ExchangePacing, exchange: Exchange): Promise<number | undefined> {
    if (this.#exchanging) await this.#exchanging
    if (!this.unsent) return undefined
    const wait = this.#lastExchangeWallMs + this.intervalMs(pacing) - this.#wallClock()
    if (wait > 0) return wait
    // Not on the reports' pacing clock: a report right after still exchanges when due, as without the alarm.
    await this.#start(this.#knownAt, exchange, false)
    return this.unsent ? this.intervalMs(pacing) : undefined
  }

  /** Claims at the room's registry; a stage with none claims in its own memory (one location: tests). */
  #claim(claim: Claim | undefined, keys: string[], report: WorkerReport, now: number): Promise<string[]> {
    if (claim) return claim(keys, report.id, now, onceRetentionMinutes(report.keepMinutes))
    return Promise.resolve(keys.filter((key) => this.#localOnce.claim(key, report.id, minuteOf(now))))
  }

  /** More locations → each exchanges less often, so the global object gets about `globalExchangesPerSecond`. */
  intervalMs(pacing: ExchangePacing): number {
    const locations = Math.max(1, Object.keys(this.#view.locations).length)
    return Math.max(pacing.exchangeIntervalMs, (locations * 1000) / pacing.globalExchangesPerSecond) * this.#backoff
  }

  #start(now: number, exchange: Exchange, paced: boolean): Promise<void> {
    if (paced) this.#lastExchangeAt = now
    return (this.#exchanging = this.#exchange(now, exchange).finally(() => (this.#exchanging = undefined)))
  }

  async #exchange(now: number, exchange: Exchange): Promise<void> {
    const started = (this.#lastExchangeWallMs = this.#wallClock())
    let sent = false
    try {
      if (!this.aggregator.restored) this.#restore(await exchange(null, undefined, now), now)
      // The mark and the state are taken in one synchronous step: the state holds exactly the grants up to the mark.
      const mark = this.grants.newest()
      const state = this.#outgoing()
      this.#dirty = false
      sent = true
      const answer = await exchange(state, mark, now)
      this.#adopt(answer)
      this.grants.acknowledge(answer.grants)
      this.#backoff = this.#wallClock() - started > SLOW_EXCHANGE_MS ? Math.min(MAX_BACKOFF, this.#backoff * 2) : 1
    } catch {
      // The global object is unreachable: keep the last view (or this location alone) and try again later.
      if (sent) this.#dirty = true
      this.#backoff = Math.min(MAX_BACKOFF, this.#backoff * 2)
    }
  }

  /**
   * Adopts the global copy of this location, then adds the grants earlier instances logged past its mark: the
   * copy holds every grant up to the mark and none after it.
   */
  #restore(view: ExchangeAnswer, now: number): void {
    if (this.aggregator.restored) return
    this.#adopt(view)
    this.aggregator.restoreFrom(view, now)
    const held = view.grants?.log === this.grants.newest().log ? view.grants.id : 0
    for (const grant of this.grants.carried) if (grant.id > held) this.aggregator.add(grant.deltas)
    this.grants.acknowledge(view.grants)
  }

  #adopt(view: ExchangeAnswer): void {
    this.#view = view
    for (const location in view.locations) this.#knownAt = Math.max(this.#knownAt, view.locations[location]!.updatedAt)
    this.#heldAt = Math.max(this.#heldAt, view.locations[this.aggregator.location]?.updatedAt ?? 0)
  }

  /**
   * The state to send, dated no earlier than the global copy or this stage's clock: grants alone do not move the
   * aggregator's `updatedAt` (0 after a restart), and a copy dated 0 would be ignored or forgotten at once.
   */
  #outgoing(): LocationState {
    const state = this.aggregator.state()
    const at = Math.max(this.#heldAt, this.#knownAt)
    return state.updatedAt >= at ? state : { counts: state.counts, updatedAt: at }
  }
}
