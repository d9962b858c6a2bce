/// <reference types="node" />
/**
 * @module
 * `hono-waiting-room simulate`: runs a scenario through the real middleware in simulated time (see
 * `src/simulator/`), prints the per-minute table and the summary, and writes SVG charts and a JSON of
 * the results.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { attachDashValues, type FlagValueRule } from './flag-values.ts'
import {
  formatSummary,
  formatTable,
  parseScenario,
  renderCharts,
  resultJson,
  runSimulation,
  scaleScenario,
  SCENARIOS,
  type MinuteRow,
  type Scenario,
} from '../src/simulator/index.ts'

const NAMES = Object.keys(SCENARIOS)

export const SIMULATE_USAGE = `Usage: hono-waiting-room simulate [--scenario <name>[,<name>…] | --config <file.json>] [--out <dir>]

Runs the waiting room's real code — locations × workers sharing one in-memory coordinator with
propagation lag — against simulated users in simulated time, and reports when queueing began, how far
active users overshot the limit, premature queueing, and wait times by arrival.

Flags:
  --scenario <name>   ${NAMES.join(', ')}, or all (default: ramp)
  --config <file>     a scenario as JSON: locations, workers, room limits, arrivals, lagMs, visit, minutes, seed
  --out <dir>         where charts and results are written (default: sim-results)
  --seed <text>       overrides the scenario's seed
  --users <n>         scales the scenario to n users (arrivals and both limits by the same factor)
  --quiet             print only the summary, not the per-minute table
  --progress          print each simulated minute as it ends, with the time and memory so far (long runs)
  --help              this text

Writes <out>/<scenario>.json, <scenario>-active.svg, <scenario>-queue.svg and <scenario>-wait.svg.
`

export interface SimulateIo {
  out: (text: string) => void
  err: (text: string) => void
}

const consoleIo: SimulateIo = { out: (text) => console.log(text), err: (text) => console.error(text) }

class UsageError extends Error {}

/** The flags that take a value, for attachDashValues. */
const DASH_RULES: FlagValueRule[] = Object.entries({ scenario: 'a scenario name', config: 'a JSON file', out: 'a folder', seed: 'a seed', users: 'a number of users' }).map(
  ([name, help]) => ({ name, kind: 'string', help }),
)

async function scenariosFrom(values: { scenario?: string; config?: string; seed?: string; users?: string }): Promise<Scenario[]> {
  if (values.scenario !== undefined && values.config !== undefined) throw new UsageError('give --scenario or --config, not both')
  let scenarios: Scenario[]
  if (values.config !== undefined) {
    let text: string
    try {
      text = await readFile(values.config, 'utf8')
    } catch (error) {
      throw new UsageError(`cannot read --config ${values.config}: ${(error as Error).message}`)
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      throw new UsageError(`--config ${values.config} is not JSON: ${(error as Error).message}`)
    }
    scenarios = [parseScenario(json)]
  } else {
    const names = (values.scenario ?? 'ramp').split(',').flatMap((name) => (name === 'all' ? NAMES : [name.trim()]))
    scenarios = names.map((name) => {
      const make = SCENARIOS[name as keyof typeof SCENARIOS]
      if (!make) throw new UsageError(`unknown scenario '${name}' (known: ${NAMES.join(', ')}, all)`)
      return make()
    })
  }
  if (values.users !== undefined) {
    const users = /^\s*\d+\s*$/.test(values.users) ? Number(values.users) : Number.NaN
    if (!Number.isSafeInteger(users) || users < 1) throw new UsageError(`--users must be a whole number of at least 1 (got '${values.users}')`)
    scenarios = scenarios.map((s) => scaleScenario(s, users))
  }
  return values.seed === undefined ? scenarios : scenarios.map((s) => ({ ...s, seed: values.seed! }))
}

/** Runs the simulate command with its arguments (after `simulate`); resolves with the exit status. */
export async function runSimulate(argv: string[], io: SimulateIo = consoleIo): Promise<number> {
  let scenarios: Scenario[]
  let values: { out?: string; quiet?: boolean; progress?: boolean; help?: boolean }
  try {
    const parsed = parseArgs({
      // `--users -5` is a value to refuse in --users' words, not parseArgs' "argument is ambiguous".
      args: attachDashValues(argv, DASH_RULES),
      options: {
        scenario: { type: 'string' },
        config: { type: 'string' },
        out: { type: 'string' },
        seed: { type: 'string' },
        users: { type: 'string' },
        quiet: { type: 'boolean' },
        progress: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    })
    values = parsed.values
    if (values.help) {
      io.out(SIMULATE_USAGE)
      return 0
    }
    scenarios = await scenariosFrom(parsed.values)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    io.err(`hono-waiting-room simulate: ${message}\nRun 'hono-waiting-room simulate --help' to see the flags.`)
    return 2
  }

  const out = values.out ?? 'sim-results'
  try {
    await mkdir(out, { recursive: true })
    for (const scenario of scenarios) {
      const started = performance.now()
      const cpuAtStart = process.cpuUsage()
      // CPU seconds besides the real time: on a shared machine the real time of a long run says little.
      const cpuSeconds = () => {
        const used = process.cpuUsage(cpuAtStart)
        return (used.user + used.system) / 1e6
      }
      const progress = (row: MinuteRow) =>
        io.err(
          `${scenario.name}: minute ${row.minute + 1}/${scenario.minutes} done: ${row.admitted} admitted, ${row.queueLength} waiting ` +
            `(${((performance.now() - started) / 1000).toFixed(0)} s, ${cpuSeconds().toFixed(0)} CPU-s, ${Math.round(process.memoryUsage.rss() / 1e6)} MB resident)`,
        )
      const result = await runSimulation(scenario, values.progress ? { onMinute: progress } : {})
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      if (!values.quiet) io.out(`${formatTable(result)}\n`)
      io.out(formatSummary(result))
      const charts = renderCharts(result)
      const files: [string, string][] = [
        [`${scenario.name}.json`, resultJson(result)],
        [`${scenario.name}-active.svg`, charts.active],
        [`${scenario.name}-queue.svg`, charts.queue],
        [`${scenario.name}-wait.svg`, charts.wait],
      ]
      for (const [name, content] of files) await writeFile(join(out, name), content)
      io.out(`written         ${files.map(([name]) => join(out, name)).join(', ')} (simulated in ${seconds} s)\n`)
    }
    return 0
  } catch (error) {
    io.err(`hono-waiting-room simulate: ${error instanceof Error ? error.message : String(error)}`)
    return 1
  }
}
