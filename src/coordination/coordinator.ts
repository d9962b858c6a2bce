/**
 * @module
 * What an adapter supplies: conditional minute counters and the aggregation transport. Everything else —
 * slot math, FIFO, tickets, estimates — is the core's. An adapter implements two primitives, `increment`
 * and `sync`; it may add `takeSlot` to fuse the location and Anywhere counters into one round trip.
 * Longer than 250 lines because it is the adapter contract: every request field each adapter must honour is
 * documented here, beside the helpers every adapter shares.
 */
import { activeField, admittedField, anywhereAdmittedField, type RoomState, type WorkerReport } from './state.ts'
import type { HistoryBatch, HistoryQuery, HistoryRow } from '../history/model.ts'
import type { Reentry } from './moves.ts'

export type { Reentry } from './moves.ts'

/** The counter scope shared by every location: seed 000's "Anywhere" pool. */
export const ANYWHERE = '*'

export interface CounterRequest {
  roomId: string
  /** A location name, or {@link ANYWHERE}. */
  scope: string
  /** Minute number: each minute has its own counter (seed 000). */
  minute: number
  /** Take a slot only if fewer than `limit` were taken in this counter. */
  limit: number
  /**
   * How many slots the caller's snapshot has seen taken from this scope's counter in the minute before.
   * A counter that gave more than that then lowers `limit` by the difference: slots taken in the last
   * seconds of a minute, not yet reported, are not handed out a second time in the next one. Left out: no
   * correction.
   */
  previousReported?: number
  /**
   * The ticket id asking. A counter answers a repeated token with its first answer and does not count it
   * again, so a retry after a lost reply never takes two slots. The first answer is kept per room and minute,
   * not per counter: a token granted by any scope of the minute is a repeat at every other scope of it (one
   * ticket, one slot a minute, however many locations its cookie is sent to at once; #14).
   */
  token: string
  /**
   * The asking worker's location. A fresh grant (taken, not a repeat) adds the admission to this
   * location's state — {@link admissionDeltas} — in the same atomic step as the slot, so no crash between
   * the two can leave an admitted user uncounted. A repeat adds nothing. The core always sets it; left out
   * (a bare counter in a benchmark or test), a grant adds nothing to any state.
   */
  location?: string
  /**
   * How many minutes after the minute of a recorded loss of state the counter refuses every fresh grant
   * ({@link refusesWhileRecovering}): `sessionDurationMinutes + 1`, the minutes the snapshot counts the room as
   * recovering. 0: never refuse (`failMode: 'open'` admits as if empty). Left out (a caller of an older version,
   * a bare counter): {@link DEFAULT_RECOVERY_MINUTES}, the longest session's — it fails safe.
   */
  recoveryMinutes?: number
  /**
   * The room epoch id the asking worker last synced with, and the highest generation of it it saw (in answers
   * and tickets). The grant step compares them with the stored state in the same atomic step as the grant: an
   * epoch absent or another, or a lower generation, is a state lost or put back since that worker's last sync —
   * marked there (`lossAtGrant`, grant-loss.ts) and refused as `recovering`, so a worker that knew the old state never
   * grants from a count that forgot it, even before any sync tells it. Left out (a cold worker, a bare counter,
   * a caller of an older version): not compared, as before.
   */
  epoch?: string
  generation?: number
  /**
   * Only for a pending renewal re-entering (session.ts `reenter`): a fresh grant also sets the ticket's register
   * (moves.ts) to the grant's minute, in the same atomic step as the slot and its active count
   * (moves.ts `reenteredRegister`), so the ticket's next renewal moves that count and a replayed older cookie finds
   * the register at or past its target. Left out (every newcomer): no register is read or written.
   */
  reentry?: Reentry
}

