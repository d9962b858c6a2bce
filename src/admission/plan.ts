/**
 * @module
 * The minute's plan: how many slots there are, how they split across locations and the Anywhere pool,
 * which queued buckets they reserve (FIFO), and from that the counter limits for one user. Pure and
 * computed once per snapshot and minute, so a decision costs a lookup and a counter call.
 */
import { allocateSlots, availableSlots, eligibleSlots, type Allocation, type EligibleBucket, type Limits } from './slots.ts'
import { aheadCache, reservationsBefore, roomAt, type AheadCache, type ReservationInput } from './reservations.ts'
import type { Snapshot } from './snapshot.ts'

export type QueueingMethod = 'fifo' | 'random' | 'passthrough' | 'reject'

export interface MinutePlan {
  minute: number
  /** Slots for the whole minute (counted once: this minute's admissions are not counted again as active). */
  slots: number
  /**
   * The most slots any view of this minute may give: `slots` grows as sessions end within the minute
   * (coordination/positions.ts), up to the sessions this view shows ending before the next minute.
   */
  slotsBound: number
  /** Slots not yet used this minute, as far as the snapshot knows. */
  remaining: number
  /** The counters' limits: location allocations and the Anywhere pool (seed 000). */
  allocation: Allocation
  /** Queued buckets, oldest first, with the slots this minute reserves for them (seed 001). */
  buckets: EligibleBucket[]
  /** Waiting users in buckets older than `buckets[i]`, for each i. */
  waitingBefore: number[]
  /** Reserved slots in total (what FIFO keeps from new users). */
  reserved: number
  traffic: Record<string, number>
  totalActiveUsers: number
  /** Where the reserved buckets' users wait, against what each counter has left (reservations.ts). */
  reservationInput: ReservationInput
  /** Slots the Anywhere counter granted this minute, as far as the snapshot knows. */
  takenAnywhere: number
  /** Reservations per bucket prefix, filled as decisions ask for them. */
  aheadCache: AheadCache
}

/**
 * The plan of `snapshot`'s minute. `previous`, this worker's plan of the minute before, bounds what the
 * locations this view holds from before the minute's start may have granted since ({@link unseenLastMinute}).
 */
export function planMinute(snapshot: Snapshot, limits: Limits, previous?: MinutePlan): MinutePlan {
  const unseen = previous?.minute === snapshot.minute - 1 ? unseenLastMinute(snapshot, previous) : 0
  const slots = availableSlots(limits, snapshot.activeUsers + unseen, snapshot.admittedThisMinute)
  const remaining = Math.max(0, slots - snapshot.admittedThisMinute)
  const buckets = eligibleSlots(snapshot.buckets, remaining)
  const waitingBefore: number[] = []
  let waiting = 0
  let reserved = 0
  for (const bucket of buckets) {
    waitingBefore.push(waiting)
    waiting += bucket.waiting
    reserved += bucket.eligibleSlots
  }
  const allocation = withoutOveruse(allocationOf(slots, snapshot.traffic, limits.totalActiveUsers), snapshot, slots)
  return {
    minute: snapshot.minute,
    slots,
    slotsBound: Math.min(limits.newUsersPerMinute, slots + snapshot.endingThisMinute),
    remaining,
    allocation,
    buckets,
    waitingBefore,
    reserved,
    traffic: snapshot.traffic,
    totalActiveUsers: limits.totalActiveUsers,
    reservationInput: { buckets, waitingAt: snapshot.waitingAt, allocation, takenAt: (location) => snapshot.takenThisAt(location), takenAnywhere: snapshot.takenThisMinute.anywhere },
    takenAnywhere: snapshot.takenThisMinute.anywhere,
    aheadCache: aheadCache(),
  }
}

/**
 * The plan of the minute before `minute` that bounds its unseen grants: this worker's last (`last`), or — it made
 * none then (a location with a user every few minutes) — the one its state shows at that minute's end (`before`).
 * Without it such a worker counted none of the last seconds' grants elsewhere, which now go on all minute long.
 */
