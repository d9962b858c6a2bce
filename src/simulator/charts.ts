/**
 * @module
 * The three charts of a run, as SVG text: active users against the limit, queue length, and wait time by
 * arrival time (a scatter plot, one dot per user as in seed 002's experiment, those still waiting at the end
 * drawn at the wait they had so far).
 */
import type { SimulationResult } from './run.ts'
import type { UserOutcome } from './summary.ts'
import { renderChart, type ChartSeries } from './svg.ts'

const MINUTE_MS = 60_000
/** A scatter plot beyond this many dots is thinned evenly (every k-th user), to keep the file small. */
const MAX_DOTS = 6000

export interface Charts {
  active: string
  queue: string
  wait: string
}

export function renderCharts(result: SimulationResult): Charts {
  const { scenario, series, users } = result
  const minutes = (ms: number) => ms / MINUTE_MS
  const limit = scenario.room.totalActiveUsers
  const end = scenario.minutes
  const active = renderChart({
    title: `${scenario.name}: active users against the limit`,
    xLabel: 'minutes',
    yLabel: 'active users (ground truth)',
    series: [
      { name: 'active users', color: '#1f77b4', kind: 'line', points: series.map((p) => [minutes(p.atMs), p.active]) },
      { name: `totalActiveUsers ${limit}`, color: '#d62728', kind: 'dashed', points: [[0, limit], [end, limit]] },
    ],
  })
  const queue = renderChart({
    title: `${scenario.name}: queue length`,
    xLabel: 'minutes',
    yLabel: 'users waiting',
    series: [{ name: 'users waiting', color: '#ff7f0e', kind: 'line', points: series.map((p) => [minutes(p.atMs), p.queue]) }],
  })
  const admitted = users.filter((u) => u.admittedMs !== undefined)
  const waiting = users.filter((u) => u.admittedMs === undefined)
  const wait = renderChart({
    title: `${scenario.name}: wait time by arrival (${scenario.room.queueingMethod})`,
    xLabel: 'arrival (minutes)',
    yLabel: 'wait (minutes)',
    series: [
      dotsOf('admitted users: wait until admitted', '#2ca02c', admitted, (u) => u.admittedMs! - u.arrivalMs),
      // Left out, the longest waits would vanish from the chart: drawn at the wait they had when the run ended.
      dotsOf('still waiting at the end: wait so far', '#d62728', waiting, (u) => end * MINUTE_MS - u.arrivalMs),
    ],
  })
  return { active, queue, wait }
}

/** One dot per user (every k-th beyond `MAX_DOTS`): arrival against `waitMs`, in minutes. */
function dotsOf(name: string, color: string, users: readonly UserOutcome[], waitMs: (u: UserOutcome) => number): ChartSeries {
  const step = Math.max(1, Math.ceil(users.length / MAX_DOTS))
  const points: [number, number][] = []
  for (let i = 0; i < users.length; i += step) points.push([users[i]!.arrivalMs / MINUTE_MS, waitMs(users[i]!) / MINUTE_MS])
  return { name: step > 1 ? `${name} (1 in ${step})` : `${name} (${users.length})`, color, kind: 'dots', points }
}
