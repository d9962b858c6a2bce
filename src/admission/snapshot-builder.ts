/**
 * @module
 * A worker's snapshot kept up to date from one room state to the next: only the locations whose state changed
 * since this worker's last build are read again, and the per-location tables (traffic, counter use, where each
 * bucket waits) are built only when a decision reads them. At 300 locations a full rebuild on every sync was
 * a third of the simulator's time and most of its garbage (issue 15); a real worker facing many locations
 * saves the same. Equal, field by field, to {@link buildSnapshot} of the same state
 * (test/snapshot-builder.test.ts), so nothing decided from it changes.
 */
import { minuteOf } from '../clock.ts'
import type { LocationState, RoomState } from '../coordination/state.ts'
import { answersApart, changedBetween } from '../coordination/view-changes.ts'
import { locationPart, windowsOf, type LocationPart, type Windows } from './location-part.ts'
import { ADMISSIONS_AVERAGE_MINUTES, activeWindow, TRAFFIC_REFERENCE_AGE, WAITING_WINDOW_MINUTES, type Snapshot } from './snapshot.ts'
import { BuiltSnapshot, type TrafficTable } from './built-snapshot.ts'
import { addPart, copyTotals, emptyTotals, totalsOver, type Totals } from './totals.ts'
import { emptySums, type BaseSums, type Patch } from './snapshot-layout.ts'

/** One location's state in `state` (without making a layered state's whole record). */
export function locationStateOf(state: RoomState, name: string): LocationState | undefined {
  const layers = state.layers
  if (!layers) return state.locations[name]
  return name === layers.location ? layers.own : layers.base[name]
}

/**
 * The parts of every location of one base record (a coordinator's answer, or the part every answer of one
 * location shares until its next exchange) in one set of windows. Never changed once made: the workers of a
 * location share it, and the next base is derived from it by reading only the locations whose state changed.
 */
interface BaseView {
  /** The base record it was made of. */
  base: Record<string, LocationState>
  w: Windows
  /** Location names in the order the base lists them; `index` maps them back. Shared until a view appends. */
  names: string[]
  index: Map<string, number>
  states: (LocationState | undefined)[]
  parts: (LocationPart | undefined)[]
  totals: Totals
  traffic: TrafficTable
  /** Sums over its locations, shared by every snapshot made on it (snapshot-layout.ts). */
  sums: BaseSums
}

/** Base record → its view (the latest windows it was read in). */
const baseViews = new WeakMap<Record<string, LocationState>, BaseView>()
/**
 * Source of layered states → the views last made of its bases, in one set of windows (the latest). A new base's
 * view is derived from the one nearest to it in answers (view-changes.ts `answersApart`): when the minute turns,
 * every location's base needs a view in the new windows, and derived from the latest one made, a base 5 s (300
 * answers) older differed in most locations: a quarter of planet's time (issue 15).
 */
const recentViews = new WeakMap<object, BaseView[]>()
/** Views kept per source to derive from. */
const RECENT_VIEWS = 16

/** The view in `w` nearest to `base` among `candidates` (the last one when none is known to be near). */
function nearestView(base: Record<string, LocationState>, w: Windows, candidates: readonly (BaseView | undefined)[]): BaseView | undefined {
  let best: BaseView | undefined
  let bestApart = Infinity
  for (const view of candidates) {
    if (view?.w !== w) continue
    const apart = answersApart(view.base, base) ?? Infinity
    if (best === undefined || apart <= bestApart) [best, bestApart] = [view, apart]
  }
  return best
}

/** The view of `base` in windows `w`, derived from `from` (an earlier base in the same windows) when given. */
function deriveView(base: Record<string, LocationState>, w: Windows, from: BaseView | undefined): BaseView {
  const view: BaseView = from
    ? { base, w, names: from.names, index: from.index, states: from.states.slice(), parts: from.parts.slice(), totals: copyTotals(from.totals), traffic: from.traffic, sums: emptySums() }
    : { base, w, names: [], index: new Map(), states: [], parts: [], totals: emptyTotals(), traffic: { record: undefined }, sums: emptySums() }
  let shared = from !== undefined
  // Only the locations stored between `from`'s base and this one, when its aggregator knows them (view-changes.ts):
  // new names come after the ones `from` lists, as in the record, so the order is the record's. From a newer base,
  // a name stored since this one is one it lacks: its place stays, empty (as a forgotten location's does).
  const changed = from && changedBetween(from.base, base)
  if (changed) {
    for (const name of changed) {
      const located = Object.hasOwn(base, name) ? base[name] : undefined
      let index = view.index.get(name)
      if (index === undefined) {
        if (!located) continue
        if (shared) [view.names, view.index, shared] = [view.names.slice(), new Map(view.index), false]
        index = view.names.push(name) - 1
        view.index.set(name, index)
      }
      replace(view, index, located)
    }
    return view
  }
  let seen = 0
  let last = -1
  for (const name in base) {
    seen++
    let index = view.index.get(name)
    // Listed in another order than the view's (a restarted stage refilled in another order): made afresh, so
    // every table lists locations in the state's order, as a full rebuild does.
    if (index !== undefined && index < last) return deriveView(base, w, undefined)
    if (index === undefined) {
      if (shared) [view.names, view.index, shared] = [view.names.slice(), new Map(view.index), false]
      index = view.names.length
      view.index.set(name, index)
      view.names.push(name)
    }
    replace(view, index, base[name])
    last = index
  }
  let live = 0
  for (const located of view.states) if (located) live++
  if (live !== seen) for (let i = 0; i < view.names.length; i++) if (!(view.names[i]! in base)) replace(view, i, undefined) // forgotten
  return view
}