export function previousPlan(last: MinutePlan | undefined, minute: number, limits: Limits, before: () => Snapshot | undefined): MinutePlan | undefined {
  if (last?.minute === minute - 1) return last
  const snapshot = before()
  return snapshot && planMinute(snapshot, limits)
}

/**
 * Slots the previous minute may have granted that this view does not show: of each location whose state is
 * from before this minute, the part of its allocation it was not seen to take, and — while any location is
 * behind — the Anywhere pool's untaken part. Those users are active, so they are counted as such until the
 * view catches up: otherwise every location would hand their places out again at the minute's start (each
 * counter's `previousReported` corrects only for its own grants, and a location sees its own fresh).
 */
function unseenLastMinute(snapshot: Snapshot, previous: MinutePlan): number {
  // Without a queue the places are not contested: counting unused allocations as taken would only queue early.
  if (snapshot.buckets.length === 0) return 0
  // Whole numbers: the same sum in any order (the snapshot sums what it shares with others once).
  // Bounded by the allocation the minute's slots could grow to, not by this worker's last plan of it: a worker
  // with a later view may have granted from more slots (allocations never shrink as slots grow: apportion.ts).
  const allocation = allocationOf(previous.slotsBound, previous.traffic, previous.totalActiveUsers)
  const { behind, untaken } = snapshot.untakenBehind(allocation.locations)
  if (behind === 0) return 0
  // Unseen Anywhere grants are re-handed only by location counters: the Anywhere counter takes its own off its
  // limit (`anywherePreviousReported`). A minute whose reference gives the locations nothing (a pooled minute:
  // held-references.ts) has none granting, so counting them would only hold every view's slots back at its start.
  if (pooled(snapshot.traffic)) return untaken
  return Math.max(0, allocation.anywhere - snapshot.takenLastMinute.anywhere) + untaken
}

/** Whether `traffic` gives no location a share: every slot of the minute is the Anywhere pool's. */
function pooled(traffic: Record<string, number>): boolean {
  for (const name in traffic) if (traffic[name]! > 0) return false
  return true
}

/**
 * A location that already took more of this minute than its allocation now gives it (an earlier snapshot
 * allowed more) leaves that much less to the Anywhere pool, so the parts still add up to the minute's slots.
 */
function withoutOveruse(allocation: Allocation, snapshot: Snapshot, slots: number): Allocation {
  // What the locations reserve (slots − anywhere), plus what each took beyond it: a pass over the locations
  // that took slots this minute, not over every location (whole numbers: the same sum in any order).
  const reserved = slots - allocation.anywhere + snapshot.takenBeyond(allocation.locations)
  return { locations: allocation.locations, anywhere: Math.max(0, slots - reserved) }
}

/** Allocations per traffic table (a snapshot's, kept while no location's reference traffic changes). */
const allocations = new WeakMap<Record<string, number>, Map<string, Allocation>>()
/** Distinct slot counts remembered per traffic table (a minute rarely sees more; past it, starts over). */
const ALLOCATIONS_KEPT = 256

/** {@link allocateSlots}, computed once per traffic table, slots and limit (it reads every location). */
function allocationOf(slots: number, traffic: Record<string, number>, totalActiveUsers: number): Allocation {
  let known = allocations.get(traffic)
  if (!known) allocations.set(traffic, (known = new Map()))
  const key = `${slots}|${totalActiveUsers}`
  let allocation = known.get(key)
  if (!allocation) {
    if (known.size >= ALLOCATIONS_KEPT) known.clear()
    known.set(key, (allocation = allocateSlots(slots, traffic, totalActiveUsers)))
  }
  return allocation
}

/** The limits one user's counter calls use; `undefined` when the user's bucket is not yet eligible. */
export interface CounterLimits {
  localLimit: number
  anywhereLimit: number
}

