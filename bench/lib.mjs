// Shared helpers of the benchmarks: paths, the one-line result protocol, bounded child processes and a few
// statistics. Plain Node (no dependencies); the code under test is imported from the compiled `dist/`.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const root = fileURLToPath(new URL('../', import.meta.url))
export const benchDir = fileURLToPath(new URL('./', import.meta.url))
export const resultsDir = `${root}bench/results/`
export const docsDir = `${root}docs/`

/** Where the compiled package is: `dist/`, or BENCH_DIST (to compare a patched build side by side). */
export const distDir = process.env.BENCH_DIST ? `${process.env.BENCH_DIST.replace(/\/$/, '')}/` : `${root}dist/`

/** Imports a compiled module of the package, e.g. `dist('src/ticket/ticket.js')`. */
export async function dist(path) {
  const file = `${distDir}${path}`
  if (!existsSync(file)) throw new Error(`${file} is missing: run npm run build first`)
  return import(pathToFileURL(file).href)
}

/** The marker of the one machine-readable line a bench child prints (`BENCH_RESULT {json}`). */
export const RESULT_MARK = 'BENCH_RESULT '

/** Prints the result line of a child. */
export function printResult(value) {
  process.stdout.write(`${RESULT_MARK}${JSON.stringify(value)}\n`)
}

/** The last `BENCH_RESULT` line of `output`, parsed; undefined when there is none. */
export function parseResult(output, mark = RESULT_MARK) {
  const lines = output.split('\n').filter((line) => line.startsWith(mark))
  if (lines.length === 0) return undefined
  return JSON.parse(lines[lines.length - 1].slice(mark.length))
}

/**
 * Runs a command to completion with a time bound; never throws. Resolves with its exit code (null when
 * killed), whether it timed out, its output and how long it took. The whole process group is ended on
 * timeout, so a script's own children go too.
 */
export function runBounded(command, args, { timeoutMs, cwd = root, env = process.env, onLine } = {}) {
  return new Promise((resolve) => {
    const started = performance.now()
    let stdout = ''
    let stderr = ''
    let timedOut = false
    let child
    try {
      child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    } catch (error) {
      resolve({ code: null, timedOut, stdout, stderr: String(error), seconds: 0, error: String(error) })
      return
    }
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk
      if (onLine) for (const line of chunk.split('\n')) if (line) onLine(line)
    })
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child)
    }, timeoutMs)
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve({ code: null, timedOut, stdout, stderr: stderr + String(error), seconds: (performance.now() - started) / 1000, error: String(error) })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, timedOut, stdout, stderr, seconds: (performance.now() - started) / 1000 })
    })
  })
}

/** Ends a detached child and everything it started (its process group), by its own id. */
export function killGroup(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    try {
      child.kill(signal)
    } catch {
      // already gone
    }
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

export const median = (values) => {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

export const mean = (values) => (values.length === 0 ? undefined : values.reduce((sum, v) => sum + v, 0) / values.length)

/** Rounds to `digits` significant-ish decimals for reports. */
export const round = (value, digits = 2) => (value === undefined || value === null || Number.isNaN(value) ? value : Number(value.toFixed(digits)))

/** Whether a `--flag` is on the command line; `--flag value` for values. */
export function flag(argv, name) {
  return argv.includes(`--${name}`)
}
export function option(argv, name, fallback) {
  const at = argv.indexOf(`--${name}`)
  return at === -1 || at + 1 >= argv.length ? fallback : argv[at + 1]
}

/**
 * The room of the flood-path benches: `open` admits everyone (a new user always finds a place); full has one
 * place, held by one admitted user for the whole run, so queued tickets stay "too early" for minutes.
 */
export function benchRoomOptions(open, secret, coordinator) {
  const everyone = 10_000_000
  return {
    secret,
    totalActiveUsers: open ? everyone : 1,
    newUsersPerMinute: open ? everyone : 1,
    sessionDurationMinutes: open ? 5 : 30,
    refreshIntervalSeconds: open ? 20 : 300,
    queueingStatusCode: 202,
    coordinator,
  }
}

/**
 * CPU µs per request of each case (`cases`: names; `run(name, n)` runs n requests of it), after a warm-up of
 * `warm` requests each, over `rounds` rounds in alternating order (A B … then … B A) so drift cancels out.
 */
export async function alternatingCpu(cases, run, { rounds, requests, warm }) {
  const cpu = () => {
    const { user, system } = process.cpuUsage()
    return user + system
  }
  const times = Object.fromEntries(cases.map((c) => [c, []]))
  for (const c of cases) await run(c, warm)
  for (let r = 0; r < rounds; r++) {
    for (const c of r % 2 ? [...cases].reverse() : cases) {
      const started = cpu()
      await run(c, requests)
      times[c].push((cpu() - started) / requests)
    }
  }
  return times
}
