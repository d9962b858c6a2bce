/**
 * @module
 * The location stage of seed 001 as hosted by a counter object: it merges its workers' reports into a
 * {@link LocationAggregator} and exchanges the merged state with the global object at an adaptive
 * interval — not on every report — so the global object's load stays flat however busy a colo is.
 *
 * After a restart it first adopts its earlier state from the global view (the aggregator's restore) and
 * only then publishes, so a half-rebuilt state never replaces the global copy.
 *
 * The room's epoch comes with every global view; the stage answers with the one of its last exchange. A
 * stage that has not reached the global object yet (it is down) answers with none.
 */
import { LocationAggregator } from '../../src/coordination/aggregator.ts'
import { emptyRoomState, type LocationState, type RoomState, type WorkerReport } from '../../src/coordination/state.ts'

/** Sends this location's state (null: only reads) and gets every location's back. */
export type Exchange = (state: LocationState | null) => Promise<RoomState>

export interface ExchangePacing {
  /** Shortest interval between exchanges, ms. */
  exchangeIntervalMs: number
  /** Target exchanges per second at the global object from all locations together. */
  globalExchangesPerSecond: number
}

/** An exchange slower than this (or failing) backs the interval off, up to 8×. */
const SLOW_EXCHANGE_MS = 250
const MAX_BACKOFF = 8

export class LocationStage {
  readonly aggregator: LocationAggregator
  /** The global view from the last exchange. */
  #view: RoomState = emptyRoomState()
  #lastExchangeAt = Number.NEGATIVE_INFINITY
  #backoff = 1
  #exchanging: Promise<void> | undefined

  constructor(location: string) {
    this.aggregator = new LocationAggregator(location)
  }

  /** Applies the report (once per id) and answers with this location fresh and the others as of the last exchange. */
  async sync(report: WorkerReport, pacing: ExchangePacing, exchange: Exchange): Promise<RoomState> {
    const now = report.at
    this.aggregator.apply(report, now)
    let running = this.#exchanging
    const due = !running && now - this.#lastExchangeAt >= this.intervalMs(pacing)
    if (due) running = this.#exchanging = this.#exchange(now, exchange).finally(() => (this.#exchanging = undefined))
    // The caller that started the exchange waits for it; others only while a restore is pending, so a
    // restarted stage never answers with half its state.
    if (running && (due || !this.aggregator.restored)) await running
    const locations = { ...this.#view.locations, [this.aggregator.location]: this.aggregator.state() }
    const { epoch } = this.#view
    return epoch ? { locations, at: now, epoch } : { locations, at: now }
  }

  /** More locations → each exchanges less often, so the global object gets about `globalExchangesPerSecond`. */
  intervalMs(pacing: ExchangePacing): number {
    const locations = Math.max(1, Object.keys(this.#view.locations).length)
    return Math.max(pacing.exchangeIntervalMs, (locations * 1000) / pacing.globalExchangesPerSecond) * this.#backoff
  }

  async #exchange(now: number, exchange: Exchange): Promise<void> {
    const started = Date.now()
    try {
      if (!this.aggregator.restored) {
        this.#view = await exchange(null)
        this.aggregator.restoreFrom(this.#view, now)
      }
      this.#view = await exchange(this.aggregator.state())
      this.#backoff = Date.now() - started > SLOW_EXCHANGE_MS ? Math.min(MAX_BACKOFF, this.#backoff * 2) : 1
    } catch {
      // The global object is unreachable: keep the last view (or this location alone) and try again later.
      this.#backoff = Math.min(MAX_BACKOFF, this.#backoff * 2)
    } finally {
      this.#lastExchangeAt = now
    }
  }
}
