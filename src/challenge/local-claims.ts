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
 * Minutes of issue kept: a challenge lives at most 120 s (signed-challenge.ts) and may be issued 30 s in the
 * future by a skewed clock, so an answer can arrive up to 3 minutes after the minute it was issued in.
 */
const KEPT_MINUTES = 4

export class LocalClaims {
  #byMinute = new Map<number, SeenSet>()

  /** True the first time `id` (issued at `issuedAt`) is claimed on this worker; false for a replay. */
  claim(id: string, issuedAt: number, now: number): boolean {
    const minute = minuteOf(issuedAt)
    const current = minuteOf(now)
    for (const kept of this.#byMinute.keys()) if (kept < current - KEPT_MINUTES) this.#byMinute.delete(kept)
    // Older than any challenge can live (or absurdly far ahead): the signature check refuses these already.
    if (minute < current - KEPT_MINUTES || minute > current + 1) return false
    let seen = this.#byMinute.get(minute)
    if (!seen) this.#byMinute.set(minute, (seen = new SeenSet()))
    // Each set is asked about one minute only, so it never forgets within it: exact, then the Bloom filter.
    return seen.first(id, minute)
  }
}
