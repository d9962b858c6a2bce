/**
 * @module
 * A renewal's move (issue 14 item 3): an admitted session checking in during a later minute moves its count from
 * the minute of its last check-in (`a{from}`) to this one (`a{to}`). It travels as two room-wide `once` entries
 * of the worker's report (state.ts `WorkerReport.once`), which every adapter already claims atomically with the
 * rest of the report — so the move needs no adapter code, and a retried, replayed or concurrent move counts once:
 *
 * - `r-.{ticketId}.{from}` takes the session out of `a{from}`: once per ticket and source minute, however many
 *   workers, processes or minutes renew a cookie of that minute (a second decrement would steal another's place).
 * - `r+.{ticketId}.{to}` puts it into `a{to}`: once per ticket and target minute, whichever cookie of the ticket
 *   (old or renewed) was renewed there. Concurrent renewals in one minute (a page's parallel requests spread over
 *   processes, with the cookies of several minutes) share the target key, and each source minute leaves once: exact.
 *   An old cookie replayed in a LATER minute than its first renewal finds its source key taken but may claim a new
 *   target: the session is then counted in both minutes — an over-count, safe for limits, that ends with the older
 *   count's session. A minute is only ever left by a session a cookie of that minute shows entered, so no move
 *   takes out a count that is not there.
 *
 * Whoever claimed them, once a report carrying both keys is acknowledged the session IS counted in `a{to}`: that
 * acknowledgement is what lets a worker hand out a cookie valid beyond the old one (pipeline/session.ts).
 */
import { activeField } from './state.ts'

/** The once entries of a move. `countedBefore`: the session is not in the current state (a lost one): nothing to take out. */
export function moveEntries(ticketId: string, from: number, to: number, countedBefore: boolean): Record<string, Record<string, number>> {
  const into = { [moveKey(ticketId, to)]: { [activeField(to)]: 1 } }
  return countedBefore ? into : { [`r-.${ticketId}.${from}`]: { [activeField(from)]: -1 }, ...into }
}

/** The key a move is acknowledged by: the one that puts the session into its new minute. */
export const moveKey = (ticketId: string, to: number): string => `r+.${ticketId}.${to}`

/** Moves acknowledged per target minute, at most this many a minute (past it a renewal is reported again: idempotent). */
const MAX_ACKED = 200_000

/**
 * What a worker knows of its moves: acknowledged (per target minute, for the rest of that minute: the user's next
 * request gets the renewed cookie at once), or in flight (recorded, not yet acknowledged), with the requests that
 * wait for them. Memory: the current minute's acknowledged keys (bounded), and in-flight keys, which are also in
 * the link's unacknowledged reports.
 */
export class MoveAcks {
  #minute = Number.NEGATIVE_INFINITY
  #acked = new Set<string>()
  /** Recorded, not yet acknowledged: key → target minute. */
  #inFlight = new Map<string, number>()
  #waiters = new Map<string, ((acked: boolean) => void)[]>()

  acked(key: string, minute: number): boolean {
    return minute === this.#minute && this.#acked.has(key)
  }

  inFlight(key: string): boolean {
    return this.#inFlight.has(key)
  }

  sent(key: string, minute: number): void {
    this.#inFlight.set(key, minute)
  }

  /** A report carrying `key` was acknowledged: if it is a move of this worker's, it is counted. */
  acknowledge(key: string): void {
    const minute = this.#inFlight.get(key)
    if (minute === undefined) return
    this.#inFlight.delete(key)
    if (minute > this.#minute) {
      this.#minute = minute
      this.#acked.clear()
    }
    if (minute === this.#minute && this.#acked.size < MAX_ACKED) this.#acked.add(key)
    this.#settle(key, true)
  }

  /** Resolves true when `key` is acknowledged, false when the report carrying it fails (the caller bounds the wait). */
  wait(key: string): Promise<boolean> {
    return new Promise((resolve) => {
      const list = this.#waiters.get(key)
      if (list) list.push(resolve)
      else this.#waiters.set(key, [resolve])
    })
  }

  /** A report failed: nobody waits for its retry (an outage never holds admitted users). */
  failed(): void {
    for (const key of [...this.#waiters.keys()]) this.#settle(key, false)
  }

  get waiting(): boolean {
    return this.#waiters.size > 0
  }

  #settle(key: string, acked: boolean): void {
    const list = this.#waiters.get(key)
    if (!list) return
    this.#waiters.delete(key)
    for (const resolve of list) resolve(acked)
  }
}
