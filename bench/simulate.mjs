// Accuracy from the simulator (src/simulator/, by another engineer): queue onset as % of the limit and
// overshoot for the ramp, spike and shifting-traffic scenarios, and seed 002's FIFO-versus-random wait
// times. Writes the charts the report uses into docs/. Prints a BENCH_RESULT line; when the simulator is
// not built (or throws), the line says why and the report shows "not measured".
//
//   node bench/simulate.mjs [--seed002-users 1000] [--full]     (--full: seed 002 at its own 10,000 users)
import { mkdir, writeFile } from 'node:fs/promises'
import { dist, docsDir, flag, option, printResult, round } from './lib.mjs'

const full = flag(process.argv, 'full')
const seed002Users = Number(option(process.argv, 'seed002-users', '1000'))

let sim
let charts
try {
  sim = await dist('src/simulator/index.js')
  charts = await dist('src/simulator/charts.js')
} catch (error) {
  printResult({ available: false, reason: `simulator not available: ${error.message.split('\n')[0]}` })
  process.exit(0)
}

const scenarios = [
  ['ramp', () => sim.rampScenario()],
  ['spike', () => sim.spikeScenario()],
  ['shift', () => sim.shiftScenario()],
  ['seed002-fifo', () => sim.seed002Scenario('fifo', full ? {} : { users: seed002Users })],
  ['seed002-random', () => sim.seed002Scenario('random', full ? {} : { users: seed002Users })],
]

/** Which chart of which scenario goes into docs/, under which name. */
const DOCS_CHARTS = { 'seed002-fifo': [['wait', 'seed002-fifo-wait.svg']], 'seed002-random': [['wait', 'seed002-random-wait.svg']], spike: [['active', 'spike-active.svg']] }

await mkdir(docsDir, { recursive: true })
const results = {}
for (const [name, make] of scenarios) {
  const started = performance.now()
  try {
    const scenario = make()
    const result = await sim.runSimulation(scenario)
    const s = result.summary
    results[name] = {
      description: scenario.description,
      users: s.users,
      admitted: s.admitted,
      totalActiveUsers: s.totalActiveUsers,
      newUsersPerMinute: s.newUsersPerMinute,
      queueOnsetPercentOfLimit: s.queueOnset?.percentOfLimit,
      queueOnsetActiveUsers: s.queueOnset?.activeUsers,
      queueOnsetAtSeconds: s.queueOnset ? round(s.queueOnset.atMs / 1000, 1) : undefined,
      maxActive: s.maxActive,
      maxOvershoot: s.maxOvershoot,
      maxOvershootPercent: s.maxOvershootPercent,
      maxAdmissionsPerMinute: s.maxAdmissionsPerMinute,
      minutesOverNewUsersPerMinute: s.minutesOverNewUsersPerMinute,
      premature: s.premature,
      idleSlots: s.idleSlots,
      waitSpearman: s.wait.spearman,
      waitMeanMinutes: s.wait.meanMinutes,
      waitP90Minutes: s.wait.p90Minutes,
      waitSpreadWithinArrivalMinute: s.wait.spreadWithinArrivalMinute,
      seconds: round((performance.now() - started) / 1000, 1),
    }
    const rendered = charts.renderCharts(result)
    for (const [chart, file] of DOCS_CHARTS[name] ?? []) await writeFile(`${docsDir}${file}`, rendered[chart])
    console.log(`${name.padEnd(15)} onset ${results[name].queueOnsetPercentOfLimit ?? '-'}% of limit, overshoot ${s.maxOvershoot} (${s.maxOvershootPercent}%), ρ ${s.wait.spearman} (${results[name].seconds} s)`)
  } catch (error) {
    results[name] = { error: String(error?.stack ?? error).split('\n').slice(0, 3).join(' | ') }
    console.log(`${name}: ${results[name].error}`)
  }
}
printResult({ available: true, full, seed002Users: full ? 10_000 : seed002Users, scenarios: results })