export interface CounterResult {
  /** True when the slot was taken: `seq < limit` at the time of the call. */
  taken: boolean
  /** The counter's value before this call: a unique sequence number when taken. */
  seq: number
  /** True when this token had already taken a slot here: the first answer again, nothing counted now. */
  repeat?: boolean
  /**
   * For a repeat whose first answer came from another scope's counter of the minute (#14: one slot per room, minute
   * and token): that scope, so the answer names the counter that granted it. Left out when it is the scope asked.
   */
  scope?: string
  /** Refused because the room is recovering from a lost or restored state (not taken, nothing counted). */
  recovering?: boolean
}

export interface SlotRequest {
  roomId: string
  location: string
  minute: number
  /** Limit for this location's counter (0 skips it). */
  localLimit: number
  /**
   * Limit for the Anywhere counter (0 skips it). Both limits 0: a lookup — the token's first answer if it holds a
   * slot of the minute (a repeat), else refused; nothing is granted or counted. The core sends one for a queued
   * ticket its plan gives no place, so a copy or retry of an admitted ticket is never refused (sametick18).
   */
  anywhereLimit: number
  /** `previousReported` for the location's counter and for the Anywhere counter. */
  localPreviousReported?: number
  anywherePreviousReported?: number
  token: string
  /** {@link CounterRequest.recoveryMinutes}, for both counters. */
  recoveryMinutes?: number
  /** {@link CounterRequest.epoch} and `generation`: the asking worker's view of the state, checked by the grant step. */
  epoch?: string
  generation?: number
  /** {@link CounterRequest.reentry}, for both counters. */
  reentry?: Reentry
}

export interface SlotResult {
  admitted: boolean
  /** Which counter granted the slot. */
  via?: 'location' | 'anywhere'
  /** The ticket had already taken this slot (a retry or a replayed cookie): count nothing again. */
  repeat?: boolean
  /** Round trips to the backend this decision cost (1 in the common case, never more than 2; 0 when it shared a batch's: `takeSlots`). */
  roundTrips: number
  /**
   * The granting counter's value before this grant (its `CounterResult.seq`). A worker whose snapshot saw more
   * slots taken from that counter this minute learns that the backend lost its state. Optional: adapters that
   * leave it out only lose that early warning.
   */
  seq?: number
  /** Refused because the room is recovering ({@link CounterResult.recovering}): no counter was asked further. */
  recovering?: boolean
}

export interface Coordinator {
  /** Adapter name for errors and metrics, e.g. `memory`. */
  readonly name: string
  /**
   * How often workers should report, in ms, when the `syncIntervalMs` option is not set. In-process
   * backends say 0 (report right away: it costs nothing); remote ones leave it unset (1000).
   */
  readonly preferredSyncIntervalMs?: number
  /**
   * True when `sync` fixes each minute's reference traffic table room-wide, first writer wins, and answers it
   * (`WorkerReport.references` → `RoomState.references`, reference.ts). Workers then split every minute's slots
   * from the one fixed table, and grant no new slot of a minute before its reference is answered. Every built-in
   * adapter does. Left out (a coordinator of an older version): each worker splits from its own view, and views
   * that disagree on the reference minute can split one minute's slots twice (README, Known limits).
   */
  readonly fixesReferences?: boolean
  /**
   * Optional, in-process backends only: true when `roomId`'s reference for `minute` is fixed already. Fixed ones stay
   * (first writer wins), so a worker that proposes for such a minute sends an empty table instead of walking every
   * location's traffic for one the backend discards (issue 15: a tenth of the simulator's planet CPU).
   */
  holdsReference?(roomId: string, minute: number): boolean
  /** Conditional increment of one minute counter. Counters expire a few minutes after their minute. */
  increment(request: CounterRequest): Promise<CounterResult>
  /**
   * Merges a worker's report into its location (applying each report id once, and each `once` key once:
   * {@link applyOnce}) and answers with the state of every location of the room, as fresh as the adapter's
   * hierarchy allows, with the room's {@link RoomEpoch} (created, set-if-absent, by the first sync of a room
   * whose stored state is absent — so a backend that lost its state answers with a new epoch).
   */
  sync(report: WorkerReport): Promise<RoomState>
  /** Optional fused location-then-Anywhere decision in one round trip. */
  takeSlot?(request: SlotRequest): Promise<SlotResult>
  /**
   * Optional: several slot requests of one room decided in one atomic step (one round trip), in the order given,
   * each exactly as `takeSlot` would decide it after the ones before it (its own token, its own limits), answered
   * in the same order. The first result carries the round trips, the others 0. The core sends the new users one
   * worker receives in a turn of its event loop (slot-batch.ts), so a crowd's decisions share one call; a single
   * request is a batch of one. A failed call fails every request of it.
   */
  takeSlots?(requests: readonly SlotRequest[]): Promise<SlotResult[]>
  /**
   * Optional history (`src/history/model.ts`): adds a batch's counters, max-merges its gauges, once per batch
   * id, and prunes minutes older than its retention. Without it the admin API's analytics answer 501.
   */
  recordHistory?(batch: HistoryBatch): Promise<void>
  /** The history rows of minutes in [fromMinute, toMinute). */
  readHistory?(query: HistoryQuery): Promise<HistoryRow[]>
}

