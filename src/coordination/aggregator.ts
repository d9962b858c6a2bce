/**
 * @module
 * The two aggregation stages of seed 001, as plain objects an adapter can host (in a Map, a Durable
 * Object, a process): a location aggregator merges its workers' reports, and one global aggregator per
 * room stores every location's state and answers with all of it.
 *
 * State is rebuilt rather than backed up: the global aggregator holds each location's latest full state,
 * so a restarted location aggregator adopts its own entry from the global view before it publishes; a
 * restarted global aggregator is refilled by the next exchange of every location.
 */
import { addCounts, applyOnce, pruneCounts, type LocationState, type RoomState, type WorkerReport } from './state.ts'
import { minuteOf } from '../clock.ts'
import { newChangeLog, recordAnswer } from './view-changes.ts'
import { AppliedReports } from './applied-reports.ts'

const isEmpty = (record: Record<string, number>): boolean => {
  for (const _ in record) return false
  return true
}

/** How long a report id is remembered for idempotent retries. */
const REPORT_ID_MEMORY_MS = 10 * 60_000
const REPORT_ID_LIMIT = 50_000

export class LocationAggregator {
  readonly location: string
  /** Replaced, never changed, once published by `state()` (copy on write): state() need not copy it. */
  #counts: Record<string, number> = {}
  /** True while `#counts` is the object of a handed-out state (copied before the next change). */
  #shared = false
  #published: LocationState | undefined
  /** The oldest minute the last prune kept (-Infinity: no pruning); undefined when fields came in since without one. */
  #prunedFrom: number | undefined
  #updatedAt = 0
  #keepMinutes = 0
  #activeMinutes = 0
  #seen = new AppliedReports(REPORT_ID_MEMORY_MS, REPORT_ID_LIMIT)
  /** False until this aggregator has adopted its earlier state from the global view (after a restart). */
  restored = false

  constructor(location: string) {
    this.location = location
  }

