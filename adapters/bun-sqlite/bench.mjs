// Decisions per second of the SQLite coordinator, in one process and in several on one file, next to
// a bare transaction doing the same writes (#16: BEGIN IMMEDIATE, the counter's UPSERT … RETURNING, the
// ticket's INSERT, the two admission UPSERTs, COMMIT: prepared once, no reads, no queue) and the bare statement
// every decision is built around (`INSERT … ON CONFLICT DO UPDATE … RETURNING`, autocommit), on the same kind
// of file in the same run, with the process's CPU time per operation (process.cpuUsage: steadier than rates on
// a busy machine). Prints figures; asserts nothing.
//
//   node adapters/bun-sqlite/bench.mjs [--processes 4] [--ms 2000]     (better-sqlite3)
//   node_modules/.bin/bun adapters/bun-sqlite/bench.mjs [...]          (bun:sqlite)
//   … --cases 1 --rounds 7                                             (only one decision at a time, more rounds)
//   … --interleaved 16     (CPU per op of decisions and bare transactions in alternating blocks, one process: load-robust)
//   … --interleaved 16 --before /other/checkout/adapters/bun-sqlite/index.ts   (that version's decisions too, same blocks: an A/B)
//   BENCH_ADAPTER=/other/checkout/adapters/bun-sqlite/index.ts …       (another version, measured the same way)
//
// A decision is the fused `takeSlot` a new user costs: one BEGIN IMMEDIATE transaction that looks the
// ticket up, takes a slot from the location counter, remembers the ticket and counts the admission in
// the location's state. Every process decides
// for the same room and location, so they all contend for the same row: the worst case.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { adapter, openDatabase, runtime } from './test/load-adapter.mjs'

const MINUTE = 29_405_520

const flag = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}
/** Calls in flight per process: a server deciding for this many new users at once. */
const IN_FLIGHT = flag('in-flight', 16)

/** Runs `kind` on `file` for `ms` and returns how many operations ran and how many of them failed. */
async function measure(kind, file, ms, inFlight = IN_FLIGHT) {
  const db = openDatabase(file)
  const coordinator = kind === 'takeSlot' ? adapter.sqliteCoordinator(db) : undefined
  const seen = coordinator ? await knownState(coordinator) : undefined
  // The coordinator sets a busy timeout of 0 (it retries asynchronously); the bare statements, which have no
  // retry, get SQLite's own busy wait back, as an app would use it, and the coordinator's default durability.
  if (kind !== 'takeSlot') db.exec('PRAGMA busy_timeout = 50; PRAGMA synchronous = NORMAL')
  const bareTransaction = kind === 'transaction' ? sameWrites(db) : undefined
  const upsert = db.prepare(
    `INSERT INTO bare_counters (minute, room, scope, count) VALUES (?, ?, ?, 1)
     ON CONFLICT (minute, room, scope) DO UPDATE SET count = count + 1 RETURNING count`,
  )
  const prefix = `${process.pid}-`
  let done = 0
  let failed = 0
  let next = 0 // a fresh ticket per call: callers resume out of order after their await
  const latencies = []
  const deadline = performance.now() + ms
  const cpuBefore = process.cpuUsage()
  const oneCaller = async () => {
    while (performance.now() < deadline) {
      if (kind === 'transaction') {
        try {
          bareTransaction(prefix + next++)
        } catch {
          failed++
        }
        await null
      } else if (kind === 'bare') {
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
          .takeSlot(slotRequest(prefix + next++, seen))
          .catch(() => undefined)
        if (!slot?.admitted) failed++
        latencies.push(Math.round((performance.now() - started) * 100) / 100)
      }
      done++
    }
  }
  await Promise.all(Array.from({ length: inFlight }, oneCaller))
  const cpu = process.cpuUsage(cpuBefore)
  db.close()
  return { done, failed, latencies: sample(latencies), cpuMicros: cpu.user + cpu.system }
}

/**
 * The state a worker knows after its first sync, which the core sends with every decision (decide.ts: the grant
 * step compares it with the stored epoch and generation, #14).
 */
async function knownState(coordinator) {
  const state = await coordinator.sync({ id: `bench-${process.pid}-${Math.random()}`, roomId: 'bench', location: 'host', at: MINUTE * 60_000, keepMinutes: 30, deltas: {} })
  return { epoch: state.epoch.id, generation: state.generation }
}

/**
 * A new user's decision as the core asks for it (src/room/pipeline/decide.ts): both limits and both previous-reported
 * values set, the recovery window of `failMode: 'closed'` (a 30-minute session), the state the worker knows. The
 * location counter has room, so every call is a location grant: the writes of {@link sameWrites}.
 */
const slotRequest = (token, seen) => ({
  roomId: 'bench', location: 'host', minute: MINUTE, localLimit: 1e12, anywhereLimit: 1e12, localPreviousReported: 0, anywherePreviousReported: 0,
  token, recoveryMinutes: 31, ...seen,
})

