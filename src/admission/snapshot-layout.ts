/**
 * @module
 * How an incremental snapshot (built-snapshot.ts) is laid out: the arrays of a base view, shared by every
 * snapshot of the same state and never changed once made, and the few locations (a worker's own, its
 * unreported deltas) one snapshot puts in their place. Sums a decision needs over every location are made once
 * per base view and then corrected for those few: at 300 locations and a plan per decision, a pass over every
 * location per snapshot was most of the simulator's time (issue 15). Only whole numbers are summed this way,
 * so the corrected sum is exactly the sum a full pass gives.
 */
import type { LocationState } from '../coordination/state.ts'
import type { LocationPart } from './location-part.ts'
import type { Snapshot } from './snapshot.ts'

export interface Patch {
  state: LocationState | undefined
  part: LocationPart | undefined
}

/** Per base view: sums over its locations, per allocation table they were made for. */
export interface BaseSums {
  beyond: WeakMap<object, [number, number]>
  behind: WeakMap<object, [number, number]>
}

export const emptySums = (): BaseSums => ({ beyond: new WeakMap(), behind: new WeakMap() })

export interface Layout {
  /** The snapshot's location names: the base view's, plus any an overlay added after them. */
  names: readonly string[]
  /** The base view's name → index. */
  index: ReadonlyMap<string, number>
  /** The base view's states and parts, by index (shared: never changed). */
  states: readonly (LocationState | undefined)[]
  parts: readonly (LocationPart | undefined)[]
  /** Index → what this snapshot has in the base's place (or past its end). */
  patched: ReadonlyMap<number, Patch>
  sums: BaseSums
}

/** A term's two values, read by {@link baseSum} before it asks for the next (made with {@link pair}). */
type Term = (name: string, part: LocationPart | undefined, state: LocationState | undefined) => readonly [number, number]

const scratch: [number, number] = [0, 0]

/**
 * A term's result in one shared array, not a new one per location: a fresh pair per location per base view was
 * a twentieth of planet's allocation (issue 15). Valid until the next call; only {@link baseSum} reads it.
 */
export function pair(a: number, b: number): readonly [number, number] {
  scratch[0] = a
  scratch[1] = b
  return scratch
}

/**
 * Σ `term` over the snapshot's locations (two whole-number sums at once): the base's sum, made once per
 * `key` and kept in `cache`, with each patched location's term in place of the base's.
 */
export function baseSum(layout: Layout, cache: WeakMap<object, [number, number]>, key: object, term: Term): [number, number] {
  const { names, states, parts, patched } = layout
  let base = cache.get(key)
  if (!base) {
    base = [0, 0]
    for (let i = 0; i < parts.length; i++) {
      if (!parts[i]) continue
      const t = term(names[i]!, parts[i], states[i])
      base[0] += t[0]
      base[1] += t[1]
    }
    cache.set(key, base)
  }
  let [x, y] = base
  for (const [i, patch] of patched) {
    if (i < parts.length && parts[i]) {
      const t = term(names[i]!, parts[i], states[i])
      x -= t[0]
      y -= t[1]
    }
    if (patch.part) {
      const t = term(names[i]!, patch.part, patch.state)
      x += t[0]
      y += t[1]
    }
  }
  return [x, y]
}

/** Counter use as `Snapshot.takenThisMinute` shows it: the per-location table made only when read. */
export function takenView(anywhere: number, table: () => Record<string, number>): Snapshot['takenThisMinute'] {
  let locations: Record<string, number> | undefined
  return {
    get locations() {
      return (locations ??= table())
    },
    anywhere,
  }
}
