/**
 * @module
 * When a queued user is asked to check in again. The room's interval (jittered) spreads check-ins out, but a
 * place that frees while the users who could take it are between two check-ins stays idle for up to an
 * interval. Places free at a known moment: sessions end with a minute (a session lasts through minute
 * m + sessionDurationMinutes of its last check-in), and the slots of a minute open with it. So a user whom
 * the next minute's slots reach — everyone older in line fits in what is left of this minute and what the
 * next one opens — is asked back just after it starts, never later than the interval would have.
 */
import { waitingOlderThan, type MinutePlan } from './plan.ts'
import { availableSlots, type Limits } from './slots.ts'
import type { Snapshot } from './snapshot.ts'

const MINUTE_MS = 60_000

export interface RefreshRequest {
  plan: MinutePlan
  snapshot: Snapshot
  limits: Limits
  /** The user's bucket (a new user's is this minute). */
  bucketId: number
  now: number
  /** The interval the user gets otherwise (already jittered), seconds. */
  intervalSeconds: number
  /** Seconds after the minute's start the check-ins of the head of the line are spread over (≥ 1). */
  spreadSeconds: number
  /** A number in [0, 1) that places this user within the spread. */
  random: number
}

/** Seconds until a FIFO-queued user's next check-in: the start of the next minute when its slots reach them. */
export function fifoRefreshSeconds(r: RefreshRequest): number {
  const { plan, snapshot } = r
  // Ahead of this user: the older buckets, less what this minute's remaining slots still take of them.
  const ahead = Math.max(0, waitingOlderThan(plan, r.bucketId) - plan.remaining)
  const nextSlots = availableSlots(r.limits, snapshot.activeUsers - snapshot.endingThisMinute)
  if (ahead >= nextSlots) return r.intervalSeconds
  // One second past the boundary at least: the decision must fall in the next minute on a clock a little behind.
  const untilNext = Math.ceil(((plan.minute + 1) * MINUTE_MS - r.now) / 1000)
  const seconds = untilNext + 1 + Math.floor(r.random * r.spreadSeconds)
  return Math.min(r.intervalSeconds, seconds)
}
