/**
 * @module
 * Why a request got its outcome: the reasons, and the outcome each stands for.
 */
/** Why a request got its outcome (each reason implies one outcome, see `OUTCOME_OF` below). */
export type DecisionReason =
  | 'session' // admitted: a live admitted ticket
  | 'slot' // admitted now through a counter
  | 'passthrough' // admitted and counted: queueing method passthrough
  | 'fail-open' // admitted: the coordinator failed and failMode is open
  | 'suspended' // bypassed: the room is suspended, no ticket
  | 'bypass' // bypassed: not covered (path, host, method, rule or verified crawler)
  | 'no-slot' // queued: no slot this minute
  | 'not-eligible' // queued: older buckets come first (FIFO)
  | 'too-early' // queued: check-in before the refresh interval; nothing decided
  | 'queue-all' // queued: the room queues everyone
  | 'prequeue' // queued: an event has not started yet
  | 'fail-closed' // queued: the coordinator failed and failMode is closed
  | 'recovering' // queued: the coordinator lost its state; sessions from before may still be active
  | 'reject' // rejected: queueing method reject
  | 'queue-full' // queued without a place: the queue holds maxQueuedUsers (page with queueIsFull, no ticket)
  | 'challenge' // queued: no answer to the room's challenge; held, counted nowhere (the infinite queue)

/** The outcome each reason stands for. */
export const OUTCOME_OF: Record<DecisionReason, 'admitted' | 'queued' | 'rejected' | 'bypassed'> = {
  session: 'admitted',
  slot: 'admitted',
  passthrough: 'admitted',
  'fail-open': 'admitted',
  suspended: 'bypassed',
  bypass: 'bypassed',
  'no-slot': 'queued',
  'not-eligible': 'queued',
  'too-early': 'queued',
  'queue-all': 'queued',
  prequeue: 'queued',
  'fail-closed': 'queued',
  recovering: 'queued',
  reject: 'rejected',
  'queue-full': 'queued',
  challenge: 'queued',
}
