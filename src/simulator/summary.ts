/**
 * @module
 * The figures a run is judged by: when queueing began (as % of the limit), the worst overshoot, the
 * busiest minute's admissions against `newUsersPerMinute`, premature queueing, and how wait time relates
 * to arrival order (Spearman's ρ) and spreads within one arrival minute.
 */
import type { MinuteRow, PrematureCause } from './metrics.ts'
import type { Scenario } from './scenario.ts'
import { overtakes, utilisation, type Overtakes, type Utilisation } from './fairness.ts'
import { quantile, round, spearman } from './stats.ts'

export interface UserOutcome {
  /** ms from the start of the first request. */
  arrivalMs: number
  location: string
  /** ms from the start of admission; undefined if never admitted. */
  admittedMs: number | undefined
  queueDecisions: number
}

export interface WaitFigures {
  /** Spearman's ρ between arrival time and wait, over admitted users. */
  spearman: number | undefined
  meanMinutes: number
  p50Minutes: number
  p90Minutes: number
  maxMinutes: number
  /** Mean, over arrival minutes with at least 5 admitted users, of the interquartile range of their waits. */
  spreadWithinArrivalMinute: number
}

export interface Summary {
  users: number
  admitted: number
  /** Users still waiting when the run ended. */
  neverAdmitted: number
  /** Users queued at least once. */
  queuedUsers: number
  totalActiveUsers: number
  /** Ground truth at the first queueing decision; undefined when nobody was queued. */
  queueOnset: { atMs: number; minute: number; activeUsers: number; percentOfLimit: number } | undefined
  maxActive: number
  maxOvershoot: number
  maxOvershootPercent: number
  newUsersPerMinute: number
  maxAdmissionsPerMinute: number
  /** Minutes that admitted more than `newUsersPerMinute`. */
  minutesOverNewUsersPerMinute: number
  premature: number
  prematureCauses: Record<PrematureCause, number>
  /** Sum of `idleSlots` over the minutes: capacity left unused while users were being queued. */
  idleSlots: number
  /** FIFO order: admissions made while a user ≥ 1 (≥ 2) minutes older was left waiting (fairness.ts). */
  overtakes: Overtakes
  /** How full the room was while anyone waited and totalActiveUsers was the binding limit. */
  utilisation: Utilisation
  wait: WaitFigures
}

const MINUTE_MS = 60_000
const SPREAD_MIN_USERS = 5

export function summarize(
  scenario: Scenario,
  rows: readonly MinuteRow[],
  users: readonly UserOutcome[],
  firstQueue: { atMs: number; activeUsers: number } | undefined,
  prematureCauses: Record<PrematureCause, number>,
  utilisationSamples: readonly number[] = [],
): Summary {
  const { totalActiveUsers, newUsersPerMinute } = scenario.room
  const maxActive = Math.max(0, ...rows.map((r) => r.active))
  const maxOvershoot = Math.max(0, ...rows.map((r) => r.overshoot))
  const maxAdmissions = Math.max(0, ...rows.map((r) => r.admitted))
  const admitted = users.filter((u) => u.admittedMs !== undefined)
  return {
    users: users.length,
    admitted: admitted.length,
    neverAdmitted: users.length - admitted.length,
    queuedUsers: users.filter((u) => u.queueDecisions > 0).length,
    totalActiveUsers,
    queueOnset: firstQueue && {
      atMs: firstQueue.atMs,
      minute: Math.floor(firstQueue.atMs / MINUTE_MS),
      activeUsers: firstQueue.activeUsers,
      percentOfLimit: round((100 * firstQueue.activeUsers) / totalActiveUsers, 2),
    },
    maxActive,
    maxOvershoot,
    maxOvershootPercent: round((100 * maxOvershoot) / totalActiveUsers, 2),
    newUsersPerMinute,
    maxAdmissionsPerMinute: maxAdmissions,
    minutesOverNewUsersPerMinute: rows.filter((r) => r.admitted > newUsersPerMinute).length,
    premature: rows.reduce((sum, r) => sum + r.premature, 0),
    prematureCauses,
    idleSlots: rows.reduce((sum, r) => sum + r.idleSlots, 0),
    overtakes: overtakes(users, scenario.room.refreshIntervalSeconds * 1000),
    utilisation: utilisation(utilisationSamples),
    wait: waitFigures(admitted),
  }
}

function waitFigures(admitted: readonly UserOutcome[]): WaitFigures {
  const waits = admitted.map((u) => (u.admittedMs! - u.arrivalMs) / MINUTE_MS)
  const sorted = [...waits].sort((a, b) => a - b)
  const byMinute = new Map<number, number[]>()
  admitted.forEach((u, i) => {
    const minute = Math.floor(u.arrivalMs / MINUTE_MS)
    let group = byMinute.get(minute)
    if (!group) byMinute.set(minute, (group = []))
    group.push(waits[i]!)
  })
  const spreads: number[] = []
  for (const group of byMinute.values()) {
    if (group.length < SPREAD_MIN_USERS) continue
    group.sort((a, b) => a - b)
    spreads.push(quantile(group, 0.75)! - quantile(group, 0.25)!)
  }
  const rho = spearman(
    admitted.map((u) => u.arrivalMs),
    waits,
  )
  return {
    spearman: rho === undefined ? undefined : round(rho, 3),
    meanMinutes: round(waits.reduce((sum, w) => sum + w, 0) / Math.max(1, waits.length), 2),
    p50Minutes: round(quantile(sorted, 0.5) ?? 0, 2),
    p90Minutes: round(quantile(sorted, 0.9) ?? 0, 2),
    maxMinutes: round(sorted[sorted.length - 1] ?? 0, 2),
    spreadWithinArrivalMinute: round(spreads.reduce((sum, s) => sum + s, 0) / Math.max(1, spreads.length), 2),
  }
}
