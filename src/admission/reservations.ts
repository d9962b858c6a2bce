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
import type { WaitingAt } from './snapshot.ts'

export interface Ahead {
  /** Eligible users of the older buckets waiting at `location` (fractional for a partly eligible bucket). */
  at: (location: string) => number
  /** Eligible older users their location's untaken allocation cannot take: they need the Anywhere pool. */
  spill: number
}

export interface ReservationInput {
  buckets: readonly EligibleBucket[]
  waitingAt: WaitingAt
  allocation: Allocation
  /** Slots each location's counter granted this minute, as far as the snapshot knows. */
  takenAt: (location: string) => number | undefined
}

/** Untaken allocation of `location`'s own counter. */
export const roomAt = (input: ReservationInput, location: string): number =>
  Math.max(0, (input.allocation.locations[location] ?? 0) - (input.takenAt(location) ?? 0))

/**
 * What the buckets before each index hold, built up bucket by bucket as decisions ask (a plan's buckets do not
 * change). Running sums per location in arrays, not a map copied per bucket: at 300 locations and a dozen
 * queued buckets the copies were most of a plan's cost (issue 15). Sums are added in the same order as ever.
 */
export interface AheadCache {
  prefixes: Ahead[]
  /** Locations in the order the buckets first name them, their running sums and their untaken allocations. */
  names: string[]
  slot: Map<string, number>
  older: number[]
  room: number[]
}

export const aheadCache = (): AheadCache => ({ prefixes: [], names: [], slot: new Map(), older: [], room: [] })

/** What the buckets before `index` hold, computed once per prefix. */
export function reservationsBefore(input: ReservationInput, cache: AheadCache, index: number): Ahead {
  const { prefixes } = cache
  if (prefixes.length === 0) prefixes.push(aheadOf(input, 0, 0))
  while (prefixes.length <= index) {
    const bucket = input.buckets[prefixes.length - 1]!
    addBucket(input, cache, bucket)
    let spill = 0
    for (let k = 0; k < cache.names.length; k++) spill += Math.max(0, cache.older[k]! - cache.room[k]!)
    prefixes.push(aheadOf(input, prefixes.length, spill))
  }
  return prefixes[index]!
}

function addBucket(input: ReservationInput, cache: AheadCache, bucket: EligibleBucket): void {
  // Eligibility first: a bucket's table is made when first asked for (built-snapshot.ts), so only the buckets
  // the minute's slots reach are ever made.
  if (bucket.eligibleSlots <= 0 || bucket.waiting <= 0) return
  const where = input.waitingAt.get(bucket.bucketId)
  if (!where) return
  const part = bucket.eligibleSlots / bucket.waiting
  for (const [name, waiting] of where) {
    let k = cache.slot.get(name)
    if (k === undefined) {
      k = cache.names.push(name) - 1
      cache.slot.set(name, k)
      cache.older.push(0)
      cache.room.push(roomAt(input, name))
    }
    cache.older[k] = cache.older[k]! + waiting * part
  }
}

/** The prefix of `count` buckets: a location's share summed over them, in bucket order, when asked. */
function aheadOf(input: ReservationInput, count: number, spill: number): Ahead {
  return {
    spill,
    at: (location) => {
      let older = 0
      for (let i = 0; i < count; i++) {
        const bucket = input.buckets[i]!
        if (bucket.eligibleSlots <= 0 || bucket.waiting <= 0) continue
        const waiting = input.waitingAt.get(bucket.bucketId)?.get(location)
        if (waiting !== undefined) older += waiting * (bucket.eligibleSlots / bucket.waiting)
      }
      return older
    },
  }
}