/**
 * A location grant's writes as one bare transaction (rows.ts `takeCounter` and `addDeltas`, schema.ts):
 * the counter's conditional UPSERT, the ticket, the admission's `a{m}` and `n{m}`.
 */
function sameWrites(db) {
  const take = db.prepare(
    `INSERT INTO bare_counters (minute, room, scope, count) VALUES (?, ?, ?, 1)
     ON CONFLICT (minute, room, scope) DO UPDATE SET count = count + 1 WHERE count < ? RETURNING count - 1 AS seq`,
  )
  const remember = db.prepare('INSERT INTO bare_tokens (minute, room, scope, token, seq) VALUES (?, ?, ?, ?, ?)')
  const add = db.prepare(
    `INSERT INTO bare_state (room, location, field, minute, value) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (room, location, field) DO UPDATE SET value = value + excluded.value`,
  )
  const run = db.transaction((token) => {
    const { seq } = take.get(MINUTE, 'bench', 'host', 1e12)
    remember.run(MINUTE, 'bench', 'host', token, seq)
    add.run('bench', 'host', `a${MINUTE}`, MINUTE, 1)
    add.run('bench', 'host', `n${MINUTE}`, MINUTE, 1)
  })
  return (token) => run.immediate(token)
}

/**
 * CPU per operation of decisions and of the bare transaction in alternating blocks of `block` on one file, in one
 * process (`--interleaved ROUNDS`): a busy machine slows both alike, where separate 1 s runs swing 2× on it.
 * Answers the bare transaction's CPU per op over the decision's, summed over the rounds. With `before` (another
 * version's module), its decisions run in the same rotation on their own connection: before against after.
 */
async function interleaved(file, block, rounds, before) {
  const coordinators = { takeSlot: adapter.sqliteCoordinator(openDatabase(file)) }
  if (before) coordinators.before = before.sqliteCoordinator(openDatabase(file))
  const seen = {}
  for (const kind in coordinators) seen[kind] = await knownState(coordinators[kind])
  const bareDb = openDatabase(file)
  bareDb.exec('PRAGMA busy_timeout = 50; PRAGMA synchronous = NORMAL')
  const bareTransaction = sameWrites(bareDb)
  let next = 0
  const kinds = ['takeSlot', 'transaction', ...(before ? ['before'] : [])]
  const cpu = Object.fromEntries(kinds.map((kind) => [kind, 0]))
  const run = async (kind) => {
    const started = process.cpuUsage()
    for (let i = 0; i < block; i++) {
      if (kind === 'transaction') (bareTransaction(`i${next++}`), await null)
      else await coordinators[kind].takeSlot(slotRequest(`i${next++}`, seen[kind]))
    }
    const used = process.cpuUsage(started)
    return used.user + used.system
  }
  for (let round = 0; round < 4; round++) for (const kind of kinds) await run(kind) // warm-up
  for (let round = 0; round < rounds; round++) {
    // Each kind takes each place in the rotation equally often, so a slow spell of the machine falls on all alike.
    const order = kinds.map((_, i) => kinds[(i + round) % kinds.length])
    for (const kind of round % 2 ? order.reverse() : order) cpu[kind] += await run(kind)
  }
  for (const coordinator of Object.values(coordinators)) coordinator.close()
  bareDb.close()
  const perOp = (kind) => cpu[kind] / block / rounds
  return {
    decision: perOp('takeSlot'), transaction: perOp('transaction'), ratio: cpu.transaction / cpu.takeSlot,
    ...(before ? { before: perOp('before'), beforeRatio: cpu.transaction / cpu.before } : {}),
  }
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
  db.exec('CREATE TABLE IF NOT EXISTS bare_tokens (minute INTEGER, room TEXT, scope TEXT, token TEXT, seq INTEGER, PRIMARY KEY (minute, room, scope, token)) WITHOUT ROWID')
  db.exec('CREATE TABLE IF NOT EXISTS bare_state (room TEXT, location TEXT, field TEXT, minute INTEGER, value INTEGER, PRIMARY KEY (room, location, field)) WITHOUT ROWID')
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
    (sum, r) => ({ done: sum.done + r.done, failed: sum.failed + r.failed, latencies: [...sum.latencies, ...r.latencies], cpuMicros: sum.cpuMicros + r.cpuMicros }),
    { done: 0, failed: 0, latencies: [], cpuMicros: 0 },
  )
}

