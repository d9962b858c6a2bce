/**
 * @module
 * The in-process coordinator: counters and both aggregation stages in Maps. The default when no
 * coordinator is given; right for one process (a single Node/Bun/Deno server) and for the simulator,
 * which runs many locations and workers against one instance.
 *
 * @example
 * ```ts
 * import { memoryCoordinator } from 'hono-waiting-room/memory'
 * app.use(waitingRoom({ coordinator: memoryCoordinator() }))
 * ```
 */
import { GlobalAggregator, LocationAggregator } from './aggregator.ts'
import { MINUTE_MS, minuteOf } from '../clock.ts'
import {
  admissionDeltas,
  COUNTER_TTL_MINUTES,
  effectiveLimit,
  takeInOrder,
  type Coordinator,
  type CounterRequest,
  type CounterResult,
  type SlotRequest,
  type SlotResult,
} from './coordinator.ts'
import { MemoryHistoryStore } from '../history/memory-store.ts'
import type { HistoryBatch, HistoryQuery, HistoryRow } from '../history/model.ts'
import { newEpoch, OnceRegistry, onceRetentionMinutes, type RoomEpoch, type RoomState, type WorkerReport } from './state.ts'

export const DRIVER_NAME = 'memory'

export interface MemoryCoordinatorOptions {
  /**
   * How often a location aggregator exchanges its state with the global aggregator, in ms. 0 (default)
   * exchanges on every sync — nothing is remote in one process. The simulator sets seconds here to model
   * propagation lag between locations.
   */
  exchangeIntervalMs?: number | undefined
}

interface Counter {
  count: number
  /** Token → the sequence number it took, for idempotent retries. */
  tokens: Map<string, number>
  minute: number
}

interface LocationNode {
  aggregator: LocationAggregator
  lastExchangeAt: number
  /**
   * The global view from the last exchange, kept only when exchanges lag (`exchangeIntervalMs` > 0): one
   * view per location would hold O(locations²) entries (5 MB at 300 locations, bench/results/latest.md).
   */
  view: RoomState | undefined
  /** When the global stage last stored this location's state (an exchange, or a {@link flushDue}). */
  storedAt: number
}

/**
 * Exchanges of the locations that changed since their last one and are due again: a lagging exchange is a
 * bounded lag, as the Durable Object's alarm makes it (adapters/cloudflare/counter-object.ts). Without it, a
 * grant or renewal at a location none of whose workers reports again (the small ones of 300) stays out of the
 * global view indefinitely, and every other location counts those users as gone (issue 15: planet's views
 * counted 8 fewer active users than the truth 45 s into a minute, the whole overshoot).
 */
function flushDue(entry: Room, now: number, intervalMs: number): void {
  for (const [name, node] of entry.changed) {
    if (now - node.storedAt < intervalMs) continue
    entry.global.store(name, node.aggregator.state())
    // Not `lastExchangeAt`: that one dates this location's own view of the others, which a store does not refresh.
    node.storedAt = now
    entry.changed.delete(name)
  }
}

interface Room {
  global: GlobalAggregator
  locations: Map<string, LocationNode>
  /** Created with the room; this process's memory is the state, so it only changes with the process. */
  epoch: RoomEpoch
  /** Room-wide once claims: one registry for all locations, whatever the exchange lag between them. */
  once: OnceRegistry
  /** Locations with changes the global stage does not have yet (lagging exchanges only). */
  changed: Map<string, LocationNode>
}

export interface MemoryCoordinator extends Coordinator {
  /** Location counter, then Anywhere, in one call (DESIGN: one round trip per decision). */
  takeSlot(request: SlotRequest): Promise<SlotResult>
  /** Drops every location aggregator, as if their hosts restarted (counters and the global stage stay). */
  restartLocations(): void
  /** Drops every global aggregator, as if it restarted. */
  restartGlobal(): void
  /** Counters currently held (for tests and memory benchmarks). */
  readonly counterCount: number
  recordHistory(batch: HistoryBatch): Promise<void>
  readHistory(query: HistoryQuery): Promise<HistoryRow[]>
  /** The history kept (its `size` bounds memory: minutes × locations). */
  readonly history: MemoryHistoryStore
}

/** The room's aggregation stages and epoch, created with the room. */
function roomOf(rooms: Map<string, Room>, roomId: string, now: number): Room {
  let found = rooms.get(roomId)
  if (!found) {
    found = { global: new GlobalAggregator(), locations: new Map(), epoch: newEpoch(crypto.randomUUID(), now), once: new OnceRegistry(), changed: new Map() }
    rooms.set(roomId, found)
  }
  return found
}