  /**
   * Merges a worker's report; returns the deltas it added (its own and those of the once keys `claim` granted
   * it: the room-wide registry), or undefined if this report id was already applied (a retry).
   */
  apply(report: WorkerReport, now: number, claim: (key: string) => boolean): Record<string, number> | undefined {
    if (this.#seen.has(report.id)) return undefined
    this.#seen.remember(report.id, now)
    const added = { ...report.deltas }
    applyOnce(added, report.once, claim)
    this.#keepMinutes = Math.max(this.#keepMinutes, report.keepMinutes)
    this.#activeMinutes = Math.max(this.#activeMinutes, Math.min(report.activeMinutes ?? report.keepMinutes, report.keepMinutes))
    // A report that adds nothing (most of a quiet worker's), with nothing to prune, leaves the counts as they were:
    // the next state shares them rather than copying them per report (issue 15: 2% of the simulator's time).
    if (!isEmpty(added) || this.#pruneFrom(now) !== this.#prunedFrom) {
      this.#writable()
      addCounts(this.#counts, added)
      this.#prune(now)
    }
    this.#updatedAt = now
    this.#published = undefined
    return added
  }

  /** Marks report ids as applied (restored from storage after a restart), so their retries add nothing. */
  remember(ids: Iterable<string>, now: number): void {
    for (const id of ids) this.#seen.remember(id, now)
  }

  /**
   * Adds deltas that come with no report: the admission a counter granted, applied by the adapter in the same
   * step as the grant (`admissionDeltas`). Published with the next `state()`.
   */
  add(deltas: Record<string, number>): void {
    this.#writable()
    addCounts(this.#counts, deltas)
    this.#prunedFrom = undefined
  }

  /** Adopts this location's state from a global view once after a (re)start; later calls do nothing. */
  restoreFrom(view: RoomState, now: number): void {
    if (this.restored) return
    this.restored = true
    const earlier = view.locations[this.location]
    if (earlier) {
      this.#writable()
      addCounts(this.#counts, earlier.counts)
      this.#prune(now)
    }
  }

  /**
   * The merged state. Shared until the next change (the aggregator copies before it writes again), so the
   * global stage and every answer hold one copy of the counts, not one each. Callers must not mutate it.
   */
  state(): LocationState {
    if (this.#published) return this.#published
    this.#shared = true
    return (this.#published = { counts: this.#counts, updatedAt: this.#updatedAt })
  }

  /** Copy on write: counts that were handed out are copied before the next change. */
  #writable(): void {
    if (this.#shared) this.#counts = { ...this.#counts }
    this.#shared = false
    this.#published = undefined
  }

  /** The oldest minute a prune at `now` keeps (-Infinity: nothing is pruned). */
  #pruneFrom(now: number): number {
    return this.#keepMinutes > 0 ? minuteOf(now) - this.#keepMinutes : -Infinity
  }

  #prune(now: number): void {
    const from = this.#pruneFrom(now)
    // Active counts from fewer minutes back, when every report said so (0: a report without limits).
    if (from > -Infinity) pruneCounts(this.#counts, from, this.#activeMinutes > 0 ? Math.max(from, minuteOf(now) - this.#activeMinutes) : from)
    this.#prunedFrom = from
  }
}

export class GlobalAggregator {
  #locations = new Map<string, LocationState>()
  /** What changed between answers, so a reader can read only that (view-changes.ts). */
  #log = newChangeLog()
  /** Names stored since the last answer was made (that answer does not show them). */
  #stored = new Set<string>()
  #dropped = false
  /** The last answer's record, and a lower bound on the `updatedAt` of every state held (for forgetting). */
  #record: Record<string, LocationState> | undefined
  #oldest = Infinity
  /** A location silent for this long is dropped from the view (its sessions have all expired). */
  readonly forgetAfterMs: number

  constructor(forgetAfterMs = 24 * 60 * 60_000) {
    this.forgetAfterMs = forgetAfterMs
  }

  /** Stores a location's full state (replacing the older one: idempotent) and answers with every location. */
  exchange(location: string, state: LocationState, now: number): RoomState {
    this.store(location, state)
    return this.view(now)
  }

  /**
   * {@link exchange} for a caller that reads `location`'s entry from its own stage, never from the answer (the
   * memory coordinator's layered state puts the location aggregator's state over it): when no other location
   * was stored since the last answer, that answer is given again, its entry for `location` possibly older. At
   * 300 locations a 300-entry record per exchange was an eighth of the simulator's allocation (issue 15), and a
   * repeated answer is also one the readers have already derived everything from (view-changes.ts).
   */
  exchangeOwnOverlaid(location: string, state: LocationState, now: number): RoomState {
    this.store(location, state)
    const record = this.#record
    const onlyOwn = this.#stored.size === 0 || (this.#stored.size === 1 && this.#stored.has(location))
    if (record && onlyOwn && !this.#dropped && Object.hasOwn(record, location) && this.#oldest >= now - this.forgetAfterMs) return { locations: record, at: now }
    return this.view(now)
  }

  /** Stores a location's full state unless a newer one is already held (idempotent). */
  store(location: string, state: LocationState): void {
    const known = this.#locations.get(location)
    if (!known || known.updatedAt <= state.updatedAt) {
      this.#locations.set(location, state)
      this.#stored.add(location)
      this.#oldest = Math.min(this.#oldest, state.updatedAt)
    }
  }

  view(now: number): RoomState {
    const locations: Record<string, LocationState> = {}
    let oldest = Infinity
    for (const [name, state] of this.#locations) {
      if (state.updatedAt < now - this.forgetAfterMs) {
        this.#locations.delete(name)
        this.#dropped = true
      } else {
        locations[name] = state
        oldest = Math.min(oldest, state.updatedAt)
      }
    }
    recordAnswer(this.#log, locations, this.#stored, this.#dropped)
    this.#stored.clear()
    this.#dropped = false
    this.#record = locations
    this.#oldest = oldest
    return { locations, at: now }
  }
}
