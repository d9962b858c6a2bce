/**
 * @module
 * When a queued ticket its plan gives no place is looked up at the counters (both limits 0: SlotRequest): only where
 * it may hold a slot granted elsewhere this minute. A copy or retry of an admitted ticket is then admitted as it
 * (sametick18), while the refreshes of a queued user — a flood's, against a full room — cost no coordinator call
 * (issue 16). A copy at the worker that admitted it never asks (coordination/grant-register.ts).
 */
import { firstNotOlder, type MinutePlan } from '../../admission/plan.ts'
import type { Snapshot } from '../../admission/snapshot.ts'
import type { WorkerLink } from '../../coordination/worker-link.ts'

/** Whether the plan shows users waiting in bucket `bucketId`. */
export function shownWaiting(plan: MinutePlan, bucketId: number): boolean {
  const bucket = plan.buckets[firstNotOlder(plan.buckets, bucketId)]
  return bucket !== undefined && bucket.bucketId === bucketId && bucket.waiting > 0
}

/**
 * Signs that a queued ticket its plan gives no place may hold one granted elsewhere this minute. The view shows a slot
 * granted this minute (a lookup finds only those; the counters count each grant in the step that makes it, so a view
 * that shows nothing granted shows the minute as it is, or a sync behind — where its plan still gives the places it
 * shows free, and asks). And either the ticket's bucket is no longer shown waiting (the grant took its count off), or
 * this worker has not yet seen the ticket this minute: the granting worker takes the count off with its next report,
 * after the grant itself is counted (a cold worker saw the grant and not that: sametick19). So a queued user costs a
 * call at most once a minute per worker it reaches while its bucket is shown waiting — none on later refreshes there,
 * a replayed cookie no more — and none in a minute nobody was admitted.
 */
export function mayHoldSlot(link: WorkerLink, snapshot: Snapshot, plan: MinutePlan, ticketId: string, bucketId: number, minute: number): boolean {
  return snapshot.admittedThisMinute > 0 && (!shownWaiting(plan, bucketId) || !link.seenCheckIn(ticketId, minute))
}
