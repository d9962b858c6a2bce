/**
 * @module
 * Single use without the coordinator. A challenge id is claimed once room-wide in the coordinator's counters;
 * when the coordinator cannot be reached, refusing every answer would lock honest users out for as long as it
 * is down (they would be held and asked again every 120 s). Instead each worker remembers, for a challenge's
 * whole lifetime, the ids it has accepted, in one bounded {@link SeenSet} per minute of issue: during an outage
 * an answer is refused as a replay on the worker that saw it, but a copy sent to another worker is accepted
 * there once (replay refusal is per worker during an outage). Ids the coordinator accepted are remembered here
 * too, so a replay on the same worker after the coordinator goes down is still refused.
 */
import { minuteOf } from '../clock.ts'
import { SeenSet } from '../coordination/seen-set.ts'

/**
 * Minutes of issue kept before the current one: a challenge is answered before it expires, at most 120 s after
 * issue (signed-challenge.ts), so in the minute of issue or the two after; a skewed clock may issue 30 s ahead
 * (the next minute). Four sets at most, each exact up to 200,000 ids then a 4 MB filter (seen-set.ts): ~100 MB
 * only at 800,000 accepted answers in four minutes on one worker, each one a solved challenge.
 */
const KEPT_MINUTES = 2

export class LocalClaims {
  #byMinute = new Map<number, SeenSet>()

  /** True the first time `id` (issued at `issuedAt`) is claimed on this worker; false for a replay. */
  claim(id: string, issuedAt: number, now: number): boolean {
    const minute = minuteOf(issuedAt)
    const current = minuteOf(now)
    for (const kept of this.#byMinute.keys()) if (kept < current - KEPT_MINUTES) this.#byMinute.delete(kept)
    // Older than any live challenge (or further ahead than skew allows): verifyAnswer refuses these already.
    if (minute < current - KEPT_MINUTES || minute > current + 1) return false
    let seen = this.#byMinute.get(minute)
    if (!seen) this.#byMinute.set(minute, (seen = new SeenSet()))
    // Each set is asked about one minute only, so it never forgets within it: exact, then the Bloom filter.
    return seen.first(id, minute)
  }
}
