/**
 * @module
 * Which ticket ids a worker has seen check in during the current minute, so fifty clients replaying one
 * cookie are one user (DESIGN: deduplicate by ticket id within a minute). Memory is bounded at any rate:
 * exact up to {@link EXACT_LIMIT} ids a minute, then a fixed 4 MB Bloom filter takes over. A replay is never
 * counted twice; past the exact limit a genuine first check-in is taken for a replay with a small, known
 * probability (below 0.1% at a million distinct tickets per worker and minute), which skips one traffic count
 * (a renewal's move does not ask it: moves are idempotent at the ticket's register, coordination/moves.ts).
 */

/** Ids remembered exactly per minute (~20 MB at most, and as much for the minute before); past this the filter answers. */
export const EXACT_LIMIT = 200_000
/** 2^25 bits = 4 MB; three probes per id. */
const FILTER_BITS_LOG2 = 25
const FILTER_MASK = (1 << FILTER_BITS_LOG2) - 1
const PROBES = 3

export class SeenSet {
  #minute = Number.NaN
  #exact = new Set<string>()
  /** The minute before's exact ids, for requests that read the clock just before it turned. */
  #previous = new Set<string>()
  #filter: Uint32Array | undefined
  #filterUsed = false

  /**
   * True the first time `id` is seen in `minute`. Minutes only move forward: a later one forgets the old, and a
   * request that read the clock just before the minute turned (and arrives after) is not counted again.
   */
  first(id: string, minute: number): boolean {
    if (minute < this.#minute) return minute === this.#minute - 1 && this.#late(id)
    if (minute !== this.#minute) this.#reset(minute)
    if (this.#exact.has(id)) return false
    if (this.#exact.size < EXACT_LIMIT) {
      this.#exact.add(id)
      return true
    }
    return this.#filterFirst(id)
  }

  /**
   * Whether `id` was seen in `minute`, recording nothing. Past the exact limit the filter answers: an id never seen may
   * be taken for a seen one (the same small probability as {@link first}'s).
   */
  seen(id: string, minute: number): boolean {
    if (minute !== this.#minute) return minute === this.#minute - 1 && this.#previous.has(id)
    return this.#exact.has(id) || (this.#filterUsed && this.#probe(id, false))
  }

  #filterFirst(id: string): boolean {
    this.#filter ??= new Uint32Array(1 << (FILTER_BITS_LOG2 - 5))
    this.#filterUsed = true
    return !this.#probe(id, true)
  }

  /** Whether every probe bit of `id` is set in the filter; `add` sets them. */
  #probe(id: string, add: boolean): boolean {
    const filter = this.#filter!
    // Double hashing (Kirsch–Mitzenmacher): probe i is h1 + i·h2, from two independent FNV-1a hashes.
    let h1 = 0x811c9dc5
    let h2 = 0x01000193 ^ 0x5bd1e995
    for (let i = 0; i < id.length; i++) {
      const code = id.charCodeAt(i)
      h1 = Math.imul(h1 ^ code, 0x01000193)
      h2 = Math.imul(h2 ^ code, 0x5bd1e995)
    }
    h2 |= 1
    let seen = true
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & FILTER_MASK
      const word = bit >>> 5
      const mask = 1 << (bit & 31)
      if ((filter[word]! & mask) === 0) {
        seen = false
        if (!add) return false
        filter[word]! |= mask
      }
    }
    return seen
  }

  /** A request of the minute before, arriving after the turn: deduplicated against that minute's exact ids. */
  #late(id: string): boolean {
    if (this.#previous.has(id) || this.#previous.size >= EXACT_LIMIT) return false
    this.#previous.add(id)
    return true
  }

  #reset(minute: number): void {
    this.#previous = minute === this.#minute + 1 ? this.#exact : new Set()
    this.#minute = minute
    this.#exact = new Set()
    if (this.#filterUsed) this.#filter!.fill(0)
    this.#filterUsed = false
  }
}
