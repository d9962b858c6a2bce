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
import { MINUTE_MS, minuteOf } from '../clock.ts'
import {
  admissionDeltas,
  COUNTER_TTL_MINUTES,
  effectiveLimit,
  refusesWhileRecovering,
  repeatOf,
  takeInOrder,
  type Coordinator,
  type CounterRequest,
  type CounterResult,
  type SlotRequest,
  type SlotResult,
} from './coordinator.ts'
import { MemoryHistoryStore } from '../history/memory-store.ts'
import type { HistoryBatch, HistoryQuery, HistoryRow } from '../history/model.ts'
import { lostMinuteIn, onceRetentionMinutes, type RoomState, type WorkerReport } from './state.ts'
import { addToLocation, answerReferences, applyMoves, changed, layeredState, locationNode, markLostAtGrant, noteLostMinute, publishDue, publishGrants, restart, roomOf, type Room } from './memory-stages.ts'
import { lossAtGrant } from './grant-loss.ts'

export const DRIVER_NAME = 'memory'

export interface MemoryCoordinatorOptions {
  /**
   * How often a location aggregator exchanges its state with the global aggregator, in ms. 0 (default)
   * exchanges on every sync — nothing is remote in one process. The simulator sets seconds here to model
   * propagation lag between locations. A location's change reaches the global stage at most this long after
   * it was made, whether or not that location reports again (the Durable Object stage's alarm): a lag without
   * that bound would leave locations deciding from views that disagree for minutes, and a place freed in one
   * (a revocation) could be handed out once by each.
   */
  exchangeIntervalMs?: number | undefined
}

interface Counter {
  count: number
  minute: number
}

/**
 * A room's minute: token → the first answer it got (the seq it took), whichever counter granted it. Kept per
 * (room, minute), not per counter, so a ticket takes at most one slot a minute: the same cookie asked at two
 * locations at once (one grant from L0's counter, one from Anywhere) is a repeat the second time (#14).
 */
interface MinuteTokens {
  /** Token → the seq it took and the scope whose counter gave it. */
  seqs: Map<string, { seq: number; scope: string }>
  minute: number
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
  /** The minutes a room holds a fixed reference traffic table for (for tests: bounded by time, reference.ts). */
  referenceMinutes(roomId: string): number[]
  recordHistory(batch: HistoryBatch): Promise<void>
  readHistory(query: HistoryQuery): Promise<HistoryRow[]>
  /** The history kept (its `size` bounds memory: minutes × locations). */
  readonly history: MemoryHistoryStore
}

type HistoryParts = 'history' | 'recordHistory' | 'readHistory'

/** The coordinator with its history (kept in this process, like the rest). */
function withHistory<T extends object>(coordinator: T): T & Pick<MemoryCoordinator, HistoryParts> {
  const history = new MemoryHistoryStore()
  return Object.assign(coordinator, { history, recordHistory: (batch: HistoryBatch) => history.recordHistory(batch), readHistory: (query: HistoryQuery) => history.readHistory(query) })
}

const counterKey = (roomId: string, scope: string, minute: number): string => `${roomId}\n${scope}\n${minute}`
const tokensKey = (roomId: string, minute: number): string => `${roomId}\n${minute}`

/** The minute counters and the rooms' minute tokens, each dropped `COUNTER_TTL_MINUTES` after its minute. */
function counterBook() {
  const counters = new Map<string, Counter>()
  const tokens = new Map<string, MinuteTokens>()
  let newestMinute = 0
  return {
    counters,
    counter(roomId: string, scope: string, minute: number): Counter {
      const key = counterKey(roomId, scope, minute)
      let counter = counters.get(key)
      if (!counter) counters.set(key, (counter = { count: 0, minute }))
      return counter
    },
    /** The room's minute: token → its first answer, whichever counter gave it. */
    tokens(roomId: string, minute: number): MinuteTokens['seqs'] {
      const key = tokensKey(roomId, minute)
      let held = tokens.get(key)
      if (!held) tokens.set(key, (held = { seqs: new Map(), minute }))
      return held.seqs
    },
    prune(minute: number): void {
      if (minute <= newestMinute) return
      newestMinute = minute
      for (const [key, counter] of counters) if (counter.minute < minute - COUNTER_TTL_MINUTES) counters.delete(key)
      for (const [key, held] of tokens) if (held.minute < minute - COUNTER_TTL_MINUTES) tokens.delete(key)
    },
  }
}

