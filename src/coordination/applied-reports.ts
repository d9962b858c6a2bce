/**
 * @module
 * The report ids a location aggregator has applied, so a retried report adds nothing twice: each remembered for
 * `memoryMs`, and at most `limit` of them (the oldest forgotten first).
 *
 * The oldest are found through a queue of ids in the order they were first remembered, not by iterating the
 * Map: V8's ordered hash tables keep a deleted entry as a hole until the next rehash, and an iterator started at
 * the front steps over every hole, so evicting one oldest entry per report by iteration cost O(entries deleted
 * since the last rehash) — ~250 µs a report once 50,000 were remembered, which every turn of a flood paid on the
 * memory coordinator (issue 16). Which ids are remembered is exactly what that iteration kept.
 */

/** Queue slots already evicted before the queue is copied down (amortised O(1) per id). */
const COMPACT_AFTER = 4096

export class AppliedReports {
  readonly #memoryMs: number
  readonly #limit: number
  /** Id → when it was (last) remembered. */
  #at = new Map<string, number>()
  /** Ids in the order they were first remembered; `#head` is the oldest still held. */
  #order: string[] = []
  #head = 0

  constructor(memoryMs: number, limit: number) {
    this.#memoryMs = memoryMs
    this.#limit = limit
  }

  get size(): number {
    return this.#at.size
  }

  has(id: string): boolean {
    return this.#at.has(id)
  }

  /**
   * Remembers `id` as applied at `now` (an id held already keeps its place in the order, with the new time, as a
   * Map's `set` does), then forgets from the oldest while the oldest is older than `memoryMs` or more than `limit`
   * are held.
   */
  remember(id: string, now: number): void {
    if (!this.#at.has(id)) this.#order.push(id)
    this.#at.set(id, now)
    if (this.#at.size <= this.#limit) return
    while (this.#head < this.#order.length) {
      const oldest = this.#order[this.#head]!
      if (this.#at.get(oldest)! > now - this.#memoryMs && this.#at.size <= this.#limit) break
      this.#at.delete(oldest)
      this.#head++
    }
    if (this.#head >= COMPACT_AFTER && this.#head * 2 >= this.#order.length) {
      this.#order = this.#order.slice(this.#head)
      this.#head = 0
    }
  }
}
