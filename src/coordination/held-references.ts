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
  /** The state's locations (as the snapshot sees them). */
  locations: Readonly<Record<string, LocationState>>
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

  /** Proposals for the {@link missing} minutes, carried by the report `reportId`; undefined when none is missing. */
  proposals(now: number, reportId: string, view: TrafficView): TrafficReference[] | undefined {
    const missing = this.missing(now)
    if (missing.length === 0) return undefined
    return missing.map((minute) => ({ minute, table: trafficTable(view, minute - TRAFFIC_REFERENCE_AGE), id: `${reportId}:${minute}` }))
  }
}

/**
 * Users seen per location in `trafficMinute` as this worker sees them — the stored state plus its own deltas not
 * in it yet, the table its snapshot used to split from — with locations that saw none left out.
 */
export function trafficTable(view: TrafficView, trafficMinute: number): Record<string, number> {
  const field = trafficField(trafficMinute)
  const table: Record<string, number> = {}
  for (const name in view.locations) {
    const seen = view.locations[name]!.counts[field]
    if (seen !== undefined && seen !== 0) table[name] = seen
  }
  for (const { location, deltas } of view.own) {
    const seen = deltas[field]
    if (seen !== undefined && seen !== 0) table[location] = (table[location] ?? 0) + seen
  }
  for (const name in table) if (!(table[name]! > 0)) delete table[name]
  return table
}
