/**
 * @module
 * Minute edges: the moments near a minute boundary, by a worker's own clock, where no fresh slot is granted
 * (`clockSkewToleranceMs`). Each minute's counters are keyed by the minute of the asking worker's clock, so every
 * counter's limit is exact in that minute — but two workers whose clocks disagree each grant "their" minute at the
 * same real instant near a boundary: a worker 0.4 s ahead takes the next minute's slot while one on time has just
 * taken this minute's, and both land in one real minute (breakslice18 limits-exact, skewed workers: 2 admitted in
 * a minute of 1). A worker that grants only at least `toleranceMs` inside its minute grants only within that same
 * minute on any clock at most `toleranceMs` from its own — so each real minute's admissions are one counter
 * minute's, within its limit, whatever the workers' clocks within the tolerance.
 */
import { MINUTE_MS } from '../clock.ts'

/** Whether `now` lies within `toleranceMs` of its minute's start or end: no fresh grant there. */
export function atMinuteEdge(now: number, toleranceMs: number): boolean {
  if (toleranceMs <= 0) return false
  const into = now - Math.floor(now / MINUTE_MS) * MINUTE_MS
  // A clock up to `toleranceMs` behind must still be in this minute, and one as far ahead not yet in the next.
  return into < toleranceMs || into >= MINUTE_MS - toleranceMs
}

/** The first moment at or after `at` where grants are made again (`at` itself when it is no edge). */
export function pastMinuteEdge(at: number, toleranceMs: number): number {
  if (!atMinuteEdge(at, toleranceMs)) return at
  // In a minute's head, its interior starts `toleranceMs` in; in its tail, the next minute's does.
  const start = Math.floor(at / MINUTE_MS) * MINUTE_MS
  return (at - start < toleranceMs ? start : start + MINUTE_MS) + toleranceMs
}