/** Index of the first bucket not older than `bucketId` (buckets are sorted oldest first). */
export function firstNotOlder(buckets: readonly EligibleBucket[], bucketId: number): number {
  let low = 0
  let high = buckets.length
  while (low < high) {
    const middle = (low + high) >> 1
    if (buckets[middle]!.bucketId < bucketId) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * Reserved slots held back from `location`'s counter and from Anywhere for the buckets before `index`: what
 * their users take, oldest first, of their own location's untaken allocation and of the Anywhere pool's
 * (reservations.ts). Never more than a counter has left, so the limits stay at or above what it granted.
 */
function heldBack(plan: MinutePlan, location: string, index: number): { local: number; anywhere: number } {
  if (index === 0) return { local: 0, anywhere: 0 }
  const ahead = reservationsBefore(plan.reservationInput, plan.aheadCache, index)
  const anywhereRoom = Math.max(0, plan.allocation.anywhere - plan.takenAnywhere)
  return {
    local: Math.min(roomAt(plan.reservationInput, location), ahead.at(location)),
    anywhere: Math.min(anywhereRoom, ahead.spill),
  }
}

/**
 * FIFO limits. A user may only use what the older queued buckets leave of their location's counter and of the
 * Anywhere pool: a new user's limits leave room for every queued bucket, a queued user's for the buckets
 * older than its own, so no later bucket is admitted ahead of an earlier one that a counter could admit. A
 * queued user for whom the snapshot shows nothing left is not eligible (`undefined`: no counter call).
 */
export function fifoLimits(plan: MinutePlan, location: string, bucketId: number | undefined): CounterLimits | undefined {
  const index = bucketId === undefined ? plan.buckets.length : firstNotOlder(plan.buckets, bucketId)
  const held = heldBack(plan, location, index)
  const localLimit = Math.max(0, (plan.allocation.locations[location] ?? 0) - held.local)
  const anywhereLimit = Math.max(0, plan.allocation.anywhere - held.anywhere)
  if (bucketId !== undefined && localLimit <= (plan.reservationInput.takenAt(location) ?? 0) && anywhereLimit <= plan.takenAnywhere) return undefined
  return { localLimit, anywhereLimit }
}

const sumWaiting = (buckets: readonly EligibleBucket[]): number => buckets.reduce((sum, b) => sum + b.waiting, 0)

/** Waiting users in buckets before index `index` of the plan's buckets. */
const waitingBefore = (plan: MinutePlan, index: number): number =>
  index < plan.buckets.length ? plan.waitingBefore[index]! : sumWaiting(plan.buckets)

/** Waiting users in buckets older than `bucketId`: the users FIFO puts before a user of that bucket. */
export const waitingOlderThan = (plan: MinutePlan, bucketId: number): number => waitingBefore(plan, firstNotOlder(plan.buckets, bucketId))

/**
 * Random queueing (seed 002): every slot is open to queued and new users alike. While users are queued,
 * the minute's slots are released in steps at pseudo-random moments (the same for every worker of the
 * room), so no arrival or check-in time within the minute is favoured.
 */
export function randomLimits(plan: MinutePlan, location: string, releasedFraction: number): CounterLimits {
  const fraction = plan.buckets.length === 0 ? 1 : releasedFraction
  return {
    localLimit: Math.floor((plan.allocation.locations[location] ?? 0) * fraction),
    anywhereLimit: Math.floor(plan.allocation.anywhere * fraction),
  }
}

/** Number of release moments per minute in random queueing. */
export const RANDOM_RELEASES_PER_MINUTE = 6

/** Share of the minute's slots released by `msIntoMinute`, from release moments seeded by room and minute. */
export function releasedFraction(roomId: string, minute: number, msIntoMinute: number): number {
  const next = seededRandom(`${roomId}\n${minute}`)
  let released = 0
  for (let i = 0; i < RANDOM_RELEASES_PER_MINUTE; i++) {
    // Moments spread over the whole minute, one in each sixth, at a random point within it.
    const moment = ((i + next()) * 60_000) / RANDOM_RELEASES_PER_MINUTE
    if (moment <= msIntoMinute) released++
  }
  return released / RANDOM_RELEASES_PER_MINUTE
}

/** A small deterministic PRNG (FNV-1a seed, mulberry32 steps): same sequence for the same text everywhere. */
export function seededRandom(text: string): () => number {
  let state = 0x811c9dc5
  for (let i = 0; i < text.length; i++) state = Math.imul(state ^ text.charCodeAt(i), 0x01000193)
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
