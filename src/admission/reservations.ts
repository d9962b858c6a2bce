/**
 * @module
 * Where FIFO's reserved slots will be taken. The counters' limits split the minute's slots by a completed
 * minute's traffic (so every worker computes the same split), but the queued users a reservation is for wait
 * where they wait: at a location whose share is small (busy two minutes ago elsewhere), older users find their
 * own counter used up while newer users elsewhere enter on theirs. So what a newer user must leave free is
 * worked out per location from where the older buckets' users are: their own location's untaken allocation
 * first, the Anywhere pool for what does not fit. Holding back only lowers limits below the allocation, so it
 * can never grant more than the minute's slots.
 */
import type { Allocation, EligibleBucket } from './slots.ts'
import type { WaitingAt } from './snapshot.ts'

export interface Ahead {
  /** What the older buckets' users waiting at `location` take of its own counter's untaken allocation. */
  at: (location: string) => number
  /** What the older buckets' users their own location cannot fit take of the Anywhere pool's untaken part. */
  spill: number
}

export interface ReservationInput {
  /** Every queued bucket, oldest first. */
  buckets: readonly EligibleBucket[]
  waitingAt: WaitingAt
  allocation: Allocation
  /** Slots each location's counter granted this minute, as far as the snapshot knows. */
  takenAt: (location: string) => number | undefined
  /** Slots the Anywhere counter granted this minute, as far as the snapshot knows. */
  takenAnywhere: number
}

/** Untaken allocation of `location`'s own counter. */
export const roomAt = (input: ReservationInput, location: string): number =>
  Math.max(0, (input.allocation.locations[location] ?? 0) - (input.takenAt(location) ?? 0))

/**
 * What the buckets before each index take, filled bucket by bucket, oldest first, as decisions ask (a plan's
 * buckets do not change): each bucket's users at a location take that location's untaken allocation first,
 * then the Anywhere pool's, as far as they go. Location by location, not from the minute's total: users
 * of older buckets waiting where no counter has room cannot use another location's slots, so they must not
 * keep that location's own queued users behind its newcomers (issue 15: a crowd at one location had new users
 * elsewhere admitted ahead of older users queued beside them).
 */
export interface AheadCache {
  prefixes: Ahead[]
  /** Per bucket filled so far, what it took of each location's own counter (positive takes only). */
  takes: Map<string, number>[]
  /** Untaken allocation per location left after the buckets filled so far (set when a bucket first names it). */
  left: Map<string, number>
  /** The Anywhere pool's untaken part left; undefined until the first bucket is filled. */
  anywhereLeft: number | undefined
  /**
   * The allocation's locations, and how many of them, in order, have none of it left (what is left only shrinks,
   * so {@link allLocalRoomTaken} resumes there instead of passing over all 300 of planet's for every bucket).
   */
  allocated?: string[]
  spent: number
}

export const aheadCache = (): AheadCache => ({ prefixes: [], takes: [], left: new Map(), anywhereLeft: undefined, spent: 0 })

/** What the buckets before `index` take, computed once per prefix. */
export function reservationsBefore(input: ReservationInput, cache: AheadCache, index: number): Ahead {
  const { prefixes } = cache
  if (prefixes.length === 0) prefixes.push(aheadOf(cache, 0, 0))
  while (prefixes.length <= index) {
    const spill = prefixes[prefixes.length - 1]!.spill + fill(input, cache, input.buckets[prefixes.length - 1]!)
    prefixes.push(aheadOf(cache, prefixes.length, spill))
  }
  return prefixes[index]!
}

/** Fills one bucket into what is left; returns what it took of the Anywhere pool. */
function fill(input: ReservationInput, cache: AheadCache, bucket: EligibleBucket): number {
  const takes = new Map<string, number>()
  cache.takes.push(takes)
  cache.anywhereLeft ??= Math.max(0, input.allocation.anywhere - input.takenAnywhere)
  // A bucket's table is made when first asked for (built-snapshot.ts): skip it once nothing is left to take.
  if (bucket.waiting <= 0 || (cache.anywhereLeft === 0 && allLocalRoomTaken(input, cache))) return 0
  const where = input.waitingAt.get(bucket.bucketId)
  if (!where) return 0
  let fromAnywhere = 0
  for (const [name, waiting] of where) {
    const room = cache.left.get(name) ?? roomAt(input, name)
    const local = Math.min(waiting, room)
    cache.left.set(name, room - local)
    if (local > 0) takes.set(name, local)
    const spill = Math.min(waiting - local, cache.anywhereLeft - fromAnywhere)
    fromAnywhere += spill
  }
  cache.anywhereLeft -= fromAnywhere
  return fromAnywhere
}

/** Whether every location that was given an allocation has none of it left (one pass over the allocation per plan). */
function allLocalRoomTaken(input: ReservationInput, cache: AheadCache): boolean {
  const names = (cache.allocated ??= Object.keys(input.allocation.locations))
  while (cache.spent < names.length) {
    const name = names[cache.spent]!
    if ((cache.left.get(name) ?? roomAt(input, name)) > 0) return false
    cache.spent++
  }
  return true
}

/** The prefix of `count` buckets: a location's takes summed over them, in bucket order, when asked. */
function aheadOf(cache: AheadCache, count: number, spill: number): Ahead {
  return {
    spill,
    at: (location) => {
      let older = 0
      for (let i = 0; i < count; i++) older += cache.takes[i]!.get(location) ?? 0
      return older
    },
  }
}
