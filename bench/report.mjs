// The Markdown report and the overhead chart, from the results object bench/run.mjs collects. Longer than 250
// lines because it renders every section of the report in one place (the flood-path and proxy tables are in
// report-runtimes.mjs).
import { barChart } from './svg.mjs'
import { median, round } from './lib.mjs'
import { formatProxy, formatRuntimes, proxyTargets, runtimeTargets } from './report-runtimes.mjs'

const fmt = (value, digits = 2) => (value === undefined || value === null || Number.isNaN(value) ? '–' : Number(value).toFixed(digits))
const int = (value) => (value === undefined || value === null || Number.isNaN(value) ? '–' : Math.round(value).toLocaleString('en-US'))
const pct = (ratio) => `${Math.round(Math.abs(1 - ratio) * 100)}%`
const table = (header, rows) => [`| ${header.join(' | ')} |`, `| ${header.map((h) => (/^[^a-z]*\d|×|\/s|µs|ms|MB|%/.test(h) ? '---:' : '---')).join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n')
const byId = (http, id) => http?.results?.find((r) => r.id === id)

/** A note when a target lies between the lowest and the highest round: the verdict is within the noise. */
const straddle = (rounds, threshold) =>
  rounds.length > 1 && Math.min(...rounds) < threshold && Math.max(...rounds) >= threshold ? 'rounds straddle the target: within this run\'s noise' : undefined

/** Targets of issues 9 and 16, each with what was measured and whether it was met. */
export function evaluateTargets(results) {
  const http = results.http
  const targets = []
  for (const v of runtimeTargets(results.runtimes)) {
    const name = { node: 'Node', bun: 'Bun', deno: 'Deno' }[v.runtime] ?? v.runtime
    targets.push({
      target: `${name}: ${v.target}`,
      measured: `**${fmt(v.value)}×** req/s (median of rounds ${v.rounds.map((x) => fmt(x)).join(', ')})`,
      met: v.met,
      miss: v.met ? undefined : `${Math.round((1 - v.value / v.at) * 100)}% below the target`,
      note: straddle(v.rounds, v.at),
    })
  }
  targets.push(...proxyTargets(results.proxy, straddle))
  const admitted = byId(http, 'admitted')
  const empty = byId(http, 'empty')
  const fresh = byId(http, 'new')
  /** A target on a ratio of the alternating runs (median of the rounds), with the CPU-per-request ratio beside it. */
  const ratioTarget = (label, threshold, sequential) => {
    if (!sequential) return
    const value = sequential.value
    const rounds = sequential.rounds
    const parts = [`**${fmt(value)}×** req/s (median of rounds ${rounds.map((x) => fmt(x)).join(', ')})`]
    if (sequential.cpu !== undefined) parts.push(`by server CPU per request ${fmt(sequential.cpu)}×${sequential.cpuRounds ? ` (rounds ${sequential.cpuRounds.map((x) => fmt(x)).join(', ')})` : ''}`)
    targets.push({
      target: label,
      measured: parts.join('; '),
      met: value >= threshold,
      miss: value < threshold ? `${Math.round((1 - value / threshold) * 100)}% below the target (${fmt(threshold / value, 2)}× too slow)` : undefined,
      note: straddle(rounds, threshold),
    })
  }
  if (admitted) {
    ratioTarget('admitted path ≥ 0.75× bare Hono req/s', 0.75, { value: admitted.ratioToBaseline, rounds: admitted.ratiosPerRound, cpu: 1 / admitted.cpuRatioToBaseline, cpuRounds: admitted.cpuRatiosPerRound?.map((x) => 1 / x) })
    const vsEmpty = empty ? admitted.runs.map((run, i) => run.requestsPerSecond / empty.runs[i].requestsPerSecond) : []
    const cpuVsEmpty = empty ? admitted.runs.map((run, i) => empty.runs[i].serverCpuMicrosPerRequest / run.serverCpuMicrosPerRequest) : []
    ratioTarget('admitted path within 12% of an empty middleware (≥ 0.88× its req/s)', 0.88, empty ? { value: median(vsEmpty), rounds: vsEmpty, cpu: median(cpuVsEmpty), cpuRounds: cpuVsEmpty } : undefined)
    const calls = admitted.perRequest
    targets.push({ target: 'no coordinator call, no cryptography on a repeat request', measured: `${fmt(calls.coordinatorCalls, 4)} coordinator calls and ${fmt(calls.cryptoCalls, 4)} Web Crypto calls per request (${admitted.requests.toLocaleString('en-US')} requests)`, met: calls.coordinatorCalls === 0 && calls.cryptoCalls === 0 })
  }
  if (fresh) ratioTarget('new users under the limit ≥ 0.25× bare', 0.25, { value: fresh.ratioToBaseline, rounds: fresh.ratiosPerRound, cpu: 1 / fresh.cpuRatioToBaseline, cpuRounds: fresh.cpuRatiosPerRound?.map((x) => 1 / x) })
  for (const a of results.adapters ?? []) {
    const name = `${a.adapter}${a.runtime ? ` (${a.runtime})` : ''}`
    if (!a.measured) {
      targets.push({ target: `${name}: decisions ≥ 80% of bare backend op`, measured: `not measured: ${a.reason}`, met: undefined })
      continue
    }
    const rows = a.rows.filter((r) => Number.isFinite(r.ratio))
    const worst = rows.reduce((w, r) => (w === undefined || r.ratio < w.ratio ? r : w), undefined)
    if (worst) targets.push({ target: `${name}: decisions ≥ 80% of bare backend op`, measured: rows.map((r) => `${r.client} ${fmt(r.ratio)}×`).join('; '), met: rows.every((r) => r.ratio >= 0.8), miss: rows.some((r) => r.ratio < 0.8) ? `worst ${fmt(worst.ratio)}× (${worst.client}), ${Math.round((0.8 - worst.ratio) * 100)} points short` : undefined })
    for (const r of a.rows.filter((row) => row.serverMicrosByPath)) {
      const paths = Object.entries(r.serverMicrosByPath)
      const over = paths.filter(([, micros]) => micros > 4)
      targets.push({ target: `${name}: ≤ 4 µs of Redis CPU per decision (INFO commandstats, ${r.client})`, measured: paths.map(([path, micros]) => `${path} ${fmt(micros)} µs`).join('; '), met: over.length === 0, miss: over.length ? `over on ${over.map(([path]) => path).join(', ')}` : undefined })
    }
    const trips = a.roundTripsPerDecision
    targets.push({ target: `${name}: exactly one round trip per new-user decision`, measured: trips === undefined ? `not reported${a.roundTripsNote ? ` (${a.roundTripsNote})` : ''}` : `${fmt(trips, 2)}${a.roundTripsHistogram ? ` (decisions by round trips: ${Object.entries(a.roundTripsHistogram).map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}`, met: trips === undefined ? undefined : trips === 1, miss: trips !== undefined && trips !== 1 ? `up to 2 when a location's own allocation is used up (no fused takeSlot)` : undefined })
  }
  if (fresh?.counterCallsPerDecision !== undefined) {
    targets.push({ target: 'HTTP run: counter round trips per new-user decision (memory, node-server)', measured: fmt(fresh.counterCallsPerDecision, 3), met: Math.abs(fresh.counterCallsPerDecision - 1) < 0.005 })
  }
  if (results.memory && !results.memory.error) {
    const m = results.memory
    targets.push({ target: 'memory for 1M queued users (300 locations × 60 buckets) ≤ 2 MB', measured: `${fmt(m.coordinatorMB, 2)} MB in the memory coordinator (${fmt(m.firstRoundMB, 2)} MB before every location exchanged twice)`, met: m.coordinatorMB <= 2, miss: m.coordinatorMB > 2 ? `${fmt(m.coordinatorMB - 2, 2)} MB (${Math.round((m.coordinatorMB / 2 - 1) * 100)}%) over` : undefined })
  }
  return targets
}