/** The recovery window a request without one gets: the longest session (30 minutes) plus one. */
export const DEFAULT_RECOVERY_MINUTES = 31

/**
 * Whether a fresh grant is refused because the room is recovering: the backend holds `lostMinute`, the latest
 * minute in which its state was found lost or restored (written in the same atomic step that found it, and
 * with every `R{m}` mark a report adds), and the request's minute is within its recovery window of it — the
 * same minutes the snapshot counts the room as full (location-part.ts: `R{m}` with m ≥ minute − session − 1).
 * Read by every grant, so a worker that has not yet heard of the loss cannot grant from the emptied state. A
 * token that already holds its slot still gets its first answer (asked before this). Every adapter applies this.
 */
export function refusesWhileRecovering(request: { minute: number; recoveryMinutes?: number | undefined }, lostMinute: number | undefined): boolean {
  if (lostMinute === undefined || !Number.isFinite(lostMinute)) return false
  const window = request.recoveryMinutes ?? DEFAULT_RECOVERY_MINUTES
  return window > 0 && request.minute <= lostMinute + window
}

/** Counters are kept this many minutes past their minute, for late retries. */
export const COUNTER_TTL_MINUTES = 3

/**
 * The limit a counter applies: `limit`, lowered by the slots it gave in the minute before beyond what the
 * caller's snapshot had seen (`previousCount − previousReported`). Every adapter applies exactly this.
 */
export function effectiveLimit(limit: number, previousCount: number, previousReported: number | undefined): number {
  return previousReported === undefined ? limit : limit - Math.max(0, previousCount - previousReported)
}

/**
 * What a fresh grant adds to the asking location's state, atomically with the slot: one active user and
 * one admission in the grant's minute, and, when the Anywhere pool granted it, one Anywhere admission.
 * Every adapter applies exactly these deltas (the worker records none of them itself).
 */
export function admissionDeltas(request: CounterRequest): Record<string, number> {
  const deltas: Record<string, number> = { [activeField(request.minute)]: 1, [admittedField(request.minute)]: 1 }
  if (request.scope === ANYWHERE) deltas[anywhereAdmittedField(request.minute)] = 1
  return deltas
}

/** The recovery window and the worker's view of the state, as given: every counter of a slot request carries them. */
function withSeen(counter: CounterRequest, { recoveryMinutes, epoch, generation, reentry }: SlotRequest): CounterRequest {
  // Assigned, not spread from temporary objects: this runs for every new user's decision (#16).
  if (recoveryMinutes !== undefined) counter.recoveryMinutes = recoveryMinutes
  if (epoch !== undefined) counter.epoch = epoch
  if (generation !== undefined) counter.generation = generation
  if (reentry !== undefined) counter.reentry = reentry
  return counter
}

