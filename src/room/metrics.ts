/**
 * @module
 * Per-worker counters, kept as plain numbers so counting costs nothing on the hot path, and rendered in
 * the Prometheus text format by the admin API.
 */
import { ChallengeMetrics } from '../challenge/metrics.ts'
import type { DecisionReason } from './reasons.ts'

export class RoomMetrics {
  /** Decisions by reason (each reason implies its outcome). */
  readonly decisions: Record<DecisionReason, number> = {
    session: 0,
    slot: 0,
    passthrough: 0,
    suspended: 0,
    'fail-open': 0,
    'no-slot': 0,
    'not-eligible': 0,
    'too-early': 0,
    'queue-all': 0,
    prequeue: 0,
    'fail-closed': 0,
    recovering: 0,
    reject: 0,
    'queue-full': 0,
    bypass: 0,
    challenge: 0,
  }
  /** Sessions ended by an origin `revoke` command. */
  revocations = 0
  /** Counter round trips taken by new-user decisions. */
  counterRoundTrips = 0
  /** Challenges issued, solved, failed and held (when the `challenge` option is on). */
  readonly challenge: ChallengeMetrics = new ChallengeMetrics()
}

export { OUTCOME_OF } from './reasons.ts'
