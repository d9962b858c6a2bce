/**
 * @module
 * A worker's renewals not yet sent to the coordinator (break14e outage-memory): while the store is down, a user who
 * keeps browsing renews once a minute, and keeping each of those moves would grow a worker's state with users ×
 * minutes of outage. The register (moves.ts) makes the latest move of a ticket sufficient: a later one supersedes
 * the earlier one in place, in the report that nobody has sent yet, so a worker holds at most one unsent move per
 * ticket (plus the ones of the report being tried).
 */
import type { Move } from './move.ts'

/** Folds what `earlier` says into `later`: applied alone, `later` leaves the ticket where the two in turn would. */
function supersede(earlier: Move, later: Move): void {
  // The earlier renewal was served at `earlier.to`: applied first it moves the confirmed count there, and the later
  // one moves it on while `earlier.to` is within its window — exactly what a pending renewal to `earlier.to` asks.
  const pending = Math.max(earlier.to, earlier.pending ?? earlier.to, later.pending ?? earlier.to)
  Object.assign(earlier, later, { pending })
}

export class UnsentMoves {
  /** Ticket → its move in a report not sent yet (pending, or queued behind the one being tried). */
  readonly #byTicket = new Map<string, Move>()
  /** Requests waiting for a ticket's move to go out (a slow store: see `WorkerLink.awaitMove`). */
  readonly #waiters = new Map<string, (() => void)[]>()

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
    for (const move of moves) {
      if (this.#byTicket.get(move.ticket) !== move) continue
      this.#byTicket.delete(move.ticket)
      this.#release(move.ticket)
    }
  }

  /** Whether the ticket's move waits in a report not sent yet. */
  has(ticket: string): boolean {
    return this.#byTicket.has(ticket)
  }

  /** Resolves once the ticket's move goes out, or a report fails ({@link failed}); the caller bounds the wait. */
  whenSent(ticket: string): Promise<void> {
    return new Promise((resolve) => {
      const list = this.#waiters.get(ticket)
      if (list) list.push(resolve)
      else this.#waiters.set(ticket, [resolve])
    })
  }

  /** A report failed: nobody waits for a move to go out (an outage never holds admitted users). */
  failed(): void {
    for (const ticket of [...this.#waiters.keys()]) this.#release(ticket)
  }

  #release(ticket: string): void {
    const list = this.#waiters.get(ticket)
    if (!list) return
    this.#waiters.delete(ticket)
    for (const resolve of list) resolve()
  }

  get size(): number {
    return this.#byTicket.size
  }
}
