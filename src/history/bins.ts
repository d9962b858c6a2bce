/**
 * @module
 * Fixed histogram bins for the times people experienced — time in queue at admission, time on origin — so a
 * percentile can be computed from counts added up across workers, locations and minutes (percentiles of
 * percentiles cannot). Bin i holds values in [edge[i], edge[i+1]); the last bin is open-ended. A percentile is
 * interpolated inside its bin: accurate to the bin's width, which grows with the value (as errors that matter do).
 */
import { F } from './model.ts'

/** Lower edges, in seconds, of the time-in-queue bins. */
export const WAIT_BINS_SECONDS: readonly number[] = [
  0, 5, 10, 20, 30, 45, 60, 90, 120, 180, 240, 300, 420, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400, 21600, 43200, 86400,
]

/** Lower edges, in seconds, of the time-on-origin bins (sessions are renewed once a minute). */
export const SESSION_BINS_SECONDS: readonly number[] = [
  0, 30, 60, 120, 180, 300, 420, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400, 21600, 43200, 86400,
]

/** The bin of `seconds` (negative values go to bin 0). */
export function binOf(edges: readonly number[], seconds: number): number {
  let lo = 0
  let hi = edges.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (edges[mid]! <= seconds) lo = mid
    else hi = mid - 1
  }
  return lo
}

export interface Percentiles {
  count: number
  p50: number | null
  p90: number | null
  p99: number | null
}

/** The `q` quantile (0–1) of a histogram, interpolated inside its bin; null when empty. */
export function quantile(edges: readonly number[], counts: readonly number[], q: number, max?: number): number | null {
  const total = counts.reduce((sum, n) => sum + Math.max(0, n), 0)
  if (total <= 0) return null
  const target = q * total
  let seen = 0
  for (let i = 0; i < counts.length; i++) {
    const n = Math.max(0, counts[i]!)
    if (n === 0) continue
    if (seen + n >= target) {
      const lower = edges[i]!
      // The open last bin has no width: its lower edge, or the exact max when known.
      const upper = edges[i + 1] ?? Math.max(lower, max ?? lower)
      const value = lower + ((target - seen) / n) * (upper - lower)
      return Math.round((max === undefined ? value : Math.min(value, max)) * 10) / 10
    }
    seen += n
  }
  return null
}

/** count, p50, p90, p99 of a histogram (negative bins — a move not yet matched — count as 0). */
export function percentilesOf(edges: readonly number[], counts: readonly number[], max?: number): Percentiles {
  const count = counts.reduce((sum, n) => sum + Math.max(0, n), 0)
  return { count, p50: quantile(edges, counts, 0.5, max), p90: quantile(edges, counts, 0.9, max), p99: quantile(edges, counts, 0.99, max) }
}

/** The bins of a histogram read from merged fields. */
export function binsFrom(fields: Record<string, number>, kind: 'wait' | 'session'): number[] {
  const edges = kind === 'wait' ? WAIT_BINS_SECONDS : SESSION_BINS_SECONDS
  const name = kind === 'wait' ? F.waitBin : F.sessionBin
  return edges.map((_, i) => fields[name(i)] ?? 0)
}
