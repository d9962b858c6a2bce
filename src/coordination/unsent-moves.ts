/**
 * @module
 * A worker's renewals not yet sent to the coordinator (break14e outage-memory): while the store is down, a user who
 * keeps browsing renews once a minute, and keeping each of those moves would grow a worker's state with users ×
 * minutes of outage. The register (moves.ts) makes the latest move of a ticket sufficient: a later one supersedes
 * the earlier one in place, in the report that nobody has sent yet, so a worker holds at most one unsent move per
 * ticket (plus the ones of the report being tried).
 */
import type { Move } from './move.ts'

/**
 * Folds `later` into `earlier`: the later renewal's move replaces it. Neither was applied, so the coordinator's count
 * is still where the cookie's confirmed minute says: the later move, applied alone, moves it if the room still counts
 * it when the report is applied, and otherwise answers "ended" — the user's way back is then the grant step
 * (session.ts `reenter`), never a put-back on what this worker saw while it was cut off (break14g outage-overshoot).
 */
function supersede(earlier: Move, later: Move): void {
  Object.assign(earlier, later)
}

export class UnsentMoves {
  /** Ticket → its move in a report not sent yet (pending, or queued behind the one being tried). */
  readonly #byTicket = new Map<string, Move>()

  /**
   * Supersedes the ticket's unsent earlier move with `move` (answers the superseded move, to be forgotten), or
   * answers undefined when there is none: the caller queues `move`, and notes it with {@link queued}.
   */
  supersede(move: Move): Move | undefined {
    const earlier = this.#byTicket.get(move.ticket)
    if (earlier === undefined || earlier.to >= move.to) return undefined
    const superseded = { ...earlier }
    supersede(earlier, move)
    return superseded
  }

  queued(move: Move): void {
    this.#byTicket.set(move.ticket, move)
  }

  /** A report is about to be sent (and may be applied): its moves can no longer change. */
  sending(moves: readonly Move[] | undefined): void {
    if (!moves) return
    for (const move of moves) if (this.#byTicket.get(move.ticket) === move) this.#byTicket.delete(move.ticket)
  }

  get size(): number {
    return this.#byTicket.size
  }
}
