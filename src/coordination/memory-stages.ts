/**
 * @module
 * The memory coordinator's aggregation stages (./memory.ts): per room, a global stage and one location stage
 * per location, how a location's grants and reports reach the global stage (at once, or after the exchange
 * lag the simulator models), and restarts of either stage for tests.
 */
import { GlobalAggregator, LocationAggregator } from './aggregator.ts'
import { MINUTE_MS } from '../clock.ts'
import { MoveRegisters } from './moves.ts'
import { ReferenceBook, type TrafficReference } from './reference.ts'
import { addCounts, lostStateField, newEpoch, OnceRegistry, type WorkerReport, type LocationState, type RoomEpoch, type RoomState, type StateLayers } from './state.ts'

export interface LocationNode {
  aggregator: LocationAggregator
  lastExchangeAt: number
  /**
   * The global view from the last exchange, kept only when exchanges lag (`exchangeIntervalMs` > 0): one
   * view per location would hold O(locations²) entries (5 MB at 300 locations, bench/results/latest.md).
   */
  view: RoomState | undefined
  /** When this location's state last reached the global stage (an exchange or a due publication). */
  lastPublishedAt: number
}

export interface Room {
  global: GlobalAggregator
  locations: Map<string, LocationNode>
  /**
   * Locations whose grants the global stage has not stored yet. A grant used to store its location's state at
   * once, which made the aggregator copy its counts on every admission (copy on write after each publish);
   * now the state is stored before anything reads the global stage, once per batch of grants.
   */
  unpublished: Set<LocationNode>
  /** Created with the room; this process's memory is the state, so it only changes with the process. */
  epoch: RoomEpoch
  /** Room-wide once claims: one registry for all locations, whatever the exchange lag between them. */
  once: OnceRegistry
  /** Room-wide move registers (moves.ts): the minute each renewed ticket is counted in. */
  registers: MoveRegisters
  /**
   * Each minute's reference traffic table, fixed by the first proposal to reach the room-wide stage (reference.ts).
   * Kept with the room, not the global aggregator: a restarted stage that forgot a minute's table would let a second
   * one be fixed for it, and two views would split one minute's slots twice.
   */
  references: ReferenceBook
  /**
   * Locations changed since they last reached the global stage → when they are due there (their last
   * publication plus the exchange interval). Published by the first sync of any location at or after that.
   */
  due: Map<string, number>
  /** The earliest time in `due` (Infinity when empty): a sync before it does not look at `due`. */
  nextDue: number
  /** The latest minute a report marked the state lost (`R{m}`): every grant reads it (`refusesWhileRecovering`). */
  lostMinute?: number
}

/** The room's aggregation stages and epoch, created with the room. */
export function roomOf(rooms: Map<string, Room>, roomId: string, now: number): Room {
  let found = rooms.get(roomId)
  if (!found) {
    found = { global: new GlobalAggregator(), locations: new Map(), unpublished: new Set(), epoch: newEpoch(crypto.randomUUID(), now, true), once: new OnceRegistry(), registers: new MoveRegisters(), references: new ReferenceBook(), due: new Map(), nextDue: Infinity }
    rooms.set(roomId, found)
  }
  return found
}

/**
 * Adds deltas (a grant's admission, a loss mark) to a location's state in the grant's synchronous step, for every
 * location to see from its next sync (or, with lag, once the lag is over), even if no worker of this location
 * ever reports again.
 */
export function addToLocation(entry: Room, location: string, minute: number, deltas: Record<string, number>, exchangeIntervalMs: number): void {
  const node = locationNode(entry, location, minute * MINUTE_MS)
  node.aggregator.add(deltas)
  if (exchangeIntervalMs === 0) entry.unpublished.add(node)
  else changed(entry, location, node, exchangeIntervalMs)
}

/**
 * Applies a report's moves against the room's registers (moves.ts) — on a retry too, where they change nothing —
 * adding their deltas to the reporting location. Answers the minute each ticket holds, or undefined for no moves.
 */
export function applyMoves(entry: Room, report: WorkerReport, node: LocationNode, exchangeIntervalMs: number): Record<string, number> | undefined {
  if (!report.moves?.length) return undefined
  const moved: Record<string, number> = {}
  const deltas: Record<string, number> = {}
  for (const move of report.moves) {
    const outcome = entry.registers.apply(move)
    addCounts(deltas, outcome.deltas)
    moved[move.ticket] = outcome.answer
  }
  if (Object.keys(deltas).length > 0) {
    node.aggregator.add(deltas)
    changed(entry, report.location, node, exchangeIntervalMs)
  }
  return moved
}

