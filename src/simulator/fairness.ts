/**
 * @module
 * Two measures of how well the room uses and orders its places (issue 15): how often an admission overtakes
 * a user who arrived a minute (or two) earlier and was still waiting, and how full the room was while anyone
 * waited.
 */
import { quantile, round } from './stats.ts'

export interface Overtakes {
  /** Share (%) of admissions made while a user who arrived ≥ 1 minute earlier was left waiting. */
  oneMinutePercent: number
  /** The same for users who arrived ≥ 2 minutes earlier. */
  twoMinutesPercent: number
}

export interface Utilisation {
  /** Mean of active ÷ totalActiveUsers (%) over the samples taken while the queue was not empty. */
  meanPercent: number | undefined
  /** Its 5th percentile. */
  p5Percent: number | undefined
  samples: number
}

const MINUTE_MS = 60_000
/** An older user admitted this much after a newer one (beyond one refresh interval) was overtaken. */
const OVERTAKE_SLACK_MS = 2000

/**
 * An admission at time A of a user who arrived at T overtakes an older user (arrived ≤ T − age) when that
 * user was admitted after A + one refresh interval + 2 s, or never: a queued user checks in once per
 * interval, so anything within one interval is the order of check-ins, not unfairness.
 */
export function overtakes(users: readonly { arrivalMs: number; admittedMs: number | undefined }[], refreshMs: number): Overtakes {
  const byArrival = [...users].sort((a, b) => a.arrivalMs - b.arrivalMs)
  const share = (ageMs: number): number => {
    let admissions = 0
    let overtaking = 0
    // Latest admission (Infinity: never) among users who arrived at least `ageMs` before the current one.
    let latestOlder = Number.NEGATIVE_INFINITY
    let j = 0
    for (const user of byArrival) {
      while (j < byArrival.length && byArrival[j]!.arrivalMs <= user.arrivalMs - ageMs) {
        latestOlder = Math.max(latestOlder, byArrival[j]!.admittedMs ?? Number.POSITIVE_INFINITY)
        j++
      }
      if (user.admittedMs === undefined) continue
      admissions++
      if (latestOlder > user.admittedMs + refreshMs + OVERTAKE_SLACK_MS) overtaking++
    }
    return admissions === 0 ? 0 : round((100 * overtaking) / admissions, 2)
  }
  return { oneMinutePercent: share(MINUTE_MS), twoMinutesPercent: share(2 * MINUTE_MS) }
}

/** Summarises utilisation samples (active ÷ limit, as %). */
export function utilisation(samples: readonly number[]): Utilisation {
  if (samples.length === 0) return { meanPercent: undefined, p5Percent: undefined, samples: 0 }
  const sorted = [...samples].sort((a, b) => a - b)
  const mean = samples.reduce((sum, s) => sum + s, 0) / samples.length
  return { meanPercent: round(mean, 1), p5Percent: round(quantile(sorted, 0.05)!, 1), samples: samples.length }
}
