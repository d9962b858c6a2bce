// Each adapter's decisions per second next to its backend's bare operation with the same client, and round
// trips per new-user decision. The memory adapter is measured here (bench/adapter-memory.mjs); the others
// have their own bench scripts, written by their authors, run as child processes with a time bound. A
// script that prints a `BENCH_RESULT {json}` line (the shape bench/README.md asks for) is read from that
// line; until then its printed tables are parsed. A missing script or runtime is "not measured".
import { existsSync } from 'node:fs'
import { connect } from 'node:net'
import { benchDir, parseResult, root, round, runBounded } from './lib.mjs'

// Bun and Deno are installed in test/runtimes/ (npm run test:runtimes), not the root.
const bin = (name) => `${root}test/runtimes/node_modules/.bin/${name}`

/** The scripts, how to run them and how to read what they print. */
export const ADAPTER_BENCHES = [
  {
    adapter: 'memory',
    script: 'bench/adapter-memory.mjs',
    command: () => [process.execPath, [`${benchDir}adapter-memory.mjs`]],
    timeoutMs: 60_000,
  },
  {
    adapter: 'deno-kv',
    runtime: 'deno',
    script: 'adapters/deno-kv/bench.ts',
    needs: [bin('deno')],
    command: (quick) => [bin('deno'), ['run', '-A', 'adapters/deno-kv/bench.ts', quick ? '300' : '1000']],
    timeoutMs: 120_000,
    parse: parseDenoKv,
  },
  {
    adapter: 'bun-sqlite',
    runtime: 'node (better-sqlite3)',
    script: 'adapters/bun-sqlite/bench.mjs',
    command: (quick) => [process.execPath, ['adapters/bun-sqlite/bench.mjs', '--ms', quick ? '300' : '1000']],
    timeoutMs: 180_000, // 3 rounds of 3 kinds in 3 setups (#16: against a bare transaction too)
    parse: parseSqlite,
  },
  {
    adapter: 'bun-sqlite',
    runtime: 'bun (bun:sqlite)',
    script: 'adapters/bun-sqlite/bench.mjs',
    needs: [bin('bun')],
    command: (quick) => [bin('bun'), ['adapters/bun-sqlite/bench.mjs', '--ms', quick ? '300' : '1000']],
    timeoutMs: 180_000, // 3 rounds of 3 kinds in 3 setups (#16: against a bare transaction too)
    parse: parseSqlite,
  },
  {
    adapter: 'upstash',
    runtime: 'node (Redis 127.0.0.1:6379)',
    script: 'adapters/upstash/bench.mjs',
    needsRedis: true,
    command: (quick) => [process.execPath, ['adapters/upstash/bench.mjs', quick ? '1000' : '5000', '64']],
    timeoutMs: 150_000,
    parse: parseUpstash,
  },
  {
    adapter: 'cloudflare',
    runtime: 'miniflare (workerd)',
    script: 'adapters/cloudflare/bench.mjs',
    command: (quick) => [process.execPath, ['adapters/cloudflare/bench.mjs', quick ? '50' : '200']],
    timeoutMs: 150_000,
    parse: parseCloudflare,
  },
]

/** The script's file: the named one, or any `bench.*` beside it (a script may change its extension). */
function scriptOf(entry) {
  if (existsSync(`${root}${entry.script}`)) return entry.script
  return undefined
}

const redisAnswers = () =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: 6379 })
    const done = (ok) => (socket.destroy(), resolve(ok))
    socket.setTimeout(1000, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => {
      socket.write('PING\r\n')
      socket.once('data', (data) => done(String(data).startsWith('+PONG')))
    })
  })