export function renderMarkdown(results) {
  const out = []
  const env = results.environment
  out.push('# Benchmarks')
  out.push('')
  out.push(`Run ${env.startedAt} on ${env.node}, ${env.cpus} × ${env.cpuModel}, load average ${env.loadAverageStart.map((x) => x.toFixed(1)).join(' / ')} at the start and ${env.loadAverageEnd?.map((x) => x.toFixed(1)).join(' / ') ?? '–'} at the end (the machine is shared: absolute figures drift, so every comparison below is a ratio measured side by side in this run). Commit ${env.commit ?? 'unknown'}${env.dirty ? ' with uncommitted changes' : ''}; ${env.seconds} s in all. Produced by \`npm run bench\` (bench/run.mjs)${results.options.quick ? ' with --quick' : ''}.`)
  if (results.runtimes?.measured) out.push('', `The flood-path table (section 1 and its target rows) was measured later on its own: ${results.runtimes.measured}`)
  out.push('')

  out.push('## Targets')
  out.push('')
  const targets = evaluateTargets(results)
  out.push(table(['target (issues 9, 16)', 'measured', 'status'], targets.map((t) => [t.target, t.measured, `${t.met === undefined ? 'not measured' : t.met ? 'met' : `**missed**${t.miss ? `: ${t.miss}` : ''}`}${t.note ? ` (${t.note})` : ''}`])))
  out.push('')

  // 1. The flood path on three runtimes, and the proxy
  out.push('## 1. The flood path on Node, Bun and Deno (issue 16)')
  out.push('')
  out.push(results.runtimes ? formatRuntimes(results.runtimes) : 'Not measured.')
  out.push('')
  out.push('![Overhead: req/s and CPU per request as ratios to bare Hono, per runtime](../../docs/bench-overhead.svg)')
  out.push('')
  out.push('### The standalone proxy against a plain pass-through proxy (bench/proxy-passthrough.mjs)')
  out.push('')
  out.push(formatProxy(results.proxy))
  out.push('')

  const http = results.http
  if (http) {
    out.push('### The older table: HTTP overhead on Node through autocannon (`--only http`)')
    out.push('')
  }
  if (http?.error) {
    out.push(`Not measured: ${http.error}.`)
  } else if (http) {
    out.push(`@hono/node-server, each server in its own process, autocannon in the parent: ${http.connections} connections, ${http.seconds} s per run after a ${http.warmupSeconds} s warm-up per server, ${http.rounds} rounds in alternating order (A B … B A); ratios are taken within a round; the median over the rounds is shown, each round beside it. Requests are plain \`GET /\` answering \`ok\`. "server CPU" is the server process's user + system time per request: the figure least disturbed by other load on the machine. Calls are counted in the server (coordinator methods, \`crypto.subtle\` encrypt/decrypt/deriveKey), decisions from the room's metrics.`)
    out.push('')
    out.push(table(
      ['case', 'req/s', 'req/s × baseline', 'per round', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'CPU/req × baseline', 'coordinator calls/req', 'crypto calls/req', 'path taken'],
      http.results.map((r) => [
        `${r.label}${r.baseline !== 'bare' && r.id !== r.baseline ? ` (vs ${r.baseline})` : ''}`,
        int(r.requestsPerSecond),
        fmt(r.ratioToBaseline),
        r.ratiosPerRound.map((x) => fmt(x)).join(', '),
        fmt(r.p50Ms, 1),
        fmt(r.p99Ms, 1),
        fmt(r.serverCpuMicrosPerRequest, 1),
        fmt(r.cpuRatioToBaseline),
        fmt(r.perRequest.coordinatorCalls, 3),
        fmt(r.perRequest.cryptoCalls, 3),
        r.expectedReason ? `${Math.round((r.expectedShare ?? 0) * 1000) / 10}% \`${r.expectedReason}\`` : r.unexpectedStatus ? `${r.unexpectedStatus} unexpected statuses` : '–',
      ]),
    ))
    out.push('')
    const errors = http.results.filter((r) => r.errors > 0 || r.unexpectedStatus > 0)
    if (errors.length) out.push(`Errors or unexpected statuses: ${errors.map((r) => `${r.id} ${r.errors} errors, ${r.unexpectedStatus} statuses`).join('; ')}.`)
    else out.push('No errors, timeouts or unexpected statuses in any run.')
    out.push('')
  }

  // Profiles
  if (results.profile?.length) {
    out.push('### Where the time goes (`node --cpu-prof`, self time)')
    out.push('')
    for (const p of results.profile) {
      if (p.error) {
        out.push(`- ${p.case}: ${p.error}`)
        continue
      }
      out.push(`**${p.case}** (${int(p.requestsPerSecond)} req/s under the profiler). By origin: ${p.categories.map((c) => `${c.category} ${c.selfPercent}%`).join(', ')}.`)
      out.push('')
      out.push(table(['self %', 'function', 'where'], p.top.slice(0, 12).map((t) => [fmt(t.selfPercent, 1), `\`${t.function}\``, t.where ? `\`${t.where}\`` : '(native)'])))
      out.push('')
      out.push(`Our functions by inclusive time (synchronous stretches): ${p.ours.map((o) => `\`${o.function}\` ${o.inclusivePercent}%`).join(', ')}.`)
      out.push('')
    }
  }

  // 2. Micro
  out.push('## 2. Per-decision costs in the process')
  out.push('')
  const micro = results.micro
  if (!micro || micro.error) out.push(`Not measured${micro?.error ? `: ${micro.error}` : ''}.`)
  else {
    out.push('A warm-up, then N iterations, 5 repetitions, the median shown. Timed by the process\'s CPU time (all threads: Web Crypto runs on libuv\'s pool); wall time beside it.')
    out.push('')
    out.push(table(['operation', 'N', 'µs CPU/op', 'µs wall/op', 'spread (CPU)'], Object.values(micro.rows).map((r) => [r.label, int(r.n), fmt(r.microsPerOp, 3), fmt(r.wallMicrosPerOp, 3), `${fmt(r.spread[0], 3)}–${fmt(r.spread[1], 3)}`])))
    out.push('')
  }

  // 3. Adapters
  out.push('## 3. Adapters: decisions next to the bare backend operation')
  out.push('')
  const adapters = results.adapters
  if (!adapters || adapters.error) out.push(`Not measured${adapters?.error ? `: ${adapters.error}` : ''}.`)
  else {
    out.push('Each adapter\'s own bench script, run as a child process with a time bound. The ratio is decisions/s over the bare operation\'s rate with the same client in the same run.')
    out.push('')
    const rows = []
    for (const a of adapters) {
      if (!a.measured) {
        rows.push([a.adapter, a.runtime ?? '–', 'not measured', '–', '–', '–', '–', '–', a.reason])
        continue
      }
      for (const r of a.rows) rows.push([a.adapter, a.runtime ?? '–', r.client, int(r.decisionsPerSecond), r.bareOp, int(r.barePerSecond), fmt(r.ratio), fmt(r.roundTripsPerDecision ?? a.roundTripsPerDecision, 2), `${a.machineReadable ? 'BENCH_RESULT line' : 'parsed from its table'}; ${a.seconds} s`])
    }
    out.push(table(['adapter', 'runtime', 'client / setup', 'decisions/s', 'bare op', 'bare op/s', 'ratio', 'round trips/decision', 'source'], rows))
    out.push('')
    const notes = adapters.filter((a) => a.measured && (a.note || a.roundTripsNote)).map((a) => `${a.adapter} (${a.runtime}): ${[a.note, a.roundTripsNote].filter(Boolean).join('; ')}`)
    if (notes.length) out.push(notes.map((n) => `- ${n}`).join('\n'))
    out.push('')
  }

  // 4. Simulator
  out.push('## 4. Accuracy (simulator)')
  out.push('')
  const sim = results.simulate
  if (!sim || sim.error || !sim.available) out.push(`Not measured${sim?.error ? `: ${sim.error}` : sim?.reason ? `: ${sim.reason}` : ''}.`)
  else {
    out.push(`\`src/simulator\` (the real middleware in simulated time, many workers and locations on one memory coordinator with propagation lag). Seed 002 runs with ${int(sim.seed002Users)} users and planet with ${int(sim.planetUsers)}${sim.full ? '' : ' (scaled down from 10,000 and ~34,000 to keep the bench short; `--full-sim` runs the full sizes)'}.`)
    out.push('')
    out.push(table(
      ['scenario', 'users', 'limit', 'max overshoot %', 'minutes over newUsersPerMinute', 'utilisation while waiting, mean / p5 %', 'overtakes ≥ 1 / ≥ 2 min %', 'queue onset % of limit', 'ρ(arrival, wait)', 'run s', 'peak RSS MB'],
      Object.entries(sim.scenarios).map(([name, s]) => (s.error ? [name, s.error, '', '', '', '', '', '', '', '', ''] : [name, int(s.users), int(s.totalActiveUsers), fmt(s.maxOvershootPercent, 2), int(s.minutesOverNewUsersPerMinute), `${fmt(s.utilisationMeanPercent, 1)} / ${fmt(s.utilisationP5Percent, 1)}`, `${fmt(s.overtakesOneMinutePercent, 2)} / ${fmt(s.overtakesTwoMinutesPercent, 2)}`, fmt(s.queueOnsetPercentOfLimit, 1), fmt(s.waitSpearman, 3), fmt(s.seconds, 1), int(s.peakRssMB)])),
    ))
    out.push('')
    out.push('Charts: [seed 002 FIFO wait by arrival](../../docs/seed002-fifo-wait.svg), [seed 002 random wait by arrival](../../docs/seed002-random-wait.svg), [spike: active users against the limit](../../docs/spike-active.svg).')
    out.push('')
  }

  // 5. Memory
  out.push('## 5. Server-side memory for 1,000,000 queued users')
  out.push('')
  const m = results.memory
  if (!m || m.error) out.push(`Not measured${m?.error ? `: ${m.error}` : ''}.`)
  else {
    out.push(`${int(m.users)} queued users over ${m.buckets} minute buckets and ${m.locations} locations, as the counts \`w{minute}.{bucket}\` of the two-minute waiting window plus 11 minutes of \`a\`/\`n\`/\`t\` history per location: ${int(m.fields)} fields (${int(m.waitingFields)} waiting). Heap by \`process.memoryUsage().heapUsed\` under \`--expose-gc\`, three full GCs before each reading.`)
    out.push('')
    out.push(table(['what', 'MB'], [
      ['memory coordinator, every location exchanged twice (steady state)', fmt(m.coordinatorMB, 3)],
      ['memory coordinator, each location once (locations still joining)', fmt(m.firstRoundMB, 3)],
      ['one worker: the synced room state and its snapshot', fmt(m.workerMB, 3)],
      [`report ids remembered by the location aggregators (${m.reportsPerLocation} reports per location)`, fmt(m.reportIdMB, 3)],
      ...m.scaling.map((s) => [`memory coordinator with ${int(s.users)} queued users (same fields)`, fmt(s.MB, 3)]),
    ]))
    out.push('')
    out.push('Memory does not move with the number of users (last rows): it is O(minutes × locations × buckets).')
    out.push('')
  }

  // 6. Proof of work in a browser (only when the `challenge` section ran)
  const ch = results.challenge
  if (ch) {
    out.push('## 6. Proof of work in Chromium (issue 17)')
    out.push('')
    if (ch.error) out.push(`Not measured: ${ch.error}.`)
    else {
      out.push(`${ch.browser}, the queue page's own Web Worker solver (Web Crypto SHA-256), fresh challenges, timed from \`new Worker\` to the answer.`)
      out.push('')
      out.push(table(['difficulty (bits)', 'expected hashes', 'runs', 'median ms', 'p90 ms', 'max ms', 'hashes/s'], ch.rows.map((r) => [r.difficulty, int(r.expectedHashes), r.runs, int(r.medianMs), int(r.p90Ms), int(r.maxMs), int(r.hashesPerSecond)])))
      out.push('')
    }
  }

  out.push('## Method notes')
  out.push('')
  out.push('- Loopback only; every loop and run is bounded. Servers and adapter scripts run in child processes; stuck children are ended by process group after a time bound.')
  out.push('- The admitted case mints its ticket right before each run and no run crosses a minute boundary (a ticket is resealed on its first request of a new minute; a client replaying one cookie would otherwise reseal on every request).')
  out.push('- The queued cases use a room of one user, taken before measuring (`totalActiveUsers: 1`, `sessionDurationMinutes: 30`, `refreshIntervalSeconds: 300`, status 202); the "too early" case replays one queued ticket within its refresh interval.')
  out.push('- `BENCH_DIST=/path/to/other/dist npm run bench -- --no-build` measures another build (e.g. a patched one) with the same harness.')
  out.push('')
  return `${out.join('\n')}\n`
}

