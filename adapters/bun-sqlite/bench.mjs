// Decisions per second of the SQLite coordinator, in one process and in several on one file, next to
// the bare statement every decision is built around (`INSERT … ON CONFLICT DO UPDATE … RETURNING`,
// autocommit) on the same kind of file in the same run. Prints figures; asserts nothing.
//
//   node adapters/bun-sqlite/bench.mjs [--processes 4] [--ms 2000]     (better-sqlite3)
//   node_modules/.bin/bun adapters/bun-sqlite/bench.mjs [...]          (bun:sqlite)
//
// A decision is the fused `takeSlot` a new user costs: one BEGIN IMMEDIATE transaction that looks the
// ticket up, takes a slot from the location counter, remembers the ticket and counts the admission in
// the location's state. Every process decides
// for the same room and location, so they all contend for the same row: the worst case.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { adapter, openDatabase, runtime } from './test/load-adapter.mjs'

const MINUTE = 29_405_520

const flag = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}
/** Calls in flight per process: a server deciding for this many new users at once. */
const IN_FLIGHT = flag('in-flight', 16)

/** Runs `kind` on `file` for `ms` and returns how many operations ran and how many of them failed. */
async function measure(kind, file, ms) {
  const db = openDatabase(file)
  const coordinator = adapter.sqliteCoordinator(db)
  // The coordinator sets a busy timeout of 0 (it retries asynchronously); the bare statement, which has no
  // retry, gets SQLite's own busy wait back, as an app would use it.
  if (kind === 'bare') db.exec('PRAGMA busy_timeout = 50')
  const upsert = db.prepare(
    `INSERT INTO bare_counters (minute, room, scope, count) VALUES (?, ?, ?, 1)
     ON CONFLICT (minute, room, scope) DO UPDATE SET count = count + 1 RETURNING count`,
  )
  const prefix = `${process.pid}-`
  let done = 0
  let failed = 0
  const latencies = []
  const deadline = performance.now() + ms
  const oneCaller = async () => {
    while (performance.now() < deadline) {
      if (kind === 'bare') {
        try {
          upsert.get(MINUTE, 'bench', 'host')
        } catch {
          failed++ // SQLITE_BUSY after the busy timeout: the bare statement has no retry
        }
        // Yield like an awaited call does, so the comparison is statement against transaction, not against a tight loop.
        await null
      } else {
        const started = performance.now()
        const slot = await coordinator
          .takeSlot({ roomId: 'bench', location: 'host', minute: MINUTE, localLimit: 1e12, anywhereLimit: 0, token: prefix + done })
          .catch(() => undefined)
        if (!slot?.admitted) failed++
        latencies.push(Math.round((performance.now() - started) * 100) / 100)
      }
      done++
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, oneCaller))
  db.close()
  return { done, failed, latencies: sample(latencies) }
}

/** Up to 2,000 evenly spaced values, so children can send theirs back on one line. */
const sample = (values) => values.filter((_, i) => i % Math.max(1, Math.floor(values.length / 2000)) === 0)

const percentile = (values, p) => {
  if (values.length === 0) return '–'
  const sorted = [...values].sort((a, b) => a - b)
  return Number(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(2))
}

function prepareFile(file) {
  const db = openDatabase(file)
  adapter.sqliteCoordinator(db) // WAL and the adapter's tables
  db.exec('CREATE TABLE IF NOT EXISTS bare_counters (minute INTEGER, room TEXT, scope TEXT, count INTEGER, PRIMARY KEY (minute, room, scope)) WITHOUT ROWID')
  db.close()
}

/** Starts `processes` copies of this script on one file, releases them together, sums their counts. */
async function inProcesses(kind, file, processes, ms) {
  const self = fileURLToPath(import.meta.url)
  const children = Array.from({ length: processes }, () => {
    const child = spawn(process.execPath, [self, 'child', kind, file, String(ms), '--in-flight', String(IN_FLIGHT)], { stdio: ['pipe', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk))
    const line = (prefix) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const start = out.indexOf(prefix)
          const end = start === -1 ? -1 : out.indexOf('\n', start)
          if (end !== -1) resolve(out.slice(start + prefix.length, end))
        }
        child.stdout.on('data', check)
        child.on('exit', () => (check(), reject(new Error(`bench child exited: ${out}`))))
        check()
      })
    return { child, line }
  })
  await Promise.all(children.map((c) => c.line('ready')))
  for (const { child } of children) child.stdin.end('go\n')
  const results = await Promise.all(children.map(async (c) => JSON.parse(await c.line('result '))))
  return results.reduce(
    (sum, r) => ({ done: sum.done + r.done, failed: sum.failed + r.failed, latencies: [...sum.latencies, ...r.latencies] }),
    { done: 0, failed: 0, latencies: [] },
  )
}

if (process.argv[2] === 'child') {
  const [, , , kind, file, ms] = process.argv
  process.stdout.write('ready\n')
  await new Promise((resolve) => process.stdin.once('data', resolve))
  process.stdout.write(`result ${JSON.stringify(await measure(kind, file, Number(ms)))}\n`)
  process.exit(0)
} else {
  const processes = flag('processes', 4)
  const ms = flag('ms', 2000)
  const dir = mkdtempSync(join(tmpdir(), 'wr-sqlite-bench-'))
  const rows = []
  try {
    for (const [label, count] of [['1 process', 1], [`${processes} processes`, processes]]) {
      for (const kind of ['takeSlot', 'bare']) {
        const file = join(dir, `${kind}-${count}.db`)
        prepareFile(file)
        const { done, failed, latencies } = count === 1 ? await measure(kind, file, ms) : await inProcesses(kind, file, count, ms)
        rows.push({
          runtime,
          processes: label,
          operation: kind === 'bare' ? 'bare UPSERT … RETURNING' : 'takeSlot (decision)',
          perSecond: Math.round(((done - failed) / ms) * 1000),
          perProcess: Math.round(((done - failed) / ms / count) * 1000),
          'p50 ms': percentile(latencies, 0.5),
          'p99 ms': percentile(latencies, 0.99),
          failed,
        })
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  console.log(
    `bun-sqlite bench on ${runtime} ${runtime === 'bun' ? globalThis.Bun.version : process.version}, ${ms} ms per figure, ${IN_FLIGHT} calls in flight per process, ` +
      `${availableParallelism()} cores, load average ${loadavg()[0].toFixed(1)}`,
  )
  console.table(rows)
  console.log('failed: decisions that ended in ERR_WR_COORDINATOR; bare statements that threw SQLITE_BUSY (they have no retry).')
}
