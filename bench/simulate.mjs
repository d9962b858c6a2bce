// Accuracy from the simulator (src/simulator/): for every built-in scenario the five measures of issue 15 —
// max overshoot, minutes over newUsersPerMinute, utilisation while anyone waits (mean / p5), FIFO overtakes
// (≥ 1 / ≥ 2 min older), queue onset — with seed 002's ρ(arrival, wait), run time and peak RSS. Writes the
// charts the README links into docs/. Prints a BENCH_RESULT line; when the simulator is not built (or
// throws), the line says why and the report shows "not measured".
//
//   node bench/simulate.mjs [--seed002-users 1000] [--planet-users 3000] [--full] [--readme]
//
//   --full     every scenario at its own size (seed 002 at 10,000 users, planet at ~33,000)
//   --readme   also rewrites README.md's accuracy table (between the accuracy-table markers) and the charts
//              in docs/sim/: `npm run build && node bench/simulate.mjs --full --readme` regenerates both
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dist, docsDir, flag, option, printResult, root, round } from './lib.mjs'

const full = flag(process.argv, 'full')
const readme = flag(process.argv, 'readme')
const seed002Users = Number(option(process.argv, 'seed002-users', '1000'))
const planetUsers = Number(option(process.argv, 'planet-users', '3000'))

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
  // Last: at full size the longest run by far.
  ['planet', () => (full ? sim.planetScenario() : sim.scaleScenario(sim.planetScenario(), planetUsers))],
]

/** Charts the README links by their old names (besides docs/sim/<scenario>-<chart>.svg, written with --readme). */
const DOCS_CHARTS = { 'seed002-fifo': [['wait', 'seed002-fifo-wait.svg']], 'seed002-random': [['wait', 'seed002-random-wait.svg']], spike: [['active', 'spike-active.svg']] }

/** Peak resident set size of this process since `reset()`, sampled every 200 ms of real time. */
function rssSampler() {
  let peak = 0
  const sample = () => (peak = Math.max(peak, process.memoryUsage.rss()))
  const timer = setInterval(sample, 200)
  timer.unref()
  return {
    reset: () => (peak = process.memoryUsage.rss()),
    peakMB: () => Math.round(sample() / 1e6),
  }
}

function figures(scenario, result, seconds, peakMB) {
  const s = result.summary
  return {
    description: scenario.description,
    users: s.users,
    admitted: s.admitted,
    stillWaiting: s.neverAdmitted,
    locations: scenario.locations.length,
    workers: scenario.locations.reduce((sum, l) => sum + l.workers, 0),
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
    utilisationMeanPercent: s.utilisation.meanPercent,
    utilisationP5Percent: s.utilisation.p5Percent,
    utilisationSamples: s.utilisation.samples,
    overtakesOneMinutePercent: s.overtakes.oneMinutePercent,
    overtakesTwoMinutesPercent: s.overtakes.twoMinutesPercent,
    premature: s.premature,
    idleSlots: s.idleSlots,
    waitSpearman: s.wait.spearman,
    waitMeanMinutes: s.wait.meanMinutes,
    waitP90Minutes: s.wait.p90Minutes,
    waitSpreadWithinArrivalMinute: s.wait.spreadWithinArrivalMinute,
    seconds,
    peakRssMB: peakMB,
  }
}

