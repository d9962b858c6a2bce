// `npm run bench`: builds dist/, then measures — per-decision costs, memory, the flood path on Node, Bun
// and Deno (issue 16's table, with two peer middlewares), the standalone proxy against a plain one, CPU
// profiles of the hot paths, each adapter next to its backend, and the simulator's accuracy — and writes
// bench/results/latest.{md,json} and docs/bench-overhead.svg (plus the simulator's charts in docs/).
// Loopback only, every part bounded; about 12 minutes on 2 cores.
//
//   npm run bench [-- --quick] [--only runtimes,proxy,micro,memory,profile,adapters,simulate,http,challenge] [--no-build]
//                 [--seconds 3] [--connections 50] [--rounds 3] [--runtimes node,bun,deno] [--before <dist>]
//                 [--full-sim] [--report-only]
//
// `http` (the older Node-only table through autocannon) is not in the default run: `runtimes` measures the
// same paths on every runtime with wrk. --before <dist> adds the room's cases served from another build to
// the runtimes table, in the same rounds (a before/after on the same machine state).
// --quick shortens every part (a smoke test; its figures are not for the record). --only (or a --quick
// run) writes bench/results/partial.{md,json}.tmp instead of latest.*, so a partial run never replaces the
// record.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { cpus, loadavg } from 'node:os'
import { runAdapters } from './adapters.mjs'
import { runHttp } from './http.mjs'
import { formatRuntimes } from './report-runtimes.mjs'
import { runRuntimes } from './runtimes.mjs'
import { benchDir, distDir, docsDir, flag, option, parseResult, resultsDir, root, round, runBounded } from './lib.mjs'
import { formatProfile, profileCase } from './profile.mjs'
import { renderMarkdown, renderOverheadChart } from './report.mjs'

const argv = process.argv.slice(2)
const quick = flag(argv, 'quick')
const DEFAULT = ['micro', 'memory', 'runtimes', 'proxy', 'profile', 'adapters', 'simulate']
// `challenge` (proof of work in Chromium, minutes at the higher difficulties) runs when asked for with --only.
const ALL = [...DEFAULT, 'http', 'challenge']
const only = option(argv, 'only', undefined)?.split(',').map((s) => s.trim())
const sections = only ?? DEFAULT
const unknown = sections.filter((s) => !ALL.includes(s))
if (unknown.length) {
  console.error(`bench: unknown section ${unknown.join(', ')} (known: ${ALL.join(', ')})`)
  process.exit(2)
}
const partial = Boolean(only) || quick
const options = {
  quick,
  sections,
  seconds: Number(option(argv, 'seconds', quick ? '1' : '3')),
  connections: Number(option(argv, 'connections', '50')),
  rounds: Number(option(argv, 'rounds', quick ? '1' : '3')),
  runtimes: option(argv, 'runtimes', 'node,bun,deno').split(','),
  before: option(argv, 'before', undefined),
  fullSim: flag(argv, 'full-sim'),
}

// --report-only: render latest.md and the chart again from latest.json (after a change to report.mjs).
if (flag(argv, 'report-only')) {
  const { readFile } = await import('node:fs/promises')
  const saved = JSON.parse(await readFile(`${resultsDir}latest.json`, 'utf8'))
  await writeFile(`${resultsDir}latest.md`, renderMarkdown(saved))
  const chart = renderOverheadChart(saved)
  if (chart) await writeFile(`${docsDir}bench-overhead.svg`, chart)
  console.log('bench: rendered bench/results/latest.md and docs/bench-overhead.svg from latest.json')
  process.exit(0)
}

