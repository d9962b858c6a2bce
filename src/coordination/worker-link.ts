/**
 * @module
 * One worker's link to the coordinator: it collects this worker's deltas, reports them in the background,
 * keeps the latest room state and the snapshot built from it. No request waits on a report, except a renewal,
 * which waits (bounded) for the coordinator's answer to its move (moves.ts); a worker with no
 * state at all (a cold start) waits once for its first sync, so it never decides blind; and a new user's slot
 * waits (bounded) for the minute's reference traffic table when none is held (held-references.ts, split14).
 *
 * Longer than 250 lines because it is one small state machine — deltas pending → sent but unacknowledged →
 * acknowledged into the state — whose parts share private fields; split, each part would expose them.
 */
import { minuteOf, MINUTE_MS } from '../clock.ts'
import type { Coordinator, SlotResult } from './coordinator.ts'
import { buildSnapshot, type Snapshot } from '../admission/snapshot.ts'
import { locationStateOf, SnapshotBuilder } from '../admission/snapshot-builder.ts'
import { SeenSet } from './seen-set.ts'
import { withTimeout } from './timeout.ts'
import { MoveAnswers, moveKey, type Move } from './moves.ts'
import { UnsentMoves } from './unsent-moves.ts'
import { activeKeepMinutes, addCounts, admittedField, anywhereAdmittedField, applyOnce, lostStateField, revocationKeyOfField, type LocationState, type RoomEpoch, type RoomState, type WorkerReport } from './state.ts'
import { randomId, type Ticket } from '../ticket/ticket.ts'
import { sessionEpoch } from './session-epoch.ts'
import { HeldReferences } from './held-references.ts'
import { OwnGrants, rolledBack } from './rolled-back.ts'
import { GrantRegister } from './grant-register.ts'

export interface LinkOptions {
  roomId: string
  sessionDurationMinutes: number
  /** Shortest time between reports while there is something to report. */
  syncIntervalMs: number
  /** Longest time a snapshot is used before it is refreshed even with nothing to report. */
  maxSnapshotAgeMs: number
  timeoutMs: number
  /** The room's clock, for reports sent after the request that caused them. */
  clock: () => number
  /** Minutes a queued user stays in the waiting count (see `waitingWindowMinutes`). Default 2. */
  waitingWindowMinutes?: number
}

/** A sync slower than this backs the report interval off (up to 8×), so a busy aggregator is not overrun. */
const SLOW_SYNC_MS = 250
/** Beyond two exchanges' timeouts, an untimed move wait gives up (it should have been settled by then). */
const EXCHANGE_SLACK_MS = 100
/** Sessions a cold worker holds for judging against the first epoch it learns (one old ticket is enough). */
const MAX_UNJUDGED = 16
/** Where a held session was served. */
const heldLocation = (held: { location: string }): string => held.location
/** Minutes of history the room keeps beyond the session window (traffic reference, admissions average). */
const EXTRA_HISTORY_MINUTES = 6
/** A worker holding no reference for the next minute yet syncs at least this often in the minute's second half. */
const REFERENCE_RETRY_MS = 1_000

export { withTimeout } from './timeout.ts'