/** The location's aggregator; a new (or restarted) one rebuilds from the global stage before publishing. */
function locationNode(entry: Room, location: string, now: number): LocationNode {
  let node = entry.locations.get(location)
  if (!node) {
    node = { aggregator: new LocationAggregator(location), lastExchangeAt: -Infinity, view: undefined, storedAt: -Infinity }
    entry.locations.set(location, node)
    node.aggregator.restoreFrom(entry.global.view(now), now)
  }
  return node
}

/**
 * One worker's report into its location, answered with the room: the location's own state fresh, the others'
 * as of this location's last exchange (at most `intervalMs` old), and every location changed since it was last
 * stored brought to the global stage once its interval has passed ({@link flushDue}).
 */
function syncLocation(entry: Room, report: WorkerReport, intervalMs: number): RoomState {
  const now = report.at
  const node = locationNode(entry, report.location, now)
  const minute = minuteOf(now)
  entry.once.prune(minute - onceRetentionMinutes(report.keepMinutes))
  node.aggregator.apply(report, now, (key) => entry.once.claim(key, report.id, minute))
  const own = node.aggregator.state()
  let view = node.view
  const due = !view || now - node.lastExchangeAt >= intervalMs
  if (intervalMs > 0) {
    entry.changed.delete(report.location)
    flushDue(entry, now, intervalMs)
  }
  if (!view || due) {
    view = entry.global.exchange(report.location, own, now)
    node.lastExchangeAt = node.storedAt = now
    node.view = intervalMs > 0 ? view : undefined
  } else {
    entry.changed.set(report.location, node)
  }
  return { locations: { ...view.locations, [report.location]: own }, at: now, epoch: entry.epoch }
}

type HistoryParts = 'history' | 'recordHistory' | 'readHistory'

/** The coordinator with its history (kept in this process, like the rest). */
function withHistory<T extends object>(coordinator: T): T & Pick<MemoryCoordinator, HistoryParts> {
  const history = new MemoryHistoryStore()
  return Object.assign(coordinator, { history, recordHistory: (batch: HistoryBatch) => history.recordHistory(batch), readHistory: (query: HistoryQuery) => history.readHistory(query) })
}

const counterKey = (roomId: string, scope: string, minute: number): string => `${roomId}\n${scope}\n${minute}`

export function memoryCoordinator(options: MemoryCoordinatorOptions = {}): MemoryCoordinator {
  const exchangeIntervalMs = options.exchangeIntervalMs ?? 0
  const counters = new Map<string, Counter>()
  const rooms = new Map<string, Room>()
  let newestMinute = 0

  const room = (roomId: string, now: number): Room => roomOf(rooms, roomId, now)

  const pruneCounters = (minute: number): void => {
    if (minute <= newestMinute) return
    newestMinute = minute
    for (const [key, counter] of counters) if (counter.minute < minute - COUNTER_TTL_MINUTES) counters.delete(key)
  }

  /** One conditional increment (synchronous: nothing here is remote). */
  const take = (request: CounterRequest): CounterResult => {
    pruneCounters(request.minute)
    const key = counterKey(request.roomId, request.scope, request.minute)
    let counter = counters.get(key)
    if (!counter) counters.set(key, (counter = { count: 0, tokens: new Map(), minute: request.minute }))
    const earlier = counter.tokens.get(request.token)
    if (earlier !== undefined) return { taken: true, seq: earlier, repeat: true }
    const seq = counter.count
    const previous = counters.get(counterKey(request.roomId, request.scope, request.minute - 1))?.count ?? 0
    if (seq >= effectiveLimit(request.limit, previous, request.previousReported)) return { taken: false, seq }
    counter.count++
    counter.tokens.set(request.token, seq)
    // The admission joins the location's state in this same (synchronous) step: nothing can come between.
    if (request.location !== undefined) {
      const now = request.minute * MINUTE_MS
      const entry = room(request.roomId, now)
      const node = locationNode(entry, request.location, now)
      node.aggregator.add(admissionDeltas(request))
      // Every location sees it from its next sync, even if no worker of this location ever reports again.
      if (exchangeIntervalMs === 0) entry.global.store(request.location, node.aggregator.state())
      else entry.changed.set(request.location, node)
    }
    return { taken: true, seq }
  }

  return withHistory<Omit<MemoryCoordinator, HistoryParts>>({
    name: DRIVER_NAME,
    preferredSyncIntervalMs: 0,
    get counterCount() {
      return counters.size
    },

    increment: async (request: CounterRequest): Promise<CounterResult> => take(request),

    takeSlot: async (request: SlotRequest): Promise<SlotResult> => takeInOrder(take, request, true),

    async sync(report: WorkerReport): Promise<RoomState> {
      return syncLocation(room(report.roomId, report.at), report, exchangeIntervalMs)
    },

    restartLocations() {
      for (const entry of rooms.values()) {
        entry.locations.clear()
        entry.changed.clear()
      }
    },
    restartGlobal() {
      for (const entry of rooms.values()) entry.global = new GlobalAggregator()
    },
  })
}