const started = performance.now()
const git = (...args) => {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return undefined
  }
}
const results = {
  environment: {
    startedAt: new Date().toISOString(),
    node: `Node ${process.version}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model?.trim() ?? 'unknown CPU',
    loadAverageStart: loadavg(),
    commit: git('rev-parse', '--short', 'HEAD'),
    dirty: Boolean(git('status', '--porcelain', '--', 'src', 'adapters')),
    dist: distDir,
  },
  options,
}
const say = (text) => console.log(text)
const elapsed = () => `${round((performance.now() - started) / 1000, 0)} s`

// 0. Build: the benches import dist/. Type errors in files others are still writing do not stop tsc from
//    emitting, so a failed type check only warns as long as what the benches import is there.
if (!flag(argv, 'no-build') && !process.env.BENCH_DIST) {
  say('bench: npm run build')
  const build = await runBounded('npm', ['run', 'build', '--silent'], { timeoutMs: 240_000 })
  if (build.code !== 0) {
    const firstError = (build.stdout + build.stderr).split('\n').find((line) => /error/i.test(line)) ?? ''
    if (!existsSync(`${root}dist/src/room/middleware.js`)) {
      console.error(`bench: the build failed and dist/ is missing:\n${build.stdout}${build.stderr}`)
      process.exit(1)
    }
    say(`bench: the build reported errors (${firstError.trim()}); measuring what it emitted`)
    results.environment.buildWarning = firstError.trim()
  }
  say(`bench: built in ${round(build.seconds, 0)} s`)
}

/** Runs a bench script as a child and returns its BENCH_RESULT (or { error }). */
async function child(args, timeoutMs) {
  const run = await runBounded(process.execPath, args, { timeoutMs, onLine: (line) => !line.startsWith('BENCH_RESULT') && say(`  ${line}`) })
  const parsed = parseResult(run.stdout)
  if (parsed && run.code === 0) return parsed
  return { error: run.timedOut ? `timed out after ${timeoutMs / 1000} s` : `exited with ${run.code}: ${(run.stderr || run.stdout).trim().split('\n').slice(-3).join(' | ')}` }
}

if (sections.includes('micro')) {
  say(`bench: per-decision costs (${elapsed()})`)
  results.micro = await child([`${benchDir}micro.mjs`, '--scale', quick ? '0.1' : '1'], 120_000)
}
if (sections.includes('memory')) {
  say(`bench: memory for 1,000,000 queued users (${elapsed()})`)
  results.memory = await child(['--expose-gc', `${benchDir}memory.mjs`, ...(quick ? ['--reports', '60'] : [])], 120_000)
}
if (sections.includes('runtimes')) {
  say(`bench: the flood path on ${options.runtimes.join(', ')}, ${options.rounds} rounds of ${options.seconds} s × ${options.connections} connections (${elapsed()})`)
  try {
    results.runtimes = await runRuntimes({ runtimes: options.runtimes, seconds: options.seconds, rounds: options.rounds, connections: options.connections, warmupSeconds: quick ? 1 : 2, before: options.before, log: say })
    say(formatRuntimes(results.runtimes).replace(/^/gm, '  '))
  } catch (error) {
    results.runtimes = { error: String(error?.message ?? error) }
  }
}
if (sections.includes('proxy')) {
  say(`bench: the standalone proxy against a plain pass-through proxy (${elapsed()})`)
  if (existsSync(`${benchDir}proxy-passthrough.mjs`)) {
    const args = [`${benchDir}proxy-passthrough.mjs`, ...(quick ? ['--quick'] : ['--seconds', String(options.seconds), '--rounds', String(options.rounds)])]
    results.proxy = await child(args, 600_000)
  } else results.proxy = { error: 'bench/proxy-passthrough.mjs is not there' }
}
if (sections.includes('http')) {
  say(`bench: HTTP overhead, ${options.rounds} rounds of ${options.seconds} s × ${options.connections} connections (${elapsed()})`)
  try {
    results.http = await runHttp({ seconds: options.seconds, connections: options.connections, rounds: options.rounds, warmupSeconds: quick ? 1 : 2 })
  } catch (error) {
    results.http = { error: String(error?.message ?? error) }
  }
}
if (sections.includes('profile')) {
  say(`bench: CPU profiles (${elapsed()})`)
  results.profile = []
  for (const which of ['admitted', 'new']) {
    try {
      const p = await profileCase(which, { seconds: quick ? 1 : 4, connections: options.connections })
      results.profile.push(p)
      say(formatProfile(p).replace(/^/gm, '  '))
    } catch (error) {
      results.profile.push({ case: which, error: String(error?.message ?? error) })
    }
  }
}
if (sections.includes('adapters')) {
  say(`bench: adapters (${elapsed()})`)
  try {
    results.adapters = await runAdapters({ quick, log: say })
  } catch (error) {
    results.adapters = { error: String(error?.message ?? error) }
  }
}
if (sections.includes('simulate')) {
  say(`bench: simulator (${elapsed()})`)
  const args = [`${benchDir}simulate.mjs`, ...(options.fullSim ? ['--full'] : []), ...(quick ? ['--seed002-users', '300', '--planet-users', '600'] : [])]
  // Full size: seed 002 at 10,000 users twice and planet at ~34,000 users on 1,200 workers.
  results.simulate = await child(args, options.fullSim ? 3_600_000 : 600_000)
}

if (sections.includes('challenge')) {
  say(`bench: proof of work in Chromium (${elapsed()})`)
  results.challenge = await child([`${benchDir}challenge-browser.mjs`, ...(quick ? ['--quick'] : [])], 900_000)
}

results.environment.loadAverageEnd = loadavg()
results.environment.seconds = round((performance.now() - started) / 1000, 0)

await mkdir(resultsDir, { recursive: true })
await mkdir(docsDir, { recursive: true })
const markdown = renderMarkdown(results)
const [md, json] = partial ? ['partial.md.tmp', 'partial.json.tmp'] : ['latest.md', 'latest.json']
await writeFile(`${resultsDir}${json}`, `${JSON.stringify(results, null, 1)}\n`)
await writeFile(`${resultsDir}${md}`, markdown)
const chart = renderOverheadChart(results)
if (chart && !partial) await writeFile(`${docsDir}bench-overhead.svg`, chart)
else if (chart) await writeFile(`${resultsDir}bench-overhead.svg.tmp`, chart)
say(`bench: wrote bench/results/${md} and ${json}${chart && !partial ? ', docs/bench-overhead.svg' : ''} in ${results.environment.seconds} s`)
