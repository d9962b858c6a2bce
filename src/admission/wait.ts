/**
 * @module
 * Wait estimates, in whole minutes.
 */
import type { EligibleBucket } from './slots.ts'

/**
 * Queued users ahead of (and including) `bucketId` that this minute's slots do not already cover.
 * Seed 001: buckets 15:54 (2, all eligible), 15:55 (50, all eligible), 15:56 (60, none) → a 15:56 user
 * has 60 ahead.
 */
export function usersAhead(buckets: readonly EligibleBucket[], bucketId: number): number {
  let ahead = 0
  for (const bucket of buckets) {
    if (bucket.bucketId > bucketId) break
    ahead += bucket.waiting - bucket.eligibleSlots
  }
  return ahead
}

/** FIFO: users ahead ÷ admissions per minute, rounded up (seed 001: 60 ahead at 30/min → 2 minutes). */
export function estimateFifoWait(ahead: number, admissionsPerMinute: number): number | undefined {
  if (!(admissionsPerMinute > 0)) return undefined
  return Math.max(1, Math.ceil(ahead / admissionsPerMinute))
}

/**
 * Random queueing (seed 002): P = letInPerMinute / currentlyWaiting is the chance of getting in during the
 * next minute; the minutes n after which a user got in with probability p solve 1 − (1 − P)^n = p, so
 * n = log(1 − p) / log(1 − P). Returns undefined when nobody is being let in.
 */
export function estimateRandomWait(
  letInPerMinute: number,
  currentlyWaiting: number,
  p: number,
): number | undefined {
  if (!(letInPerMinute > 0)) return undefined
  if (letInPerMinute >= currentlyWaiting) return 1
  const perMinute = letInPerMinute / currentlyWaiting
  return Math.max(1, Math.ceil(Math.log(1 - p) / Math.log(1 - perMinute)))
}
