/**
 * @module
 * What workers and the two Durable Object classes say to each other over RPC, and how objects are named.
 * Bindings are typed structurally (the project does not depend on `@cloudflare/workers-types`): a real
 * `DurableObjectNamespace` fits {@link DurableObjectNamespaceLike}.
 */
import type { CounterRequest, CounterResult, SlotRequest, SlotResult } from '../../src/coordination/coordinator.ts'
import type { LocationState, RoomEpoch, RoomState, WorkerReport } from '../../src/coordination/state.ts'
import type { GrantMark } from './grant-log.ts'
import type { Move, Reentry } from '../../src/coordination/moves.ts'
import type { TrafficReference } from '../../src/coordination/reference.ts'
import type { ExchangeAnswer } from './location-stage.ts'
import type { HistoryBatch, HistoryQuery, HistoryRow } from '../../src/history/model.ts'

export const DRIVER_NAME = 'cloudflare'

/** A Durable Object id: opaque here. */
export interface DurableObjectIdLike {
  toString(): string
}

/** The part of a `DurableObjectNamespace` binding the adapter uses. */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): DurableObjectIdLike
  get(id: DurableObjectIdLike): object
}

/**
 * Sent with every call that may reach another object. A Durable Object cannot receive a stub over RPC, so
 * it looks its peers up in its own `env` by binding name; pacing travels along so the factory's options
 * are the single place to configure it.
 */
export interface ObjectRoute {
  /** Binding name of the `WaitingRoomCounter` namespace. */
  counters: string
  /** Binding name of the `WaitingRoomGlobal` namespace. */
  global: string
  /** Shortest time between a location object's exchanges with the global object, ms. */
  exchangeIntervalMs: number
  /** Exchanges per second the global object should get from all locations together. */
  globalExchangesPerSecond: number
  /** Attempts and first backoff for object-to-object calls (retryable errors only). */
  attempts: number
  retryDelayMs: number
}

/**
 * RPC methods of `WaitingRoomCounter`: a location's counters and aggregator, or a room's Anywhere counter.
 * Requests travel whole (structured clone), `previousReported` and `local`/`anywherePreviousReported`
 * included: the object holding a (room, scope) counter also holds its minute − 1, so it applies the
 * correction itself, in the same synchronous step as the take.
 *
 * A request with a `location` goes to that location's object, which counts a fresh grant in its own stage
 * (`admissionDeltas`) in the same call: for its own scope in the same synchronous step as the take, for
 * another scope (the Anywhere pool) as soon as that scope's object answers — before this call answers.
 */
export interface CounterObjectRpc {
  /** `route` is needed only when the request's scope is another object's (it forwards there). */
  increment(request: CounterRequest, route?: ObjectRoute): Promise<CounterResult>
  takeSlot(request: SlotRequest, route: ObjectRoute): Promise<SlotResult>
  sync(report: WorkerReport, route: ObjectRoute): Promise<RoomState>
}

/** RPC methods of `WaitingRoomGlobal`. */
export interface GlobalObjectRpc {
  /**
   * Stores `state` as `location`'s (null: only read) and answers with every location; `now` is the caller's
   * clock. The answer carries the room's epoch: the stored one, or `epoch` — stored now — if there is none
   * (an alarm's exchange has no candidate and creates none). `grants` is the mark of the newest grant `state`
   * holds, stored with it; the answer carries the mark of the stored copy of `location` (grant-log.ts).
   */
  exchange(location: string, state: LocationState | null, now: number, epoch?: RoomEpoch, grants?: GrantMark): Promise<ExchangeAnswer>
  /** The room's history (history.ts), kept by its global object. */
  recordHistory(batch: HistoryBatch): Promise<void>
  readHistory(query: HistoryQuery): Promise<HistoryRow[]>
  /**
   * The room-wide `once` registry: claims `keys` for report `reportId` and answers those this report holds —
   * claimed now, or by this same report before (a retry). Stored before the answer leaves; a claim is kept
   * `retentionMinutes` after the minute of `now`.
   */
  claim(keys: string[], reportId: string, now: number, retentionMinutes: number): Promise<string[]>
  /**
   * The room's move registers (src/coordination/moves.ts): applies each move against its ticket's register, in
   * order, stored before the answer leaves; answers each move's outcome (the minute held and the deltas the
   * calling location adds). `now` is the report's clock, for pruning registers whose count left every window.
   */
  move(moves: Move[], now: number): Promise<MoveResult[]>
  /**
   * The room's reference traffic tables (split14, src/coordination/reference.ts): stores each proposal whose minute
   * has none (first writer wins, room-wide), stored before the answer leaves, and answers the stored one for every
   * minute proposed. Kept REFERENCE_KEEP_MINUTES past their minute on the callers' clock `now`, then dropped.
   */
  fix(proposals: TrafficReference[], now: number): Promise<TrafficReference[]>
  /**
   * A re-entry's grant in `minute` (moves.ts `reenteredRegister`): sets the ticket's register to that minute unless it
   * holds that one or a later one. Asked by the granting location object before its answer leaves, on a repeat too.
   */
  enter(reentry: Reentry, minute: number): Promise<void>
}

/** What the global object answers for one move: the minute the ticket holds, and the deltas to add. */
export interface MoveResult {
  answer: number
  deltas: Record<string, number>
}

/** One counter object per (room, location), seed 001; scope `*` (ANYWHERE) is the room's Anywhere counter. Room ids cannot contain `:`. */
export const counterObjectName = (roomId: string, scope: string): string => `${roomId}:${scope}`

/** One global object per room. */
export const globalObjectName = (roomId: string): string => roomId
