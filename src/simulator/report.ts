/**
 * @module
 * A run as text: the per-minute table and the summary the CLI prints, and the JSON it writes.
 */
import { PREMATURE_CAUSES } from './metrics.ts'
import type { SimulationResult } from './run.ts'

const COLUMNS = [
  ['min', 'minute'],
  ['arrivals', 'arrivals'],
  ['admitted', 'admitted'],
  ['queued', 'queued'],
  ['active', 'active'],
  ['limit', 'limit'],
  ['overshoot', 'overshoot'],
  ['premature', 'premature'],
  ['queue', 'queueLength'],
  ['idle', 'idleSlots'],
] as const

/** The per-minute table, one line per minute, columns right-aligned. */
export function formatTable(result: SimulationResult): string {
  const header = COLUMNS.map(([title]) => title)
  const lines = result.rows.map((row) => COLUMNS.map(([, key]) => String(row[key])))
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i]!.length)))
  const format = (cells: string[]) => cells.map((cell, i) => cell.padStart(widths[i]!)).join('  ')
  return [format(header), ...lines.map(format)].join('\n')
}

const clock = (ms: number): string => {
  const seconds = Math.floor(ms / 1000)
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
}

/** The summary: the figures the issue's targets are about, with premature queueing broken down by cause. */
export function formatSummary(result: SimulationResult): string {
  const { scenario, summary: s, anomalies } = result
  const causes = PREMATURE_CAUSES.filter((cause) => s.prematureCauses[cause] > 0)
    .map((cause) => `${cause} ${s.prematureCauses[cause]}`)
    .join(', ')
  const onset = s.queueOnset
    ? `${s.queueOnset.percentOfLimit}% of totalActiveUsers (${s.queueOnset.activeUsers} active) at ${clock(s.queueOnset.atMs)}`
    : 'nobody was queued'
  const w = s.wait
  return [
    `scenario        ${scenario.name}: ${scenario.description}`,
    `users           ${s.users} (${s.admitted} admitted, ${s.neverAdmitted} still waiting at the end, ${s.queuedUsers} queued at least once)`,
    `queue onset     ${onset}`,
    `max active      ${s.maxActive} of ${s.totalActiveUsers}; max overshoot ${s.maxOvershoot} (${s.maxOvershootPercent}%)`,
    `admissions/min  max ${s.maxAdmissionsPerMinute} (newUsersPerMinute ${s.newUsersPerMinute}); minutes over it: ${s.minutesOverNewUsersPerMinute}`,
    `premature       ${s.premature} queueing decisions${causes ? ` (${causes})` : ''}; idle slots while queueing: ${s.idleSlots}`,
    `fifo order      admissions overtaking a user ≥ 1 min older ${s.overtakes.oneMinutePercent}%, ≥ 2 min older ${s.overtakes.twoMinutesPercent}%`,
    `utilisation     while anyone waits: mean ${s.utilisation.meanPercent ?? 'n/a'}%, p5 ${s.utilisation.p5Percent ?? 'n/a'}% (${s.utilisation.samples} samples of 5 s)`,
    `wait            Spearman ρ(arrival, wait) ${w.spearman ?? 'n/a'}; mean ${w.meanMinutes} min, p50 ${w.p50Minutes}, p90 ${w.p90Minutes}, max ${w.maxMinutes}; spread within an arrival minute (IQR) ${w.spreadWithinArrivalMinute} min`,
    `shared state    ${result.footprint.stateFields} count fields in the largest synced state, ${result.footprint.counters} counters held at the end`,
    `anomalies       lost sessions ${anomalies.lostSessions}, too-early check-ins ${anomalies.tooEarly}, lost queue places ${anomalies.lostQueuePlaces}, unexpected ${anomalies.unexpected}`,
  ].join('\n')
}

/** The result as JSON: everything but the per-user list, which goes in as compact columns. */
export function resultJson(result: SimulationResult): string {
  const { users, ...rest } = result
  return JSON.stringify(
    {
      ...rest,
      users: {
        arrivalMs: users.map((u) => u.arrivalMs),
        admittedMs: users.map((u) => u.admittedMs ?? null),
        location: users.map((u) => u.location),
      },
    },
    null,
    1,
  )
}