/** Runs every adapter bench; resolves with one entry per (adapter, runtime). */
export async function runAdapters({ quick = false, log = console.log } = {}) {
  const out = []
  for (const entry of ADAPTER_BENCHES) {
    const base = { adapter: entry.adapter, runtime: entry.runtime, script: entry.script }
    const script = scriptOf(entry)
    if (!script) {
      out.push({ ...base, measured: false, reason: `${entry.script} does not exist yet` })
      log(`  ${entry.adapter}: not measured (no ${entry.script})`)
      continue
    }
    const missing = (entry.needs ?? []).find((path) => !existsSync(path))
    if (missing) {
      out.push({ ...base, measured: false, reason: `${missing} is not installed` })
      continue
    }
    if (entry.needsRedis && !(await redisAnswers())) {
      out.push({ ...base, measured: false, reason: 'no Redis answers on 127.0.0.1:6379 (bash test/support/ensure-redis.sh starts one)' })
      log(`  ${entry.adapter}: not measured (no Redis)`)
      continue
    }
    const [command, args] = entry.command(quick)
    const run = await runBounded(command, args, { timeoutMs: entry.timeoutMs })
    const tail = (run.stdout + run.stderr).trim().split('\n').slice(-12).join('\n')
    let parsed
    let parseError
    try {
      parsed = parseResult(run.stdout) ?? (entry.parse ? entry.parse(run.stdout) : undefined)
    } catch (error) {
      parseError = String(error.message ?? error)
    }
    const ok = !run.timedOut && run.code === 0 && parsed && parsed.rows?.length > 0
    out.push({
      ...base,
      runtime: parsed?.runtime ?? entry.runtime,
      measured: Boolean(ok),
      reason: ok ? undefined : run.timedOut ? `timed out after ${entry.timeoutMs / 1000} s` : run.code !== 0 ? `exited with ${run.code}` : `output not understood${parseError ? `: ${parseError}` : ''}`,
      seconds: round(run.seconds, 1),
      machineReadable: parseResult(run.stdout) !== undefined,
      ...parsed,
      output: ok ? undefined : tail,
    })
    log(`  ${entry.adapter} (${entry.runtime ?? 'node'}): ${ok ? `${parsed.rows.length} rows` : 'not measured'} in ${round(run.seconds, 1)} s`)
  }
  return out
}

// Parsers for what the scripts print today. Each returns { rows: [{ client, decisionsPerSecond, bareOp,
// barePerSecond, ratio, roundTripsPerDecision? }], roundTripsPerDecision? }.

