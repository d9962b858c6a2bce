/**
 * @module
 * A minute's reference traffic table, fixed once for the whole room (split14).
 *
 * Each minute's slots are split between the location counters and the Anywhere pool by the locations' shares of
 * the traffic of minute `minute − TRAFFIC_REFERENCE_AGE` (seed 000). Each counter's conditional increment bounds
 * only itself, so the split must be the same in every view: a worker that splits from its own unreported deltas
 * and a cold one that splits from the stored table would hand out, between them, more than the minute's slots
 * (12 in a room of 7). So the table is proposed by the workers and fixed by the backend: the first sync that
 * proposes one for a minute stores it (first writer wins, room-wide: SETNX, INSERT OR IGNORE, a KV check, the
 * room's Durable Object), every later proposal for that minute is answered the stored one, and a worker grants
 * new slots of a minute only from the reference the backend answered for it. The adapters store and compare;
 * the core builds the tables and splits from them.
 */

/** A minute's reference traffic table, as fixed by the backend. */
export interface TrafficReference {
  /** The minute whose slots this table splits (not the traffic's minute, which is `TRAFFIC_REFERENCE_AGE` earlier). */
  minute: number
  /** Location → users seen in the traffic minute; locations with none are left out. */
  table: Record<string, number>
  /** Unique per proposal (the proposing report's id and the minute): two references with one id are one table. */
  id: string
}

/**
 * Adapters keep a minute's reference at least this many minutes past its minute (a late or retried sync still
 * finds it), and may drop it after: references never grow with time.
 */
export const REFERENCE_KEEP_MINUTES = 3

/**
 * A room's references in memory, first writer wins: the in-process form of the rule every adapter applies
 * atomically. `fix` stores each proposal whose minute has none yet and answers the stored one for every minute
 * proposed.
 */
export class ReferenceBook {
  readonly #byMinute = new Map<number, TrafficReference>()

  fix(proposals: readonly TrafficReference[] | undefined, nowMinute: number): TrafficReference[] | undefined {
    if (!proposals || proposals.length === 0) return undefined
    for (const [minute] of this.#byMinute) if (minute < nowMinute - REFERENCE_KEEP_MINUTES) this.#byMinute.delete(minute)
    return proposals.map((proposal) => {
      const held = this.#byMinute.get(proposal.minute)
      if (held) return held
      this.#byMinute.set(proposal.minute, proposal)
      return proposal
    })
  }

  /** Whether `minute`'s reference is fixed (it stays until `REFERENCE_KEEP_MINUTES` past its minute). */
  has(minute: number): boolean {
    return this.#byMinute.has(minute)
  }

  /** The minutes held (for tests: storage stays bounded). */
  minutes(): number[] {
    return [...this.#byMinute.keys()]
  }
}
