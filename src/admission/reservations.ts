/**
 * @module
 * Where FIFO's reserved slots will be taken. The counters' limits split the minute's slots by a completed
 * minute's traffic (so every worker computes the same split), but the queued users a reservation is for wait
 * where they wait: at a location whose share is small (busy two minutes ago elsewhere), older users find their
 * own counter used up while newer users elsewhere enter on theirs. So what a newer user must leave free is
 * worked out per location from where the older buckets' eligible users are: their own location's untaken
 * allocation first, the Anywhere pool for what does not fit. Holding back only lowers limits below the
 * allocation, so it can never grant more than the minute's slots.
 */
import type { Allocation, EligibleBucket } from './slots.ts'

export interface Ahead {
  /** Location → eligible users of the older buckets waiting there (fractional for a partly eligible bucket). */
  at: Map<string, number>
  /** Eligible older users their location's untaken allocation cannot take: they need the Anywhere pool. */
  spill: number
}

export interface ReservationInput {
  buckets: readonly EligibleBucket[]
  waitingAt: ReadonlyMap<number, ReadonlyMap<string, number>>
  allocation: Allocation
  /** Slots each location's counter granted this minute, as far as the snapshot knows. */
  takenAt: Readonly<Record<string, number>>
}

/** Untaken allocation of `location`'s own counter. */
export const roomAt = (input: ReservationInput, location: string): number =>
  Math.max(0, (input.allocation.locations[location] ?? 0) - (input.takenAt[location] ?? 0))

/** What the buckets before `index` hold, computed once per prefix (a plan's buckets do not change). */
export function reservationsBefore(input: ReservationInput, cache: Ahead[], index: number): Ahead {
  if (cache.length === 0) cache.push({ at: new Map(), spill: 0 })
  while (cache.length <= index) {
    const previous = cache[cache.length - 1]!
    const bucket = input.buckets[cache.length - 1]!
    cache.push(withBucket(input, previous, bucket))
  }
  return cache[index]!
}

function withBucket(input: ReservationInput, previous: Ahead, bucket: EligibleBucket): Ahead {
  const at = new Map(previous.at)
  const where = input.waitingAt.get(bucket.bucketId)
  if (where && bucket.eligibleSlots > 0 && bucket.waiting > 0) {
    const part = bucket.eligibleSlots / bucket.waiting
    for (const [name, waiting] of where) at.set(name, (at.get(name) ?? 0) + waiting * part)
  }
  let spill = 0
  for (const [name, older] of at) spill += Math.max(0, older - roomAt(input, name))
  return { at, spill }
}
