/**
 * @module
 * When a queued user is asked to check in again. The room's interval (jittered) spreads check-ins out, but a
 * place that frees while the users who could take it are between two check-ins stays idle for up to an
 * interval. Places free at known moments: a session's count ends a fixed span after its position
 * (coordination/positions.ts), and the slots of a minute open with it. So a user whom the places freed by then
 * reach — everyone older in line fits in what is left of this minute and what those places add — is asked back
 * just after that moment, never later than the interval would have.
 */
import { waitingOlderThan, type MinutePlan } from './plan.ts'
import { availableSlots, type Limits } from './slots.ts'
import { EXPIRY_MARGIN_MS, type Snapshot } from './snapshot.ts'
import { pastMinuteEdge } from './minute-edges.ts'

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
  /** `clockSkewToleranceMs`: no grant that close to a minute's edge (minute-edges.ts), so nobody is asked back there. */
  edgeMs?: number
  /** The user had a place now but for the minute's edge (decide.ts `Asked.atEdge`): asked back just past it. */
  atEdge?: boolean
}

/**
 * Seconds until a FIFO-queued user's next check-in: just after the moment the places that reach them free — a
 * session ending within this minute or the next (its count's end is known: coordination/positions.ts), or the
 * next minute's start, whose fresh slots open with it — and never later than the interval.
 */
export function fifoRefreshSeconds(r: RefreshRequest): number {
  const reached = r.atEdge ? r.now : reachedAt(r)
  if (reached === undefined) return r.intervalSeconds
  const at = pastMinuteEdge(reached, r.edgeMs ?? 0)
  // One second past the moment at least: a view reads ends EXPIRY_MARGIN_MS late, and the decision must fall
  // after the boundary on a clock a little behind.
  const seconds = Math.ceil((at - r.now) / 1000) + 1 + Math.floor(r.random * r.spreadSeconds)
  return Math.max(1, Math.min(r.intervalSeconds, seconds))
}

/** The first moment (ms) the slots reach the user, as far as the snapshot knows; undefined: not within the interval. */
function reachedAt(r: RefreshRequest): number | undefined {
  const { plan, snapshot, limits } = r
  // Ahead of this user: the older buckets, less what this minute's remaining slots still take of them.
  const ahead = Math.max(0, waitingOlderThan(plan, r.bucketId) - plan.remaining)
  const nextMinute = (plan.minute + 1) * MINUTE_MS
  const until = r.now + r.intervalSeconds * 1000
  // This minute's slots grow by the places that free, up to newUsersPerMinute; the next minute's start afresh.
  const growth = Math.max(0, limits.newUsersPerMinute - plan.slots)
  let freed = 0
  let boundaryChecked = false
  for (const [end, count] of snapshot.endings) {
    if (end >= nextMinute && !boundaryChecked) {
      boundaryChecked = true
      if (ahead < availableSlots(limits, snapshot.activeUsers - freed)) return nextMinute
    }
    if (end > until) return undefined
    freed += count
    const reach = end < nextMinute ? Math.min(freed, growth) : availableSlots(limits, snapshot.activeUsers - freed)
    if (ahead < reach) return Math.max(r.now, end + EXPIRY_MARGIN_MS)
  }
  if (!boundaryChecked && nextMinute <= until && ahead < availableSlots(limits, snapshot.activeUsers - freed)) return nextMinute
  return undefined
}
