/**
 * @module
 * Challenge counters for `/metrics`: issued, solved, failed (by reason), replayed, requests held in the
 * infinite queue, and the time from issue to a verified answer as a histogram (seconds).
 */
import type { MetricFamily } from '../admin/prometheus.ts'
import type { ChallengeFailure } from './provider.ts'

/** Upper bounds, in seconds, of the time-to-solve histogram. */
export const SOLVE_BUCKETS = [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120] as const

export class ChallengeMetrics {
  issued = 0
  solved = 0
  /** Refused answers by reason (a replay is counted here as `replayed` too). */
  readonly failed: Partial<Record<ChallengeFailure, number>> = {}
  /** Requests answered with the challenge page and not counted in the queue (the infinite queue). */
  held = 0
  /** Requests let on (admitted or queued) without a verified answer because `onFail` is `log`. */
  logged = 0
  /** Cumulative counts per bucket of {@link SOLVE_BUCKETS}, then the sum and count. */
  readonly solveBuckets: number[] = SOLVE_BUCKETS.map(() => 0)
  solveSeconds = 0
  solveCount = 0

  fail(reason: ChallengeFailure): void {
    this.failed[reason] = (this.failed[reason] ?? 0) + 1
  }

  get replayed(): number {
    return this.failed.replayed ?? 0
  }

  observeSolve(seconds: number): void {
    const value = Math.max(0, seconds)
    SOLVE_BUCKETS.forEach((bound, i) => {
      if (value <= bound) this.solveBuckets[i]!++
    })
    this.solveSeconds += value
    this.solveCount++
  }
}

/** The challenge families, labelled with the room. */
export function challengeMetricFamilies(m: ChallengeMetrics, roomLabel: Record<string, string>, prefix: string): MetricFamily[] {
  const one = (value: number) => [{ labels: roomLabel, value }]
  const failures = Object.entries(m.failed).filter(([reason]) => reason !== 'replayed')
  return [
    { name: `${prefix}_challenges_issued_total`, help: 'Challenges put on queue pages or in JSON by this worker.', type: 'counter', samples: one(m.issued) },
    { name: `${prefix}_challenges_solved_total`, help: 'Challenge answers verified and sealed into a ticket.', type: 'counter', samples: one(m.solved) },
    {
      name: `${prefix}_challenges_failed_total`,
      help: 'Challenge answers refused (not counting replays), by reason.',
      type: 'counter',
      samples: failures.length === 0 ? one(0) : failures.map(([reason, value]) => ({ labels: { ...roomLabel, reason }, value: value ?? 0 })),
    },
    { name: `${prefix}_challenges_replayed_total`, help: 'Answers to a challenge already answered (refused).', type: 'counter', samples: one(m.replayed) },
    { name: `${prefix}_challenges_held_total`, help: 'Requests kept in the infinite queue: no verified answer, not counted as waiting.', type: 'counter', samples: one(m.held) },
    { name: `${prefix}_challenges_logged_total`, help: "Requests let on (admitted or queued) without a verified answer by onFail 'log'.", type: 'counter', samples: one(m.logged) },
    {
      name: `${prefix}_challenge_solve_seconds`,
      help: 'Seconds from issuing a challenge to its verified answer.',
      type: 'histogram',
      samples: [
        ...SOLVE_BUCKETS.map((bound, i) => ({ suffix: '_bucket' as const, labels: { ...roomLabel, le: String(bound) }, value: m.solveBuckets[i]! })),
        { suffix: '_bucket' as const, labels: { ...roomLabel, le: '+Inf' }, value: m.solveCount },
        { suffix: '_sum' as const, labels: roomLabel, value: m.solveSeconds },
        { suffix: '_count' as const, labels: roomLabel, value: m.solveCount },
      ],
    },
  ]
}