/** Puts `located` (undefined: gone) at `index` of a view being made, keeping its totals and traffic table. */
function replace(view: Pick<BaseView, 'w' | 'states' | 'parts' | 'totals' | 'traffic'>, index: number, located: LocationState | undefined): void {
  if (view.states[index] === located) return
  const before = view.parts[index]
  const part = located ? locationPart(located.counts, located.updatedAt, view.w) : undefined
  if (before) addPart(view.totals, before, -1, view.w.minute)
  if (part) addPart(view.totals, part, 1, view.w.minute)
  if (part?.traffic !== before?.traffic) view.traffic = { record: undefined }
  view.states[index] = located
  view.parts[index] = part
}

export class SnapshotBuilder {
  #view: BaseView | undefined
  /** The state of the last build, and what it shows taken this minute (without the worker's own deltas). */
  #state: RoomState | undefined
  #taken: { anywhere: number; local: (location: string) => number } = { anywhere: 0, local: () => 0 }

  /** The state of the last build (the room's, without a worker's own deltas). */
  get state(): RoomState | undefined {
    return this.#state
  }

  /** The minute of the last build. */
  get minute(): number | undefined {
    return this.#view?.w.minute
  }

  /** Slots the last built state shows taken in its minute by `location`'s own counter and by Anywhere. */
  takenThisMinute(location: string): { local: number; anywhere: number } {
    return { local: this.#taken.local(location), anywhere: this.#taken.anywhere }
  }

  /**
   * The snapshot of `state` at `now`, with `overlay`'s location states in place of the state's (a worker's own
   * unreported deltas, read-your-writes). Locations are read again only when their state object changed since
   * the base last read (an aggregator never changes handed-out counts in place), or when the minute turned.
   * `reference`, when given, is the snapshot's traffic table: the minute's reference the coordinator fixed for the
   * whole room (coordination/reference.ts), in place of this view's (the same object, so the plan's caches hold).
   */
  build(
    state: RoomState,
    now: number,
    sessionDurationMinutes: number,
    waitingWindow = WAITING_WINDOW_MINUTES,
    overlay?: ReadonlyMap<string, LocationState>,
    reference?: Record<string, number>,
  ): Snapshot {
    const minute = minuteOf(now)
    const active = activeWindow(now, state.at, sessionDurationMinutes)
    const w = windowsOf(minute, active, minute - waitingWindow + 1, TRAFFIC_REFERENCE_AGE, ADMISSIONS_AVERAGE_MINUTES)
    const base = state.layers?.base ?? state.locations
    let view = baseViews.get(base)
    if (view?.w !== w) {
      // From the latest view of the same source (few locations changed since), else from this worker's last.
      const source = state.layers?.source
      let recent = source === undefined ? undefined : recentViews.get(source)
      if (recent?.[0]?.w !== w) recent = undefined
      view = deriveView(base, w, nearestView(base, w, [this.#view, ...(recent ?? [])]))
      baseViews.set(base, view)
      if (source !== undefined) {
        if (!recent) recentViews.set(source, (recent = []))
        if (recent.push(view) > RECENT_VIEWS) recent.shift()
      }
    }
    this.#view = view
    this.#state = state
    // The layered location and the overlay in place of the view's (shared, never changed): a snapshot holds only
    // what differs, not a copy of every location (snapshot-layout.ts).
    const totals = totalsOver(view.totals)
    let names = view.names
    let traffic = reference ? { record: reference } : view.traffic
    const patched = new Map<number, Patch>()
    const put = (name: string, located: LocationState): void => {
      let index = view.index.get(name) ?? names.indexOf(name, view.names.length)
      if (index === -1) {
        if (names === view.names) names = view.names.slice()
        index = names.push(name) - 1
      }
      const now = patched.get(index) ?? { state: view.states[index], part: view.parts[index] }
      if (now.state === located) return
      const part = locationPart(located.counts, located.updatedAt, w)
      if (now.part) addPart(totals, now.part, -1, w.minute)
      addPart(totals, part, 1, w.minute)
      if (!reference && part.traffic !== now.part?.traffic) traffic = { record: undefined }
      patched.set(index, { state: located, part })
    }
    const layers = state.layers
    if (layers) put(layers.location, layers.own)
    // The state's own counter use (without the overlay), for takenInState: the layered part, else the view's.
    const own = layers ? locationPart(layers.own.counts, layers.own.updatedAt, w) : undefined
    const raw = view
    this.#taken = {
      anywhere: totals.takenThisAnywhere,
      local: (location) => (own && location === layers!.location ? own : raw.parts[raw.index.get(location) ?? -1])?.takenThis.local ?? 0,
    }
    for (const [name, located] of overlay ?? []) put(name, located)
    return new BuiltSnapshot(minute, state.at, totals, active, { names, index: view.index, states: view.states, parts: view.parts, patched, sums: view.sums }, traffic, view.totals)
  }
}