export class WorkerLink {
  readonly options: LinkOptions
  keepMinutes: number
  /** Minutes back active counts are read (state.ts `activeKeepMinutes`), the longest session's so far. */
  activeMinutes: number
  #state: RoomState | undefined
  #snapshot: Snapshot | undefined
  /** Keeps the snapshot from one state to the next, reading only the locations that changed. */
  #builder = new SnapshotBuilder()
  #pending = new Map<string, Record<string, number>>()
  /** Once-keyed deltas per location (revocations), reported with the next report. */
  #pendingOnce = new Map<string, NonNullable<WorkerReport['once']>>()
  /** Admissions the coordinator counted in its grant, shown in this worker's snapshot until a later sync has them. */
  #observed: { seq: number; location: string; deltas: Record<string, number> }[] = []
  #observedSeq = 0
  /** This worker's grants of the last two minutes: every answer read after one must count it (rolled-back.ts). */
  #ownGrants = new OwnGrants()
  /** The room's epoch as last answered: a different one means the backend lost or replaced its state. */
  #epoch: RoomEpoch | undefined
  /** The highest generation of `#epoch` seen in answers and tickets: sent with reports (WorkerReport.seen). */
  #generation: number | undefined
  /** A ticket showed a later generation than any answer: the next report must carry it, even with no deltas. */
  #generationToReport = false
  /** Sessions served before the first epoch was known, judged when it is. */
  #unjudged: { ticket: Ticket; location: string; now: number }[] = []
  /** The minute and state a loss was last marked for: once per minute and state, so a second loss is marked too. */
  #lostNoted: { minute: number; epoch: RoomEpoch | undefined } | undefined
  /** Something changed that the snapshot must show before the next sync (a revocation, a lost state). */
  #dirty = false
  /** Reports sent but not acknowledged: resent with the same id, so a lost reply is not counted twice. */
  #unacknowledged: WorkerReport[] = []
  #syncing: Promise<void> | undefined
  #lastSyncAt = Number.NEGATIVE_INFINITY
  #laterScheduled = false
  #last: { coordinator: Coordinator; location: string } | undefined
  #backoff = 1
  #seen = new SeenSet()
  /** Queued tickets the counters admitted through this worker this minute: a copy or retry costs no call. */
  readonly grants: GrantRegister = new GrantRegister()
  /** New queue places this worker gave since its snapshot was last built (the next rebuild shows them). */
  #newQueuePlaces = 0
  /** Renewals' moves per location, reported with the next report (moves.ts). */
  #pendingMoves = new Map<string, Move[]>()
  /** Renewals' moves: in flight, answered, waited for (moves.ts). */
  #moves = new MoveAnswers()
  /** A wait of a caller's bound (not the confirmed cookie's last minute) expired; cleared by a report that gets through. */
  #timedWaitExpired = false
  /**
   * When the report being tried was sent, by `performance.now()`: the clock its timeout runs on, not the room's (a
   * room clock running ahead of the timers — a test's accelerated clock, a wall clock stepped forward — took a
   * 250 ms-old exchange for a hanging one: break14g mixed-phase-cli).
   */
  #reportSentAt: number | undefined
  /** Moves in reports not sent yet, by ticket: a later renewal supersedes the earlier (an outage's state ∝ tickets). */
  #unsentMoves = new UnsentMoves()
  /** A request waits for a move: the report carrying it goes out now, not one interval later. */
  #urgent = false
  /** The last report failed, or a wait for a move timed out: renewals do not wait until a report gets through. */
  #failing = false
  /** Failed coordinator calls (sync and counters), for metrics. */
  errors = 0
  #lastLoggedMinute = Number.NaN
  /** The coordinator of the last sync fixes each minute's reference (Coordinator.fixesReferences): split only from those. */
  #fixes = false
  /** The references the coordinator answered (held-references.ts). */
  #references = new HeldReferences()

  constructor(options: LinkOptions) {
    this.options = options
    this.keepMinutes = options.sessionDurationMinutes + EXTRA_HISTORY_MINUTES
    this.activeMinutes = activeKeepMinutes(options.sessionDurationMinutes)
  }

  /** Adds `delta` to `field` of `location`, to be reported. */
  record(location: string, field: string, delta: number): void {
    let deltas = this.#pending.get(location)
    if (!deltas) this.#pending.set(location, (deltas = {}))
    deltas[field] = (deltas[field] ?? 0) + delta
  }

  /**
   * Adds `deltas` once per `key` in the whole room (the coordinator applies a key once, whichever worker or
   * process sends it): a revocation, keyed by ticket, frees one place however often it is sent.
   */
  recordOnce(location: string, key: string, deltas: Record<string, number>): void {
    let once = this.#pendingOnce.get(location)
    if (!once) this.#pendingOnce.set(location, (once = {}))
    once[key] ??= deltas
    this.#dirty = true
  }

