/**
 * @module
 * The three charts of a run, as SVG text: active users against the limit, queue length, and wait time by
 * arrival time (a scatter plot, one dot per admitted user, as in seed 002's experiment).
 */
import type { SimulationResult } from './run.ts'
import { renderChart } from './svg.ts'

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
  const step = Math.max(1, Math.ceil(admitted.length / MAX_DOTS))
  const dots: [number, number][] = []
  for (let i = 0; i < admitted.length; i += step) {
    const user = admitted[i]!
    dots.push([minutes(user.arrivalMs), minutes(user.admittedMs! - user.arrivalMs)])
  }
  const wait = renderChart({
    title: `${scenario.name}: wait time by arrival (${scenario.room.queueingMethod})`,
    xLabel: 'arrival (minutes)',
    yLabel: 'wait until admitted (minutes)',
    series: [{ name: step > 1 ? `admitted users (1 in ${step})` : 'admitted users', color: '#2ca02c', kind: 'dots', points: dots }],
  })
  return { active, queue, wait }
}