if (process.argv[2] === 'child') {
  const [, , , kind, file, ms] = process.argv
  process.stdout.write('ready\n')
  await new Promise((resolve) => process.stdin.once('data', resolve))
  process.stdout.write(`result ${JSON.stringify(await measure(kind, file, Number(ms)))}\n`)
  process.exit(0)
} else if (flag('interleaved', 0) > 0) {
  const dir = mkdtempSync(join(tmpdir(), 'wr-sqlite-bench-'))
  try {
    const file = join(dir, 'interleaved.db')
    prepareFile(file)
    const at = process.argv.indexOf('--before')
    const before = at === -1 ? undefined : await import(pathToFileURL(resolve(process.argv[at + 1])).href)
    const r = await interleaved(file, 500, flag('interleaved', 0), before)
    console.log(
      `bun-sqlite on ${runtime}, one decision at a time, blocks of 500 alternating with the bare transaction, load average ${loadavg()[0].toFixed(1)}: ` +
        `CPU µs/op decision ${r.decision.toFixed(1)}, bare transaction ${r.transaction.toFixed(1)}: ${r.ratio.toFixed(3)}×` +
        (before ? `; --before: decision ${r.before.toFixed(1)}: ${r.beforeRatio.toFixed(3)}×` : ''),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
} else {
  const processes = flag('processes', 4)
  const ms = flag('ms', 2000)
  const rounds = flag('rounds', 3)
  const dir = mkdtempSync(join(tmpdir(), 'wr-sqlite-bench-'))
  const OPERATIONS = { takeSlot: 'takeSlot (decision)', transaction: 'bare transaction, same writes', bare: 'bare UPSERT … RETURNING' }
  const rows = []
  const ratios = []
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  try {
    const all = [['1 process, 1 in flight', 1, 1], [`1 process, ${IN_FLIGHT} in flight`, 1, IN_FLIGHT], [`${processes} processes`, processes, IN_FLIGHT]]
    const cases = all.slice(0, flag('cases', all.length)) // `--cases 1`: one decision at a time only (#16's target)
    for (const [label, count, inFlight] of cases) {
      const runs = { takeSlot: [], transaction: [], bare: [] }
      // Rounds alternate the order of the kinds, each on a fresh file, so a busy machine slows them alike.
      for (let round = 0; round < rounds; round++) {
        const kinds = round % 2 ? ['bare', 'transaction', 'takeSlot'] : ['takeSlot', 'transaction', 'bare']
        for (const kind of kinds) {
          const file = join(dir, `${kind}-${count}-${inFlight}-${round}.db`)
          prepareFile(file)
          runs[kind].push(count === 1 ? await measure(kind, file, ms, inFlight) : await inProcesses(kind, file, count, ms))
        }
      }
      const rate = (run) => ((run.done - run.failed) / ms) * 1000
      for (const kind of Object.keys(OPERATIONS)) {
        const perSecond = median(runs[kind].map(rate))
        const latencies = runs[kind].flatMap((run) => run.latencies)
        rows.push({
          runtime,
          processes: label,
          operation: OPERATIONS[kind],
          perSecond: Math.round(perSecond),
          perProcess: Math.round(perSecond / count),
          'CPU µs/op': count === 1 ? Number(median(runs[kind].map((run) => run.cpuMicros / run.done)).toFixed(1)) : '–',
          'p50 ms': percentile(latencies, 0.5),
          'p99 ms': percentile(latencies, 0.99),
          failed: runs[kind].reduce((sum, run) => sum + run.failed, 0),
        })
      }
      const perRound = runs.takeSlot.map((run, i) => rate(run) / rate(runs.transaction[i]))
      const cpuPerRound = count === 1 ? runs.takeSlot.map((run, i) => runs.transaction[i].cpuMicros / runs.transaction[i].done / (run.cpuMicros / run.done)) : undefined
      ratios.push({
        client: `${runtime}, ${label}, one file`,
        decisionsPerSecond: Math.round(median(runs.takeSlot.map(rate))),
        bareOp: 'bare transaction doing the same writes',
        barePerSecond: Math.round(median(runs.transaction.map(rate))),
        ratio: Number(median(perRound).toFixed(3)),
        ratioRounds: perRound.map((r) => Number(r.toFixed(3))),
        ...(cpuPerRound ? { cpuRatio: Number(median(cpuPerRound).toFixed(3)) } : {}),
      })
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  console.log(
    `bun-sqlite bench on ${runtime} ${runtime === 'bun' ? globalThis.Bun.version : process.version}, ${ms} ms per figure, median of ${rounds} rounds, ` +
      `${availableParallelism()} cores, load average ${loadavg()[0].toFixed(1)}`,
  )
  console.table(rows)
  console.log('failed: decisions that ended in ERR_WR_COORDINATOR; bare statements that threw SQLITE_BUSY (they have no retry).')
  console.log('decision / bare transaction (rate; CPU: the transaction\'s CPU per op over the decision\'s):')
  for (const r of ratios) console.log(`  ${r.client}: ${r.ratio}× (rounds ${r.ratioRounds.join(', ')})${r.cpuRatio ? `, CPU ${r.cpuRatio}×` : ''}`)
  const result = { adapter: 'bun-sqlite', runtime: `${runtime} (${runtime === 'bun' ? 'bun:sqlite' : 'better-sqlite3'})`, rows: ratios, roundTripsPerDecision: 1, roundTripsNote: 'one BEGIN IMMEDIATE transaction per decision (calls waiting together share one)' }
  console.log(`BENCH_RESULT ${JSON.stringify(result)}`)
}