const CHART_LABELS = {
  empty: 'empty middleware',
  'peer-jwt': 'peer: hono/jwt on every request',
  'peer-hmac': 'peer: signed cookie on every request',
  admitted: 'waitingRoom: admitted, valid ticket',
  new: 'waitingRoom: new users under the limit',
  queued: 'waitingRoom: cookieless flood, room full',
  'too-early': 'waitingRoom: queued ticket, too early',
  'proxy-room': 'createProxyApp ÷ plain fetch proxy',
}

/** The overhead chart: per runtime and case, the req/s ratio to bare and the CPU ratio (inverted: higher is better). */
export function renderOverheadChart(results) {
  const runtimes = Object.entries(results.runtimes?.runtimes ?? {}).filter(([, r]) => r.results)
  if (runtimes.length === 0) return undefined
  const targets = { queued: 0.5, new: 0.4, 'too-early': 0.6 }
  const names = { node: 'Node', bun: 'Bun', deno: 'Deno' }
  const rows = runtimes.flatMap(([name, r]) =>
    r.results
      .filter((row) => row.id !== 'bare' && !row.id.includes('@'))
      .map((row) => ({
        label: `${names[name] ?? name}: ${CHART_LABELS[row.id] ?? row.label}`,
        a: row.ratioToBare,
        b: row.cpuRatioToBare,
        mark: targets[row.id] ? { at: targets[row.id], label: `target ≥ ${targets[row.id]}×` } : undefined,
      })),
  )
  const run = results.runtimes
  return barChart({
    title: 'hono-waiting-room: the flood path as a ratio to bare Hono on the same runtime (1 = as fast as bare)',
    subtitle: `${results.environment.startedAt.slice(0, 10)}, ${run.tool}, ${run.connections} connections, ${run.seconds} s × ${run.rounds} alternating rounds, server on one core`,
    rows,
    a: { label: 'req/s ÷ bare req/s (median of rounds)', color: '#1f77b4' },
    b: { label: 'bare server CPU/req ÷ server CPU/req', color: '#9ecae1' },
    max: 1.25,
  })
}

export { round }