/** The location's own counter request of a slot request. */
export const locationCounterRequest = (request: SlotRequest): CounterRequest =>
  withSeen({
    roomId: request.roomId,
    location: request.location,
    scope: request.location,
    minute: request.minute,
    limit: request.localLimit,
    previousReported: request.localPreviousReported,
    token: request.token,
  }, request)

/** The Anywhere pool's counter request of a slot request. */
export const anywhereCounterRequest = (request: SlotRequest): CounterRequest =>
  withSeen({
    roomId: request.roomId,
    location: request.location,
    scope: ANYWHERE,
    minute: request.minute,
    limit: request.anywhereLimit,
    previousReported: request.anywherePreviousReported,
    token: request.token,
  }, request)

/**
 * The location counter first; when its allocation is used up, the Anywhere counter (seed 000). The one place
 * this order is written: the core's two-call path, the memory coordinator's and SQLite's fused `takeSlot`
 * all run it. `take` is one conditional increment — synchronous (inside one SQLite transaction: the answer is
 * then synchronous too) or not; `fused` says the takes share one round trip (one call or one transaction), so
 * the result reports 1 — else one per counter asked.
 */
/**
 * A counter's answer to a token it finds granted in the room's minute (`first`: the seq it took, the scope that gave
 * it): the first answer again, naming that scope when it is not the one asked (`CounterResult.scope`).
 */
export function repeatOf(first: { seq: number; scope: string }, asked: string): CounterResult {
  return first.scope === asked ? { taken: true, seq: first.seq, repeat: true } : { taken: true, seq: first.seq, repeat: true, scope: first.scope }
}

export function takeInOrder(take: (request: CounterRequest) => CounterResult, request: SlotRequest, fused?: boolean): SlotResult
export function takeInOrder(take: (request: CounterRequest) => Promise<CounterResult>, request: SlotRequest, fused?: boolean): Promise<SlotResult>
export function takeInOrder(
  take: (request: CounterRequest) => CounterResult | Promise<CounterResult>,
  request: SlotRequest,
  fused = false,
): SlotResult | Promise<SlotResult> {
  // The counters to ask, in order; each request is built only when its counter is asked (#16).
  const order: ('location' | 'anywhere')[] = []
  if (request.localLimit > 0) order.push('location')
  // Both 0: a lookup (a queued ticket the plan gives no place): the Anywhere counter at limit 0 answers the token's
  // first answer of the minute, from whichever scope, and grants nothing else.
  if (request.anywhereLimit > 0 || order.length === 0) order.push('anywhere')
  const roundTrips = (calls: number): number => (fused ? Math.min(1, calls) : calls)
  const step = (i: number): SlotResult | Promise<SlotResult> => {
    if (i === order.length) return { admitted: false, roundTrips: roundTrips(i) }
    const via = order[i]!
    const counter = via === 'location' ? locationCounterRequest(request) : anywhereCounterRequest(request)
    const settle = (r: CounterResult): SlotResult | Promise<SlotResult> =>
      r.taken
        ? { admitted: true, via: r.scope === undefined ? via : r.scope === ANYWHERE ? 'anywhere' : 'location', repeat: r.repeat === true, roundTrips: roundTrips(i + 1), seq: r.seq }
        : r.recovering
          ? { admitted: false, recovering: true, roundTrips: roundTrips(i + 1) }
          : step(i + 1)
    const result = take(counter)
    return result instanceof Promise ? result.then(settle) : settle(result)
  }
  return step(0)
}

/** The adapter's fused `takeSlot` when it has one, else {@link takeInOrder} over `increment` (two round trips at most). */
export function takeSlot(coordinator: Coordinator, request: SlotRequest): Promise<SlotResult> {
  if (coordinator.takeSlot) return coordinator.takeSlot(request)
  return Promise.resolve(takeInOrder((counter) => coordinator.increment(counter), request))
}