const number = (text) => Number(String(text).replace(/[,'\s]/g, '').replace(/[^\d.eE+-].*$/, ''))

/** deno-kv: "Deno KV in memory, …" sections of "  name   12,345 /s" lines. */
export function parseDenoKv(stdout) {
  const rows = []
  let section
  const figures = new Map()
  for (const line of stdout.split('\n')) {
    const header = line.match(/^Deno KV (.+?),/)
    if (header) section = header[1]
    const row = line.match(/^\s+(.+?)\s{2,}([\d,]+) \/s\s*$/)
    if (row && section) figures.set(`${section}|${row[1].trim()}`, number(row[2]))
  }
  for (const key of figures.keys()) {
    const [where, name] = key.split('|')
    const match = name.match(/^adapter decisions \(slot taken\), (\d+) in flight$/)
    if (!match) continue
    const bare = figures.get(`${where}|bare atomic().sum(), ${match[1]} in flight`)
    const decisions = figures.get(key)
    rows.push({ client: `KV ${where}, ${match[1]} in flight`, decisionsPerSecond: decisions, bareOp: 'atomic().sum().commit()', barePerSecond: bare, ratio: bare ? round(decisions / bare, 3) : undefined })
  }
  return { rows, roundTripsPerDecision: undefined, roundTripsNote: 'not printed by the script' }
}

/** A console.table (Node's or Bun's) as objects, quotes stripped. */
export function parseConsoleTable(stdout) {
  const lines = stdout.split('\n').filter((line) => line.startsWith('│'))
  if (lines.length < 2) return []
  const cells = (line) => line.split('│').slice(1, -1).map((cell) => cell.trim().replace(/^'(.*)'$/, '$1'))
  const header = cells(lines[0])
  return lines.slice(1).map((line) => Object.fromEntries(cells(line).map((value, i) => [header[i], value])))
}

/** bun-sqlite: a table of runtime, processes, operation, perSecond, … */
export function parseSqlite(stdout) {
  const table = parseConsoleTable(stdout)
  const rows = []
  for (const decision of table.filter((r) => /takeSlot/.test(r.operation ?? ''))) {
    const bare = table.find((r) => r.processes === decision.processes && /bare/.test(r.operation ?? ''))
    const d = number(decision.perSecond)
    const b = bare ? number(bare.perSecond) : undefined
    rows.push({ client: `${decision.runtime}, ${decision.processes}, one file`, decisionsPerSecond: d, bareOp: bare?.operation ?? 'bare UPSERT', barePerSecond: b, ratio: b ? round(d / b, 3) : undefined, p50Ms: number(decision['p50 ms']), p99Ms: number(decision['p99 ms']) })
  }
  const runtime = table[0]?.runtime
  return { rows, runtime: runtime ? `${runtime} (${runtime === 'bun' ? 'bun:sqlite' : 'better-sqlite3'})` : undefined, roundTripsPerDecision: 1, roundTripsNote: 'one BEGIN IMMEDIATE transaction per decision (the script\'s description; not counted)' }
}

/** Redis µs per EVALSHA of each decision path ("Redis µs/EVALSHA, no slot  2.10  (mget 1.00, …)"), by path. */
function pathMicros(values) {
  const paths = {}
  for (const [key, value] of Object.entries(values)) {
    const path = key.match(/^Redis µs\/EVALSHA, (.+)$/)?.[1]
    if (path && path !== 'empty script') paths[path] = number(value)
  }
  return Object.keys(paths).length ? paths : undefined
}

/** upstash: per client, "  key   value" lines after the client's name. */
export function parseUpstash(stdout) {
  const rows = []
  let current
  for (const line of stdout.split('\n')) {
    if (/^\S/.test(line) && !/^\d|^node |^\(cleaned/.test(line)) {
      current = { client: line.trim(), values: {} }
      rows.push(current)
    } else if (current && /^\s{2}\S/.test(line)) {
      const match = line.match(/^\s+(\S.*?)\s{2,}(\S+)/)
      if (match) current.values[match[1].trim()] = match[2]
    }
  }
  const out = rows
    .filter((r) => r.values['decisions/s'])
    .map((r) => {
      const d = number(r.values['decisions/s'])
      const b = number(r.values['INCR/s'])
      return {
        client: r.client,
        decisionsPerSecond: d,
        bareOp: 'INCR',
        barePerSecond: b,
        ratio: round(d / b, 3),
        roundTripsPerDecision: number(r.values['round trips/decision']),
        p50Ms: number(r.values['decision p50 ms']),
        bareP50Ms: number(r.values['INCR p50 ms']),
        serverMicrosPerDecision: number(r.values['Redis µs/EVALSHA']),
        serverMicrosPerBareOp: number(r.values['Redis µs/INCR']),
        ...(pathMicros(r.values) ? { serverMicrosByPath: pathMicros(r.values) } : {}),
      }
    })
  const trips = out.map((r) => r.roundTripsPerDecision).filter((x) => Number.isFinite(x))
  return { rows: out, roundTripsPerDecision: trips.length ? Math.max(...trips) : undefined }
}

/**
 * Counter calls per request from the script's "0.10 sync, 1.00 increment" cell: the decision's round trips
 * are its counter calls (takeSlot, increment); sync and exchange are the background report.
 */
export function counterCalls(cell) {
  let sum
  for (const [, n, method] of String(cell ?? '').matchAll(/([\d.]+)\s+(\w+)/g)) if (method === 'takeSlot' || method === 'increment') sum = (sum ?? 0) + Number(n)
  return sum === undefined ? (String(cell).trim() === '0' ? 0 : undefined) : round(sum, 2)
}

/** cloudflare: latency per case, one request at a time; rates are 1000 / median ms. */
export function parseCloudflare(stdout) {
  const table = parseConsoleTable(stdout)
  const bare = table.find((r) => /bare/.test(r.case ?? ''))
  const bareMs = bare ? number(bare.median) : undefined
  const rows = table
    .filter((r) => /new user/.test(r.case ?? ''))
    .map((r) => {
      const ms = number(r.median)
      const trips = counterCalls(r['object calls / request'])
      return {
        client: `${r.case} (sequential requests)`,
        decisionsPerSecond: round(1000 / ms, 0),
        bareOp: 'bare Worker request (dispatchFetch)',
        barePerSecond: bareMs ? round(1000 / bareMs, 0) : undefined,
        ratio: bareMs ? round(bareMs / ms, 3) : undefined,
        p50Ms: ms,
        bareP50Ms: bareMs,
        roundTripsPerDecision: trips,
        calls: r['object calls / request'],
      }
    })
  const trips = rows.map((r) => r.roundTripsPerDecision).filter((x) => Number.isFinite(x))
  return { rows, roundTripsPerDecision: trips.length ? Math.max(...trips) : undefined, note: 'whole Worker requests through miniflare, not bare backend operations' }
}
