/**
 * @module
 * A renewal's move (issue 14 item 3): an admitted session checking in during a later minute moves its one count
 * from the minute it is counted in (`a{h}`) to this one (`a{to}`). The coordinator keeps, per ticket, a register:
 * the minute the ticket is counted in. A move is one compare-and-move against it, applied by every adapter in the
 * same atomic step as the report that carries it ({@link moveStep}, mirrored exactly by the Redis script), and
 * answered with the minute the ticket holds after it (`RoomState.moved`). So whatever order reports arrive in,
 * however often they are retried, and whichever cookie of the ticket (old, replayed, renewed) was renewed, the
 * ticket is counted in one minute: a late report never moves it back, and a replayed old cookie only moves the one
 * count forward. The worker seals the renewed cookie with the minute the coordinator answered.
 *
 * Registers expire {@link REGISTER_EXTRA_MINUTES} after their minute has left the session window, so the memory they
 * take is bounded by the sessions renewed within one window.
 */
import { activeField } from './state.ts'
import type { Move } from './move.ts'

export type { Move } from './move.ts'

/** The answer for a ticket the coordinator counts nowhere: its session ended. */
export const MOVE_ENDED = -1
/** Minutes a register is kept after its minute left the session window (late reports, clock skew). */
export const REGISTER_EXTRA_MINUTES = 2

export interface MoveOutcome {
  /** The register after the move (unchanged when `changed` is false). */
  held: number | undefined
  changed: boolean
  /** What to add to the reporting location's counts. */
  deltas: Record<string, number>
  /** The minute the ticket is counted in now, or {@link MOVE_ENDED}. */
  answer: number
}

/**
 * One move against the register `held` (undefined: none). Every adapter applies exactly this, atomically with the
 * report:
 * - held ≥ to: a late or replayed report — nothing changes, the answer is held;
 * - the count (held, or `from` when there is no register) still in the window at `to`: it moves, held = to;
 * - not counted (a session of a lost state), or a register older than the cookie's confirmed minute (lost state: a
 *   store restored from an older copy): put in, held = to;
 * - else the session ended — the register itself shows a state at or after the cookie's that left the window:
 *   nothing changes. The coordinator says "ended" only when it knows; lost state never logs a user out (the
 *   room's recovery mode keeps it at its limit meanwhile). A count that left the window is never put back by a
 *   move, whatever the worker saw meanwhile (a pending renewal, a report held back by a cut-off worker): the room
 *   stopped counting it and newcomers may have its place, so its way back is the grant step (session.ts `reenter`).
 */
export function moveStep(held: number | undefined, move: Move): MoveOutcome {
  const { to } = move
  if (held !== undefined && held >= to) return { held, changed: false, deltas: {}, answer: held }
  const counted = held ?? move.from
  if (counted !== undefined && counted >= to) return { held, changed: false, deltas: {}, answer: counted }
  if (counted !== undefined && counted >= move.since) return { held: to, changed: true, deltas: { [activeField(counted)]: -1, [activeField(to)]: 1 }, answer: to }
  if (!knowsEnded(held, move)) return { held: to, changed: true, deltas: { [activeField(to)]: 1 }, answer: to }
  return { held, changed: false, deltas: {}, answer: MOVE_ENDED }
}

/**
 * Whether the coordinator knows the session ended: the cookie's confirmed count (`from`) is its own state — no
 * register (never moved: the admission's count, which has left the window) or a register at or after it. A register
 * older than the cookie is a state that lost the moves after it (a store restored from an older copy).
 */
const knowsEnded = (held: number | undefined, move: Move): boolean => move.from !== undefined && (held === undefined || held >= move.from)

/**
 * The minute after which a register set to `move.to` may be dropped: its count has left every window. A whole
 * minute (positions are fractions of one: positions.ts), so every store's time-to-live is whole seconds.
 */
export const registerExpiresAfter = (move: Move): number => Math.ceil(move.to + (move.to - move.since)) + REGISTER_EXTRA_MINUTES

/**
 * A pending renewal re-entering through the grant step (session.ts `reenter`): the ticket whose register the grant
 * sets, and the oldest minute its session window counts at the grant's minute (`minute − sessionDurationMinutes`,
 * as a move's `since`: the register's expiry).
 */
export interface Reentry {
  ticket: string
  since: number
}

/**
 * The register a re-entry's fresh grant in `minute` leaves, written in the grant's atomic step by every adapter:
 * the grant's minute — where the grant counts the ticket — unless the register already holds that minute or a
 * later one (a move landed first: it counts the ticket there). Undefined: unchanged. Without it the register kept
 * the minute before the re-entry, so the next renewal read as a lost state and was put in again (counted twice),
 * and an older pending cookie replayed in a later minute was answered "ended" and took another slot.
 */
export const reenteredRegister = (held: number | undefined, minute: number): number | undefined => (held !== undefined && held >= minute ? undefined : minute)

/** The minute after which a re-entry's register may be dropped, as a move's to the grant's minute. */
export const reentryExpiresAfter = (reentry: Reentry, minute: number): number => registerExpiresAfter({ ticket: reentry.ticket, to: minute, since: reentry.since })