/** A loss a grant found (grant-loss.ts): marked as a report's `R{m}` would be, so the room recovers. */
export function markLostAtGrant(entry: Room, location: string, minute: number, exchangeIntervalMs: number): void {
  addToLocation(entry, location, minute, { [lostStateField(minute)]: 1 }, exchangeIntervalMs)
  noteLostMinute(entry, minute)
}

/** Moves the room's lost minute (read by every grant) up to `minute`, a loss mark's. */
export function noteLostMinute(entry: Room, minute: number | undefined): void {
  if (minute !== undefined) entry.lostMinute = Math.max(entry.lostMinute ?? minute, minute)
}

/** Stores in the global stage the state of every location with grants it has not seen (before it is read). */
export function publishGrants(entry: Room): void {
  if (entry.unpublished.size === 0) return
  for (const node of entry.unpublished) entry.global.store(node.aggregator.location, node.aggregator.state())
  entry.unpublished.clear()
}

/**
 * Drops every location aggregator, or every global stage, as if their hosts restarted. A grant counts as
 * stored in the global stage from the moment it is made: the locations keep theirs through a restart of
 * theirs, and a restarted global stage loses them (each location refills it at its next exchange).
 */
export function restart(rooms: Map<string, Room>, stage: 'locations' | 'global'): void {
  for (const entry of rooms.values()) {
    if (stage === 'locations') {
      publishGrants(entry)
      entry.locations.clear()
    } else {
      entry.global = new GlobalAggregator()
      entry.unpublished.clear()
    }
  }
}

/** The location's aggregator; a new (or restarted) one rebuilds from the global stage before publishing. */
export function locationNode(entry: Room, location: string, now: number): LocationNode {
  let node = entry.locations.get(location)
  if (!node) {
    node = { aggregator: new LocationAggregator(location), lastExchangeAt: -Infinity, view: undefined, lastPublishedAt: -Infinity }
    entry.locations.set(location, node)
    publishGrants(entry)
    node.aggregator.restoreFrom(entry.global.view(now), now)
  }
  return node
}

/** Marks a location changed: due at the global stage one exchange interval after its last publication. */
export function changed(entry: Room, location: string, node: LocationNode, exchangeIntervalMs: number): void {
  if (exchangeIntervalMs === 0 || entry.due.has(location)) return
  const dueAt = node.lastPublishedAt + exchangeIntervalMs
  entry.due.set(location, dueAt)
  entry.nextDue = Math.min(entry.nextDue, dueAt)
}

/** Publishes every changed location whose lag is over by `now` (the alarm that bounds the lag). */
export function publishDue(entry: Room, now: number): void {
  if (now < entry.nextDue) return
  entry.nextDue = Infinity
  for (const [location, dueAt] of entry.due) {
    const node = entry.locations.get(location)
    if (!node) entry.due.delete(location)
    else if (dueAt <= now) {
      entry.global.store(location, node.aggregator.state())
      node.lastPublishedAt = now
      entry.due.delete(location)
    } else entry.nextDue = Math.min(entry.nextDue, dueAt)
  }
}

/** A state given as `layers` (see {@link RoomState.layers}); its `locations` record is made only if read. */
export function layeredState(layers: StateLayers, at: number, epoch: RoomEpoch): RoomState {
  let locations: Record<string, LocationState> | undefined
  return {
    get locations() {
      return (locations ??= { ...layers.base, [layers.location]: layers.own })
    },
    at,
    epoch,
    layers,
  }
}

/**
 * The references a report proposed, as its sync answers them: fixed at the room-wide stage (first writer wins) in the
 * sync's own step, whatever the exchange lag — like the once claims and move registers, one book for every location.
 * A location stage hosted apart (a Durable Object) makes one hop to the room's stage for them, once per minute and
 * location; answering only at the lagged exchanges left every cold worker (its first sync proposes nothing: it has no
 * view yet) queueing its first users for up to one interval (planet: utilisation 97% → 68%).
 */
export function answerReferences(entry: Room, proposals: readonly TrafficReference[] | undefined, minute: number): TrafficReference[] | undefined {
  return entry.references.fix(proposals, minute)
}
