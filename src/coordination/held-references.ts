/**
 * @module
 * A worker's side of the split14 contract (reference.ts): the references the backend answered for the minutes it
 * decides in, and the tables it proposes for the minutes it holds none for. A worker splits a minute's slots only
 * from the reference the backend fixed for it, so every view of the room splits them alike.
 */
import { MINUTE_MS, minuteOf } from '../clock.ts'
import { TRAFFIC_REFERENCE_AGE } from '../admission/snapshot.ts'
import type { TrafficReference } from './reference.ts'
import { trafficField, type LocationState } from './state.ts'

/** Answered references kept, counted back from the current minute (the current one and the two before). */
const HELD_MINUTES = 2

/**
 * From this far into a minute the worker also proposes the next minute's reference, so at the minute's start it
 * holds it already and no request waits for a sync at each minute boundary (the simulator's stages lag 5 s).
 */
export const PREFETCH_FROM_MS = MINUTE_MS / 2

/** Where a proposal's table comes from: the worker's view of every location, and its own unreported deltas. */
export interface TrafficView {
  /** The state's locations (as the snapshot sees them), or the base of a layered state (see `replaced`). */
  locations: Readonly<Record<string, LocationState>>
  /**
   * A location whose state replaces its entry in `locations`, in that entry's place (appended if absent): a layered
   * state's own location, read without making the state's 300-entry `locations` record (issue 15: a ninth of planet's
   * CPU). Given only with a layered state's base as `locations`, a record that is never changed (see `tablesOf`).
   */
  replaced?: { location: string; state: LocationState }
  /** The worker's own deltas not in that state yet, per location (read-your-writes, as its snapshot shows them). */
  own: Iterable<{ location: string; deltas: Readonly<Record<string, number>> }>
}

export class HeldReferences {
  readonly #byMinute = new Map<number, TrafficReference>()

  /** The reference the backend answered for `minute`, if this worker holds it. */
  get(minute: number): TrafficReference | undefined {
    return this.#byMinute.get(minute)
  }

  /**
   * Keeps the answered references (the first answer for a minute: the backend answers one table per minute, and
   * keeping the object keeps the plan's caches, keyed by the table, warm). Drops those of minutes long past.
   */
  hold(answered: readonly TrafficReference[] | undefined, now: number): void {
    if (!answered || answered.length === 0) return
    const oldest = minuteOf(now) - HELD_MINUTES
    for (const reference of answered) {
      if (reference.minute >= oldest && !this.#byMinute.has(reference.minute)) this.#byMinute.set(reference.minute, reference)
    }
    for (const minute of this.#byMinute.keys()) if (minute < oldest) this.#byMinute.delete(minute)
  }

  /** The minutes this worker must propose a reference for at `now`: the current one, and in its second half the next. */
  missing(now: number): number[] {
    const minute = minuteOf(now)
    const missing: number[] = []
    if (!this.#byMinute.has(minute)) missing.push(minute)
    if (now - minute * MINUTE_MS >= PREFETCH_FROM_MS && !this.#byMinute.has(minute + 1)) missing.push(minute + 1)
    return missing
  }

  /**
   * Proposals for the {@link missing} minutes, carried by the report `reportId`; undefined when none is missing.
   * `queued`: whether the proposer's view shows users waiting (the table proposed is then empty, see below), asked
   * only when a proposal is made. A minute the backend says it fixed already (`fixed`, Coordinator.holdsReference) gets an empty table: it is
   * answered the fixed one, and its own would be thrown away.
   */
  proposals(now: number, reportId: string, view: TrafficView, fixed?: (minute: number) => boolean, queued: () => boolean = () => false): TrafficReference[] | undefined {
    const missing = this.missing(now)
    if (missing.length === 0) return undefined
    const pooled = queued()
    // While users wait, the empty table: the minute is pooled — every slot is the Anywhere pool's (issue 15). A location's
    // share of a past minute's traffic is not where the line's head waits now: its counter gave that share to its own
    // newer users while older ones waited elsewhere with their counter used up (shift: 12.65% ≥ 1-minute overtakes).
    // The pool serves the oldest buckets wherever they wait (reservations.ts), still one counter call per decision.
    return missing.map((minute) => ({ minute, table: fixed?.(minute) || pooled ? {} : trafficTable(view, minute - TRAFFIC_REFERENCE_AGE), id: `${reportId}:${minute}` }))
  }
}

/**
 * A layered state's base record's non-zero traffic per field, in its key order. The bases are the global stage's
 * answer records, never changed once made (aggregator.ts copies counts on write), and one is answered to many
 * workers, so each proposal reads the 300 locations once per record, not once per report. Other states' records
 * (another coordinator's) are read each time: nothing promises they stay unchanged.
 */
const tablesOf = new WeakMap<object, Map<string, (readonly [string, number])[]>>()

function seenIn(locations: Readonly<Record<string, LocationState>>, field: string, cache: boolean): (readonly [string, number])[] {
  let byField = cache ? tablesOf.get(locations) : undefined
  if (cache && !byField) tablesOf.set(locations, (byField = new Map()))
  let entries = byField?.get(field)
  if (!entries) {
    entries = []
    for (const name in locations) {
      const seen = locations[name]!.counts[field]
      if (seen !== undefined && seen !== 0) entries.push([name, seen])
    }
    byField?.set(field, entries)
  }
  return entries
}

/**
 * Users seen per location in `trafficMinute` as this worker sees them — the stored state plus its own deltas not
 * in it yet, the table its snapshot used to split from — with locations that saw none left out.
 */
export function trafficTable(view: TrafficView, trafficMinute: number): Record<string, number> {
  const field = trafficField(trafficMinute)
  const table: Record<string, number> = {}
  const replaced = view.replaced
  const instead = replaced?.state.counts[field]
  const counts = instead !== undefined && instead !== 0
  let placed = false
  for (const [name, seen] of seenIn(view.locations, field, replaced !== undefined)) {
    if (name !== replaced?.location) table[name] = seen
    else if ((placed = counts)) table[name] = instead!
  }
  if (replaced && counts && !placed) {
    if (!Object.hasOwn(view.locations, replaced.location)) table[replaced.location] = instead!
    else return trafficTableWalked(view, field)
  }
  addOwn(table, view, field)
  return table
}

/** {@link trafficTable} when the replaced location counts but its record entry does not: its key goes in the record's place. */
function trafficTableWalked(view: TrafficView, field: string): Record<string, number> {
  const table: Record<string, number> = {}
  for (const name in view.locations) {
    const seen = name === view.replaced?.location ? view.replaced.state.counts[field] : view.locations[name]!.counts[field]
    if (seen !== undefined && seen !== 0) table[name] = seen
  }
  addOwn(table, view, field)
  return table
}

/** Adds the worker's own deltas to `table`, then leaves out the locations that saw none. */
function addOwn(table: Record<string, number>, view: TrafficView, field: string): void {
  for (const { location, deltas } of view.own) {
    const seen = deltas[field]
    if (seen !== undefined && seen !== 0) table[location] = (table[location] ?? 0) + seen
  }
  for (const name in table) if (!(table[name]! > 0)) delete table[name]
}