/** The key a move is tracked by in a worker: the ticket and its target minute. */
export const moveKey = (ticketId: string, to: number): string => `${ticketId}.${to}`

/**
 * A room's registers in memory: ticket → minute held, dropped after {@link registerExpiresAfter}. Registers are
 * filed by the minute they expire (a move refiles its ticket), and pruning drops whole expired minutes: the
 * expiry depends on the session length the move was made with, which changes at run time, so insertion order is
 * not expiry order — one long-session register must not keep every later one. Memory: the tickets renewed within
 * the longest window of the last registers, one map entry and one set entry each.
 */
export class MoveRegisters {
  readonly #held = new Map<string, { minute: number; expires: number }>()
  readonly #byExpiry = new Map<number, Set<string>>()
  #prunedMinute = Number.NEGATIVE_INFINITY

  /** Applies `move` ({@link moveStep}); answers the minute the ticket holds, with the deltas to add. */
  apply(move: Move): MoveOutcome {
    const before = this.#held.get(move.ticket)
    const outcome = moveStep(before?.minute, move)
    if (outcome.changed) this.#set(move.ticket, outcome.held!, registerExpiresAfter(move), before)
    return outcome
  }

  #set(ticket: string, minute: number, expires: number, before: { expires: number } | undefined): void {
    if (before && before.expires !== expires) this.#unfile(ticket, before.expires)
    this.#held.set(ticket, { minute, expires })
    const bucket = this.#byExpiry.get(expires)
    if (bucket) bucket.add(ticket)
    else this.#byExpiry.set(expires, new Set([ticket]))
  }

  /** A re-entry's fresh grant in `minute` ({@link reenteredRegister}): the register moves to it, no deltas. */
  enter(reentry: Reentry, minute: number): void {
    const before = this.#held.get(reentry.ticket)
    if (reenteredRegister(before?.minute, minute) !== undefined) this.#set(reentry.ticket, minute, reentryExpiresAfter(reentry, minute), before)
  }

  prune(minute: number): void {
    if (minute <= this.#prunedMinute) return
    this.#prunedMinute = minute
    for (const [expires, tickets] of this.#byExpiry) {
      if (expires >= minute) continue
      for (const ticket of tickets) this.#held.delete(ticket)
      this.#byExpiry.delete(expires)
    }
  }

  #unfile(ticket: string, expires: number): void {
    const bucket = this.#byExpiry.get(expires)
    if (!bucket) return
    bucket.delete(ticket)
    if (bucket.size === 0) this.#byExpiry.delete(expires)
  }

  get size(): number {
    return this.#held.size
  }
}

/** Moves answered per target minute, at most this many a minute (past it a renewal is sent again: idempotent). */
const MAX_ANSWERED = 200_000

/**
 * What a worker knows of its moves: answered (per target minute, for the rest of that minute: the user's next
 * request gets the renewed cookie at once), or in flight (recorded, not yet answered), with the requests that wait
 * for them. Memory: the current minute's answers (bounded), and in-flight keys, which are also in the link's
 * unacknowledged reports.
 */
export class MoveAnswers {
  #minute = Number.NEGATIVE_INFINITY
  #answered = new Map<string, number>()
  /** Recorded, not yet answered: key → target minute. */
  #inFlight = new Map<string, number>()
  #waiters = new Map<string, ((answer: number | undefined) => void)[]>()

  answer(key: string, minute: number): number | undefined {
    return minute === this.#minute ? this.#answered.get(key) : undefined
  }

  inFlight(key: string): boolean {
    return this.#inFlight.has(key)
  }

  sent(key: string, minute: number): void {
    this.#inFlight.set(key, minute)
  }

  /** A report carrying the move `key` was applied: `answer` is the minute the ticket holds (undefined: not told). */
  answered(key: string, answer: number | undefined): void {
    const minute = this.#inFlight.get(key)
    if (minute === undefined) return
    this.#inFlight.delete(key)
    if (minute > this.#minute) {
      this.#minute = minute
      this.#answered.clear()
    }
    if (answer !== undefined && minute === this.#minute && this.#answered.size < MAX_ANSWERED) this.#answered.set(key, answer)
    this.#settle(key, answer)
  }

  /** The move `key` was superseded by a later one of its ticket (unsent-moves.ts): nobody waits for it any more. */
  dropped(key: string): void {
    this.#inFlight.delete(key)
    this.#settle(key, undefined)
  }

  /** Resolves with the answer, or undefined when the report carrying it fails (the caller bounds the wait). */
  wait(key: string): Promise<number | undefined> {
    return new Promise((resolve) => {
      const list = this.#waiters.get(key)
      if (list) list.push(resolve)
      else this.#waiters.set(key, [resolve])
    })
  }

  /** A report failed: nobody waits for its retry (an outage never holds admitted users). */
  failed(): void {
    for (const key of [...this.#waiters.keys()]) this.#settle(key, undefined)
  }

  #settle(key: string, answer: number | undefined): void {
    const list = this.#waiters.get(key)
    if (!list) return
    this.#waiters.delete(key)
    for (const resolve of list) resolve(answer)
  }
}