  /**
   * Records a renewal's move (moves.ts) made at `location`, unless it is in flight already. Answers the minute the
   * coordinator counts the ticket in when it has answered this move already (this minute), else undefined. Not
   * marked dirty: like a plain delta, the next rebuild shows it (no rebuild per renewal).
   */
  renew(location: string, move: Move): number | undefined {
    const key = moveKey(move.ticket, move.to)
    const answer = this.#moves.answer(key, Math.floor(move.to))
    if (answer !== undefined || this.#moves.inFlight(key)) return answer
    const superseded = this.#unsentMoves.supersede(move)
    if (superseded) this.#moves.dropped(moveKey(superseded.ticket, superseded.to))
    else {
      const moves = this.#pendingMoves.get(location)
      if (moves) moves.push(move)
      else this.#pendingMoves.set(location, [move])
      this.#unsentMoves.queued(move)
    }
    this.#moves.sent(key, Math.floor(move.to)) // answers are kept per minute: `to` is a position (positions.ts)
    return undefined
  }

  /**
   * Waits for the answer to the move {@link renew} recorded for `ticketId` and minute `to`, sending the report
   * carrying it now (one report for every renewal recorded meanwhile). Undefined at once while reports fail: an
   * outage never holds admitted users (the caller decides what the user keeps).
   * - `ms` given: at most that long; its expiring is not a failure (the exchange's own timeout says that).
   * - `ms` undefined: until the exchange that carries the move settles — a slow store is not a failing one. A move
   *   recorded while an exchange is in flight goes out with the next, so the wait is at most that exchange's rest
   *   and its own, each bounded by `timeoutMs`; a hanging store fails the exchange in flight within `timeoutMs`,
   *   which marks the worker failing and releases every wait. Only that failure marks it: a renewal after a slow
   *   answer waits again (before, the second renewal of a slow exchange timed out, the worker took itself for
   *   failing, and every later renewal was handed out pending while its move sat unsent — lost to a SIGKILL).
   */
  async awaitMove(coordinator: Coordinator, location: string, ticketId: string, to: number, now: number, ms?: number): Promise<number | undefined> {
    const key = moveKey(ticketId, to)
    const known = this.#moves.answer(key, Math.floor(to))
    if (known !== undefined) return known
    if (this.#failing || !this.#moves.inFlight(key)) return undefined
    // A timed wait (the confirmed cookie still holds) is not repeated while the exchange it gave up on is under way.
    if (ms !== undefined && this.#timedWaitExpired) return undefined
    // A report in flight for longer than timeoutMs is a hanging store, not a slow one.
    if (ms === undefined && this.#reportSentAt !== undefined && performance.now() - this.#reportSentAt > this.options.timeoutMs) return undefined
    const answered = this.#moves.wait(key)
    this.#urgent = true
    this.sync(coordinator, location, now).catch(() => {})
    // Untimed, the exchanges' own timeouts bound it; the backstop only guards against a wait nothing settles.
    const answer = await within(answered, ms ?? this.#exchangesBound())
    if (answer === undefined && !this.#moves.inFlight(key)) return undefined // its report failed or was superseded
    // A bound of the caller's expiring is not a store failure (break14g mixed-phase-kill: a 150 ms wait on a store
    // within coordinatorTimeoutMs marked the worker failing, and later last-minute renewals went out pending at once,
    // lost to a SIGKILL). Only an exchange that fails or times out marks it (#send) — or the backstop below.
    if (answer === undefined && ms === undefined) this.#failing = true // cleared by the next report that gets through
    else if (answer === undefined) this.#timedWaitExpired = true // cleared likewise
    return answer
  }

  /**
   * True when `coordinator` fixes each minute's reference (Coordinator.fixesReferences) and this worker holds none
   * for `minute`: it must not grant a new slot of that minute before one is answered ({@link awaitReference}).
   */
  lacksReference(coordinator: Coordinator, minute: number): boolean {
    return coordinator.fixesReferences === true && this.#references.get(minute) === undefined
  }

  /**
   * Waits (at most `ms`) for the coordinator to answer the reference of `now`'s minute: the exchange in flight, then,
   * if that did not bring it (it was sent before the minute, or by a worker with no state yet to propose from), one
   * exchange that proposes it. Answers whether it is held now; a failing exchange throws (the caller's failMode).
   */
  async awaitReference(coordinator: Coordinator, location: string, now: number, ms: number): Promise<boolean> {
    const minute = minuteOf(now)
    const deadline = Date.now() + ms
    for (let tries = 0; tries < 2 && this.lacksReference(coordinator, minute); tries++) {
      const left = deadline - Date.now()
      if (left <= 0) break
      const withTrailing = this.sync(coordinator, location, now)
      // The exchange itself, not a trailing report one interval later (as in ready()).
      const exchange = this.#syncing ?? withTrailing
      withTrailing.catch(() => {})
      const settled = await within(exchange.then(() => true), left)
      if (settled === undefined) break
    }
    return !this.lacksReference(coordinator, minute)
  }

  /** A reference to fetch at `now`: the current minute's, or in its second half the next one's. */
  #referenceDue(coordinator: Coordinator, now: number): boolean {
    return coordinator.fixesReferences === true && this.#state !== undefined && this.#references.missing(now).length > 0
  }

  /**
   * The snapshot of the last state at the last moment of the minute before `minute` (the plain build, once a minute
   * at most): the plan that minute's views could make, for a worker that made none then (room.ts `planOf`).
   */
  snapshotBefore(minute: number): Snapshot | undefined {
    return this.#state && buildSnapshot(this.#state, minute * MINUTE_MS - 1, this.options.sessionDurationMinutes, this.options.waitingWindowMinutes)
  }

  /**
   * Puts in `report` the references this worker still lacks (held-references.ts), each table made from its view of the
   * traffic minute — the state plus its own deltas not in it yet. A worker with no state yet proposes none: an empty
   * table would give the whole minute to the Anywhere pool; its first sync brings the state to propose from.
   */
  #propose(report: WorkerReport, now: number, coordinator: Coordinator): void {
    const state = this.#state
    if (!this.#fixes || !state) return
    // Most reports have no minute to propose for: their view (a list of every delta not in the state) is not made.
    if (this.#references.missing(now).length === 0) {
      delete report.references
      return
    }
    const own: { location: string; deltas: Record<string, number> }[] = []
    for (const sent of this.#unacknowledged) own.push(sent)
    for (const [where, deltas] of this.#pending) own.push({ location: where, deltas })
    for (const observed of this.#observed) own.push(observed)
    const layers = state.layers
    const view = layers ? { locations: layers.base, replaced: { location: layers.location, state: layers.own }, own } : { locations: state.locations, own }
    const fixed = coordinator.holdsReference && ((minute: number) => coordinator.holdsReference!(report.roomId, minute))
    // Users waiting in this worker's view: the minutes it proposes are pooled (held-references.ts `proposals`). Asked
    // only when a minute lacks its reference: the snapshot may need a rebuild, which most reports need not pay.
    const queued = () => (this.snapshot(now)?.waitingUsers ?? 0) > 0
    const proposals = this.#references.proposals(now, report.id, view, fixed || undefined, queued)
    if (proposals) report.references = proposals
    else delete report.references
  }

  /** Counts a new queue place given now (its waiting delta is recorded with {@link record}). */
  noteNewQueuePlace(): void {
    this.#newQueuePlaces++
  }

  /** New queue places given since the current snapshot was built: its waiting count does not show them yet. */
  get newQueuePlaces(): number {
    return this.#newQueuePlaces
  }

  /**
   * Shows deltas the coordinator already counted (a granted admission) in this worker's snapshots until a sync has
   * them. The `grant` (its minute, the counter's answer) is checked in every later answer (rolled-back.ts).
   */
  observe(location: string, deltas: Record<string, number>, grant?: { minute: number; result: SlotResult }): void {
    this.#observed.push({ seq: ++this.#observedSeq, location, deltas })
    const { via, seq } = grant?.result ?? {}
    if (via !== undefined && seq !== undefined) this.#ownGrants.note(location, grant!.minute, via, seq)
  }

  /**
   * Slots the coordinator's last answered state shows granted in `minute` by `location`'s counter and by the
   * Anywhere counter — without this worker's own observed grants. A grant is counted by the coordinator before
   * the request that took it resumes, so a sync in that gap answers a state that has it while the observation
   * is still to come: the snapshot then shows it twice (an over-count, safe for limits), and a counter's
   * answer must not be compared with it, or a fresh grant would read as a counter that lost its state.
   */
  takenInState(location: string, minute: number): { local: number; anywhere: number } {
    // The snapshot builder holds these sums for the state it last built from (every sync builds one).
    if (this.#builder.state === this.#state && this.#builder.minute === minute) return this.#builder.takenThisMinute(location)
    const locations = this.#state?.locations ?? {}
    let anywhere = 0
    for (const name in locations) anywhere += locations[name]!.counts[anywhereAdmittedField(minute)] ?? 0
    const own = locations[location]?.counts
    const local = own ? (own[admittedField(minute)] ?? 0) - (own[anywhereAdmittedField(minute)] ?? 0) : 0
    return { local, anywhere }
  }

  /** The room's epoch as last answered by the coordinator. */
  get epoch(): RoomEpoch | undefined {
    return this.#epoch
  }

  /** The highest generation of the current epoch this worker has seen (undefined: the adapter keeps none). */
  get generation(): number | undefined {
    return this.#generation
  }

  /**
   * The state this worker knows — the epoch id it last synced with and the highest generation of it seen — for the
   * grant step to compare with the stored one (CounterRequest.epoch). Empty before the first sync: a cold worker
   * knows no state, so it cannot tell a lost one.
   */
  knownState(): { epoch?: string; generation?: number } {
    const epoch = this.#epoch?.id
    if (epoch === undefined) return {}
    return this.#generation === undefined ? { epoch } : { epoch, generation: this.#generation }
  }

  /**
   * Which state a live session is counted in (session-epoch.ts): marks the loss when it is of a state that was
   * lost or replaced, and answers whether it is outside the current state (so its renewal must not move it out).
   * Before this worker's first sync, a tagged ticket is judged when the epoch arrives: the first old ticket a
   * cold worker of a restarted fleet serves must count too. The location is `location(at)`, asked only when
   * needed (an admitted request passes its function and request rather than a closure made for it).
   */
  judgeSession<T>(ticket: Ticket, now: number, location: (at: T) => string, at: T): boolean {
    const epoch = this.#epoch
    if (epoch === undefined) {
      if (ticket.epoch !== undefined && this.#unjudged.length < MAX_UNJUDGED) this.#unjudged.push({ ticket, location: location(at), now })
      return false
    }
    const { countedBefore, lost, generation } = sessionEpoch(ticket, epoch)
    // A ticket sealed from a later generation than this worker saw: the next report tells the state, which
    // marks itself recovering if it is older than that (an older copy put back).
    if (generation !== undefined && generation > (this.#generation ?? -1)) {
      this.#generation = generation
      this.#generationToReport = true // reported like a delta: the sooner the state hears, the fewer decide on it
    }
    // The forgotten sessions were renewed until the loss: no earlier than this one's last check-in, whatever
    // clock dated the new state.
    if (lost) this.noteLostState(location(at), now, Math.max(epoch.startedAt, ticket.lastCheckInTime))
    return countedBefore
  }

  /**
   * The coordinator's state is short of sessions it once counted (a new epoch, or a session older than the
   * epoch): marks the room as recovering — full — until every session from before has expired.
   */
  noteLostState(location: string, now: number, lostAt = now): void {
    const minute = minuteOf(now)
    if (this.#lostNoted?.minute === minute && this.#lostNoted.epoch === this.#epoch) return
    this.#lostNoted = { minute, epoch: this.#epoch }
    // Marked in the minute the loss happened (when known: the new state's start), not when it was noticed:
    // the sessions it forgot last from that minute on, and no longer.
    this.record(location, lostStateField(minuteOf(Math.min(lostAt, now))), 1)
    this.#dirty = true
  }

  /**
   * True the first time `ticketId` is seen checking in during `minute` on this worker. Fifty clients
   * replaying one cookie are one user (DESIGN: deduplicate by ticket id within a minute); memory stays
   * bounded at any rate (see `SeenSet`).
   */
  firstCheckIn(ticketId: string, minute: number): boolean {
    return this.#seen.first(ticketId, minute)
  }

  /** Whether `ticketId` was seen checking in during `minute` on this worker ({@link firstCheckIn}), recording nothing. */
  seenCheckIn(ticketId: string, minute: number): boolean {
    return this.#seen.seen(ticketId, minute)
  }

  /** Follows a runtime change of the session length (admin API, events): the active window changes with it. */
  setSessionDuration(minutes: number, now: number): void {
    if (minutes === this.options.sessionDurationMinutes) return
    this.options.sessionDurationMinutes = minutes
    this.keepMinutes = Math.max(this.keepMinutes, minutes + EXTRA_HISTORY_MINUTES)
    this.activeMinutes = Math.max(this.activeMinutes, activeKeepMinutes(minutes))
    this.#rebuild(now)
  }

  /**
   * Whether the snapshot is older than `maxSnapshotAgeMs` with no sync under way. A worker that serves only
   * admitted users reports nothing, so without asking this it would never learn of a revocation made elsewhere.
   */
  stale(now: number): boolean {
    return this.#syncing === undefined && this.#state !== undefined && now - this.#lastSyncAt >= this.options.maxSnapshotAgeMs
  }

  /** The snapshot for `now`, rebuilt when the minute turned; undefined before the first sync. */
  snapshot(now: number): Snapshot | undefined {
    if (this.#snapshot && (this.#dirty || this.#snapshot.minute !== minuteOf(now))) this.#rebuild(now)
    return this.#snapshot
  }

  /**
   * The snapshot, waiting for a sync on a cold start or when it is older than `maxSnapshotAgeMs`. It starts no
   * other report: the caller reports after it has recorded its decision, so the decision goes out with that.
   */
  async ready(coordinator: Coordinator, location: string, now: number): Promise<Snapshot> {
    // A cold start, or a worker idle for longer than a snapshot may be used (and not failing: after a failed
    // try it decides from what it has): the room may have filled meanwhile, so it waits for one sync.
    if (!this.#state || now - this.#lastSyncAt > this.options.maxSnapshotAgeMs) {
      const withTrailing = this.sync(coordinator, location, now)
      // Wait for the exchange itself, not for a trailing report one interval later (a request must not wait
      // on a timer: in the simulator's virtual time that would never fire).
      const exchange = this.#syncing ?? withTrailing
      withTrailing.catch(() => {})
      await exchange
    }
    return this.snapshot(now)!
  }

  /**
   * Starts a background sync if one is due; never waits for it. With deltas pending but the interval not
   * over, a timer reports them when it is, so a worker's last decisions never wait for a request that may
   * not come.
   */
  maybeSync(coordinator: Coordinator, location: string, now: number, waitUntil?: (p: Promise<unknown>) => void): void {
    if (this.#syncing) return
    const since = now - this.#lastSyncAt
    const hasDeltas = this.#hasPending() || this.#unacknowledged.length > 0
    // A reference still to fetch (the next minute's, in this one's second half): the sync that proposes it is due.
    const fetch = !hasDeltas && this.#referenceDue(coordinator, now)
    const interval = hasDeltas ? this.options.syncIntervalMs * this.#backoff : fetch ? Math.max(REFERENCE_RETRY_MS, this.options.syncIntervalMs * this.#backoff) : this.options.maxSnapshotAgeMs
    // "Report right away" (an in-process coordinator) means once per turn of the event loop, not once per
    // request: every decision made in this turn goes out in one report, and the snapshot is rebuilt once for
    // them all — under a flood a sync per request was a third of a new user's cost (issue 16). This worker's
    // own snapshot shows its pending deltas meanwhile (read-your-writes); limits are the counters' business.
    if (hasDeltas && interval === 0) {
      if (!this.#laterScheduled) waitUntil?.(this.#syncLater(coordinator, location, 0))
    } else if (since >= interval) waitUntil?.(this.sync(coordinator, location, now).catch(() => {}))
    else if (hasDeltas) waitUntil?.(this.#syncLater(coordinator, location, interval - since))
  }

  /**
   * Reports everything pending and takes the answer as the new state. Concurrent callers share one sync.
   * Deltas recorded while it was under way go out right after (with no interval) or one interval later.
   */
  sync(coordinator: Coordinator, location: string, now: number): Promise<void> {
    if (this.#syncing) return this.#syncing
    this.#last = { coordinator, location }
    this.#fixes = coordinator.fixesReferences === true
    this.#syncing = (async () => {
      await this.#send(coordinator, location, now)
      // A request waiting for a move recorded during that exchange: its report goes out now, with every move
      // recorded meanwhile (the waits coalesce into one report per exchange).
      while (this.#hasPending() && (this.options.syncIntervalMs === 0 || this.#urgent)) await this.#send(coordinator, location, this.options.clock())
    })().finally(() => {
      this.#syncing = undefined
    })
    if (this.options.syncIntervalMs === 0) return this.#syncing
    return this.#syncing.then(() => {
      if (this.#hasPending()) return this.#syncLater(coordinator, location, this.options.syncIntervalMs * this.#backoff)
    })
  }

  /** Reports what is pending now, with the coordinator and location of the last sync (e.g. before a shutdown). */
  async flush(): Promise<void> {
    if (!this.#last) return
    await this.#syncing?.catch(() => {})
    if (this.#hasPending() || this.#unacknowledged.length > 0) await this.sync(this.#last.coordinator, this.#last.location, this.options.clock())
  }

  /** One report after `delayMs` (a call while one is waiting does nothing). */
  async #syncLater(coordinator: Coordinator, location: string, delayMs: number): Promise<void> {
    if (this.#laterScheduled) return
    this.#laterScheduled = true
    // "Now" is the next turn of the event loop: setImmediate where the runtime has it (a 0 ms setTimeout waits
    // at least 1 ms on Node, and runs before or after I/O callbacks depending on when it was armed).
    const immediate = delayMs === 0 ? (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate : undefined
    await new Promise<void>((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, delayMs)))
    this.#laterScheduled = false
    if (this.#hasPending() || this.#unacknowledged.length > 0) {
      await this.sync(coordinator, location, this.options.clock()).catch(() => {})
    }
  }

  /**
   * The untimed wait's backstop: the exchange in flight and the next, each report of them bounded by timeoutMs — an
   * exchange carries one report per location (break14g multi-location-backstop: 3 locations outlasted a constant 2T).
   */
  #exchangesBound(): number {
    const next = new Set([...this.#pending.keys(), ...this.#pendingOnce.keys(), ...this.#pendingMoves.keys()]).size
    return (Math.max(1, this.#unacknowledged.length) + Math.max(1, next)) * this.options.timeoutMs + EXCHANGE_SLACK_MS
  }

  /** Locations with anything pending, each once, in the order the former Set of all three maps' keys listed them. */
  #pendingLocations(): Iterable<string> {
    // Mostly plain deltas only: their Map's keys, without a Set built per report.
    if (this.#pendingOnce.size === 0 && this.#pendingMoves.size === 0) return this.#pending.keys()
    return new Set([...this.#pending.keys(), ...this.#pendingOnce.keys(), ...this.#pendingMoves.keys()])
  }

  #hasPending(): boolean {
    return this.#pending.size > 0 || this.#pendingOnce.size > 0 || this.#pendingMoves.size > 0 || this.#generationToReport
  }

  async #send(coordinator: Coordinator, location: string, now: number): Promise<void> {
    for (const where of this.#pendingLocations()) {
      this.#unacknowledged.push(this.#report(where, this.#pending.get(where) ?? {}, now, this.#pendingOnce.get(where), this.#pendingMoves.get(where)))
    }
    this.#pending.clear()
    this.#pendingOnce.clear()
    this.#pendingMoves.clear()
    this.#generationToReport = false
    this.#urgent = false
    if (this.#unacknowledged.length === 0) this.#unacknowledged.push(this.#report(location, {}, now))
    const observedUpTo = this.#observedSeq
    const ownGrants = this.#ownGrants.snapshot(minuteOf(now)) // before sending: a grant noted later may not be in the answer
    const started = Date.now()
    try {
      let state: RoomState | undefined
      while (this.#unacknowledged.length > 0) {
        const report = this.#unacknowledged[0]!
        this.#propose(report, now, coordinator)
        this.#unsentMoves.sending(report.moves)
        this.#reportSentAt = performance.now()
        state = await withTimeout(coordinator.sync(report), this.options.timeoutMs, coordinator.name).finally(() => (this.#reportSentAt = undefined))
        this.#unacknowledged.shift()
        if (this.#fixes) this.#references.hold(state.references, now)
        // Applied: the moves it carries are answered with the minute each ticket is counted in now.
        if (report.moves) for (const move of report.moves) this.#moves.answered(moveKey(move.ticket, move.to), state.moved?.[move.ticket])
      }
      this.#failing = false
      this.#timedWaitExpired = false
      const previous = this.#state
      this.#state = state
      if (this.#observed.length > 0) this.#observed = this.#observed.filter((o) => o.seq > observedUpTo)
      if (state?.epoch) {
        // Lost after this worker's last sync with the old state, whatever clock dated the new one.
        if (this.#epoch && state.epoch.id !== this.#epoch.id) this.noteLostState(location, now, Math.max(state.epoch.startedAt, this.#lastSyncAt))
        const sameEpoch = this.#epoch?.id === state.epoch.id
        this.#epoch = state.epoch
        if (state.generation !== undefined) this.#generation = sameEpoch ? Math.max(this.#generation ?? 0, state.generation) : state.generation
        for (const held of this.#unjudged.splice(0)) this.judgeSession(held.ticket, held.now, heldLocation, held)
        // The same epoch at a generation the workers' sightings never got above, yet behind what this worker knew: an
        // older copy put back and caught up with (rolled-back.ts). Lost no earlier than now, for all it knows.
        if (rolledBack(previous, state, ownGrants, minuteOf(now))) {
          this.noteLostState(location, now)
          this.#ownGrants.forget(ownGrants)
        }
      }
      this.#lastSyncAt = now
      this.#backoff = Date.now() - started > SLOW_SYNC_MS ? Math.min(8, this.#backoff * 2) : 1
      this.#rebuild(now)
    } catch (error) {
      this.#lastSyncAt = now
      this.#backoff = Math.min(8, this.#backoff * 2)
      this.#failing = true
      this.#moves.failed()
      this.failed(error, now)
      throw error
    }
  }

  /** Counts a coordinator failure; logs at most once a minute (an outage must not flood the logs). */
  failed(error: unknown, now: number): void {
    this.errors++
    const minute = minuteOf(now)
    if (minute === this.#lastLoggedMinute) return
    this.#lastLoggedMinute = minute
    console.warn(`[hono-waiting-room] coordinator error (logged once a minute): ${(error as Error)?.message ?? error}`)
  }

  #report(location: string, deltas: Record<string, number>, now: number, once?: WorkerReport['once'], moves?: Move[]): WorkerReport {
    const report: WorkerReport = { id: randomId(), roomId: this.options.roomId, location, at: now, keepMinutes: this.keepMinutes, activeMinutes: this.activeMinutes, deltas }
    if (once) report.once = once
    if (moves) report.moves = moves
    if (this.#epoch && this.#generation !== undefined) report.seen = { epoch: this.#epoch.id, generation: this.#generation }
    return report
  }

  /** Builds the snapshot from the last state plus this worker's own unreported deltas (read-your-writes). */
  #rebuild(now: number): void {
    if (!this.#state) return
    this.#dirty = false
    this.#newQueuePlaces = 0 // the pending deltas below include them
    const state = this.#state
    let overlay: Map<string, LocationState> | undefined
    if (this.#hasPending() || this.#unacknowledged.length > 0 || this.#observed.length > 0) {
      const own = new Map<string, LocationState>()
      // A once key the state already shows applied (its marker is there), or that an earlier report of this
      // worker carries, is not shown twice: the coordinator claims each key once in the room.
      let claimed: Set<string> | undefined // read from the state only when some report carries once keys
      const claim = (key: string): boolean => !(claimed ??= onceKeysIn(state)).has(key) && Boolean(claimed.add(key))
      const add = (where: string, deltas: Record<string, number>, once?: WorkerReport['once']): void => {
        const located = own.get(where) ?? locationStateOf(state, where)
        const counts = { ...(located?.counts ?? {}) }
        addCounts(counts, deltas)
        applyOnce(counts, once, claim)
        own.set(where, { counts, updatedAt: located?.updatedAt ?? now })
      }
      for (const report of this.#unacknowledged) add(report.location, report.deltas, report.once)
      for (const [where, deltas] of this.#pending) add(where, deltas)
      for (const [where, once] of this.#pendingOnce) add(where, {}, once)
      for (const observed of this.#observed) add(observed.location, observed.deltas)
      overlay = own
    }
    // With a coordinator that fixes references, the minute's slots are split by the one it fixed (none held: the
    // worker's own view, which no grant uses — askForSlot waits for the reference first).
    const reference = this.#fixes ? this.#references.get(minuteOf(now))?.table : undefined
    this.#snapshot = this.#builder.build(state, now, this.options.sessionDurationMinutes, this.options.waitingWindowMinutes, overlay, reference)
  }
}

/** The once keys whose markers a state holds: revocations the coordinator already applied. */
function onceKeysIn(state: RoomState): Set<string> {
  const keys = new Set<string>()
  for (const name in state.locations) {
    for (const field in state.locations[name]!.counts) {
      const key = revocationKeyOfField(field)
      if (key !== undefined) keys.add(key)
    }
  }
  return keys
}

/** `promise`'s value, or undefined after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))
  try {
    return await Promise.race([promise, late])
  } finally {
    if (timer !== undefined) clearTimeout(timer)
  }
}