export function memoryCoordinator(options: MemoryCoordinatorOptions = {}): MemoryCoordinator {
  const exchangeIntervalMs = options.exchangeIntervalMs ?? 0
  const book = counterBook()
  const counters = book.counters
  const rooms = new Map<string, Room>()

  const room = (roomId: string, now: number): Room => roomOf(rooms, roomId, now)

  /** One conditional increment (synchronous: nothing here is remote). */
  const take = (request: CounterRequest): CounterResult => {
    book.prune(request.minute)
    const counter = book.counter(request.roomId, request.scope, request.minute)
    const held = book.tokens(request.roomId, request.minute)
    const earlier = held.get(request.token)
    if (earlier !== undefined) return repeatOf(earlier, request.scope)
    const seq = counter.count
    // A room this process no longer holds, or holds under another epoch, than the asking worker knew: marked here.
    const known = rooms.get(request.roomId)
    if (lossAtGrant(request, { epoch: known?.epoch.id, lostMinute: known?.lostMinute })) {
      markLostAtGrant(room(request.roomId, request.minute * MINUTE_MS), request.location!, request.minute, exchangeIntervalMs)
    }
    if (refusesWhileRecovering(request, rooms.get(request.roomId)?.lostMinute)) return { taken: false, seq, recovering: true }
    const previous = counters.get(counterKey(request.roomId, request.scope, request.minute - 1))?.count ?? 0
    if (seq >= effectiveLimit(request.limit, previous, request.previousReported)) return { taken: false, seq }
    counter.count++
    held.set(request.token, { seq, scope: request.scope })
    // The admission joins the location's state in this same (synchronous) step: nothing can come between.
    if (request.location !== undefined) addToLocation(room(request.roomId, request.minute * MINUTE_MS), request.location, request.minute, admissionDeltas(request), exchangeIntervalMs)
    // A re-entry's register too (moves.ts `reenteredRegister`): the next renewal moves the count this grant made.
    if (request.reentry) room(request.roomId, request.minute * MINUTE_MS).registers.enter(request.reentry, request.minute)
    return { taken: true, seq }
  }

  return withHistory<Omit<MemoryCoordinator, HistoryParts>>({
    name: DRIVER_NAME,
    preferredSyncIntervalMs: 0,
    fixesReferences: true,
    get counterCount() {
      return counters.size
    },

    increment: async (request: CounterRequest): Promise<CounterResult> => take(request),

    takeSlot: async (request: SlotRequest): Promise<SlotResult> => takeInOrder(take, request, true),

    async sync(report: WorkerReport): Promise<RoomState> {
      const now = report.at
      const entry = room(report.roomId, now)
      const node = locationNode(entry, report.location, now)
      const minute = minuteOf(now)
      entry.once.prune(minute - onceRetentionMinutes(report.keepMinutes))
      entry.registers.prune(minute)
      if (node.aggregator.apply(report, now, (key) => entry.once.claim(key, report.id, minute))) changed(entry, report.location, node, exchangeIntervalMs)
      const moved = applyMoves(entry, report, node, exchangeIntervalMs)
      noteLostMinute(entry, lostMinuteIn(report.deltas))
      publishDue(entry, now)
      const own = node.aggregator.state()
      let view = node.view
      if (!view || now - node.lastExchangeAt >= exchangeIntervalMs) {
        publishGrants(entry)
        view = entry.global.exchangeOwnOverlaid(report.location, own, now)
        node.lastExchangeAt = node.lastPublishedAt = now
        entry.due.delete(report.location)
        node.view = exchangeIntervalMs > 0 ? view : undefined
      }
      // The location's own state is always fresh; other locations are as of the last exchange.
      const state = layeredState({ base: view.locations, location: report.location, own, source: entry.global }, now, entry.epoch)
      if (moved) state.moved = moved
      const references = answerReferences(entry, report.references, minute)
      if (references) state.references = references
      return state
    },

    restartLocations: () => restart(rooms, 'locations'),
    restartGlobal: () => restart(rooms, 'global'),
    holdsReference: (roomId, minute) => rooms.get(roomId)?.references.has(minute) === true,
    referenceMinutes: (roomId) => rooms.get(roomId)?.references.minutes() ?? [],
  })
}