await mkdir(docsDir, { recursive: true })
if (readme) await mkdir(`${docsDir}sim/`, { recursive: true })
const rss = rssSampler()
const results = {}
for (const [name, make] of scenarios) {
  rss.reset()
  const started = performance.now()
  try {
    const scenario = make()
    const result = await sim.runSimulation(scenario)
    results[name] = figures(scenario, result, round((performance.now() - started) / 1000, 1), rss.peakMB())
    const rendered = charts.renderCharts(result)
    for (const [chart, file] of DOCS_CHARTS[name] ?? []) await writeFile(`${docsDir}${file}`, rendered[chart])
    if (readme) for (const chart of ['active', 'wait']) await writeFile(`${docsDir}sim/${name}-${chart}.svg`, rendered[chart])
    const r = results[name]
    console.log(
      `${name.padEnd(15)} overshoot ${r.maxOvershootPercent}%, over new/min ${r.minutesOverNewUsersPerMinute}, utilisation ${r.utilisationMeanPercent ?? '-'}/${r.utilisationP5Percent ?? '-'}%, ` +
        `overtakes ${r.overtakesOneMinutePercent}/${r.overtakesTwoMinutesPercent}%, onset ${r.queueOnsetPercentOfLimit ?? '-'}%, ρ ${r.waitSpearman} (${r.users} users, ${r.seconds} s, ${r.peakRssMB} MB)`,
    )
  } catch (error) {
    results[name] = { error: String(error?.stack ?? error).split('\n').slice(0, 3).join(' | ') }
    console.log(`${name}: ${results[name].error}`)
  }
  // After every scenario, so a run stopped during the long planet one still leaves the others' rows.
  if (readme) await rewriteReadme(results)
}
printResult({ available: true, full, seed002Users: full ? 10_000 : seed002Users, planetUsers: full ? results.planet?.users : planetUsers, scenarios: results })

/** The README's accuracy table, rebuilt from this run (only the lines between the two markers change). */
async function rewriteReadme(results) {
  const path = `${root}README.md`
  const text = await readFile(path, 'utf8')
  const begin = '<!-- accuracy-table: written by `node bench/simulate.mjs --full --readme` -->'
  const end = '<!-- /accuracy-table -->'
  const from = text.indexOf(begin)
  const to = text.indexOf(end)
  if (from === -1 || to < from) throw new Error(`README.md has no accuracy-table markers (${begin} … ${end})`)
  const num = (v, unit = '') => (v === undefined || v === null ? '—' : `${v}${unit}`)
  const int = (v) => (v === undefined ? '—' : v.toLocaleString('en-US'))
  const rows = scenarios.map(([name]) => [name, results[name]]).map(([name, r]) =>
    !r
      ? `| \`${name}\` | not finished (the run was stopped before it ended) | | | | | | | |`
      : r.error
      ? `| \`${name}\` | failed: ${r.error.replaceAll('|', '\\|')} | | | | | | | |`
      : `| \`${name}\` (${int(r.users)} users, limit ${int(r.totalActiveUsers)}, ${r.locations} × ${r.workers / r.locations} workers) | ${num(r.maxOvershootPercent, '%')} | ${r.minutesOverNewUsersPerMinute} | ${num(r.utilisationMeanPercent, '%')} / ${num(r.utilisationP5Percent, '%')} | ${num(r.overtakesOneMinutePercent, '%')} / ${num(r.overtakesTwoMinutesPercent, '%')} | ${num(r.queueOnsetPercentOfLimit, '%')} | ${num(r.waitSpearman)} | ${r.seconds} s, ${int(r.peakRssMB)} MB | [active](docs/sim/${name}-active.svg), [wait](docs/sim/${name}-wait.svg) |`,
  )
  const table = [
    begin,
    `| scenario | max overshoot [≤ 1%] | minutes over newUsersPerMinute [0] | utilisation while anyone waits, mean / p5 [≥ 98% / ≥ 90%] | admissions overtaking a user ≥ 1 / ≥ 2 min older [≤ 3% / ≤ 0.5%] | queue onset (% of limit) [ramp ≥ 97%] | ρ(arrival, wait) [seed002: FIFO ≥ 0.95, random \\|ρ\\| ≤ 0.1] | run time, peak RSS | charts |`,
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Measured ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, load average ${(await import('node:os')).loadavg()[0].toFixed(1)} when the run ended.`,
    end,
  ].join('\n')
  await writeFile(path, text.slice(0, from) + table + text.slice(to + end.length))
}
