// The standalone proxy against the plainest pass-through proxy a user would write on the same runtime,
// side by side in one run, GET for an admitted user (a fresh valid ticket per run), 200 B and 64 KiB bodies.
// Node: the proxy as the CLI serves it (@hono/node-server, nodeTransport, the room in front) against a
// node:http server piping to http.request with a keep-alive agent. Bun (node_modules/.bin/bun or
// test/runtimes/node_modules/.bin/bun): createProxyApp on Bun.serve with nodeTransport (exact headers and
// bytes) against Bun.serve + fetch with `decompress: false`. Each server is its own process pinned to one
// core; wrk and the origin (on Bun when there, so it is never the bottleneck) share the other. Rounds
// alternate their order (A B C … C B A) and each figure is a ratio to the baseline of the same runtime and
// body in the same round, so drift on a shared machine cancels out. CPU µs per request (from /proc) is
// reported next to req/s: on a loaded machine it is the steadier of the two. Loopback only, bounded.
//
//   node bench/proxy-passthrough.mjs [--seconds 3] [--rounds 4] [--connections 50] [--quick] [--no-bun]
//     [--runtimes node,bun] [--all | --kinds proxy,hono-pipe] [--before /tmp/old/dist]
//
// `--before DIR`: the proxy from another build too (`proxy@before`, e.g. main's, built with `npx tsc -p
// tsconfig.build.json --outDir DIR` and node_modules linked into it), in the same alternating rounds: a
// change's before and after side by side, each a ratio to the same baseline.
//
// Needs the compiled package (dist/, or BENCH_DIST): `npm run build` first. Prints a table and one
// `BENCH_RESULT {json}` line (rows: runtime, body, baseline, kind, target, ratio, cpuRatio, …); the
// target is ratio ≥ 0.9 on the rows marked `target`.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { distDir, flag, killGroup, median, option, printResult, root, round, sleep } from './lib.mjs'
import { avoidMinuteTurn } from './http.mjs'
import { BODIES } from './proxy-servers.mjs'
import { runtimeBinary } from './runtimes.mjs'
import { loadRun, pinning } from './wrk.mjs'

const SERVERS = fileURLToPath(new URL('./proxy-servers.mjs', import.meta.url))

/** Starts one server in its own process, pinned to the server core (or, for the origin, the load generator's). */
function start(runtime, kind, originUrl, core, before) {
  const [command, ...prefix] = [...pinning()[core], runtimeBinary(runtime)]
  const [serves, build] = kind.endsWith('@before') ? [kind.slice(0, -'@before'.length), before] : [kind, distDir]
  const child = spawn(command, [...prefix, SERVERS, serves, originUrl ?? ''], {
    cwd: root,
    env: { ...process.env, BENCH_DIST: build },
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${runtime} ${kind}: not ready in 20 s`)), 20_000)
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk
      const match = /READY (\d+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve({ url: `http://127.0.0.1:${match[1]}`, pid: child.pid, stop: () => killGroup(child, 'SIGKILL') })
      }
    })
    child.once('exit', (code) => reject(new Error(`${runtime} ${kind} exited (${code}) before ready`)))
  })
}

/**
 * CPU seconds the process has used (user + system, from /proc; Linux only, else undefined). CPU per
 * request is the figure that holds on a loaded machine, where req/s also measures the neighbours.
 */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return undefined
  }
}

/** One load run: wrk on its own core when installed (bench/wrk.mjs), with the server's CPU over the run. */
async function load(url, { connections, seconds, cookie, pid, originPid }) {
  const before = [pid, originPid].map((p) => (p ? cpuSeconds(p) : undefined))
  const result = await loadRun(url, { connections, seconds, cookie })
  const after = [pid, originPid].map((p) => (p ? cpuSeconds(p) : undefined))
  const perRequest = (i) => (before[i] !== undefined && after[i] !== undefined && result.requests > 0 ? ((after[i] - before[i]) * 1e6) / result.requests : undefined)
  // The origin's too: the same requests reach it whichever server is in front, so a change in its figure is the machine's noise.
  return { rps: result.requestsPerSecond, p99: result.p99Ms, bad: result.errors + result.non2xx, cpuUs: perRequest(0), originCpuUs: perRequest(1), tool: result.tool }
}

/** A fresh admitted ticket, minted right before a run (one replayed across a minute turn would be resealed on every request). */
async function admittedCookie(url) {
  const response = await fetch(`${url}/small`)
  await response.arrayBuffer()
  const ticket = response.headers.getSetCookie().find((cookie) => cookie.startsWith('__wroom='))
  if (!ticket) throw new Error(`no ticket from ${url}`)
  return ticket.split(';')[0]
}

/**
 * The servers of one runtime: its plainest pass-through (the baseline), the proxy as the README recommends
 * it (the target row), the row that explains the gap (Node: the same pipe as a bare Hono handler — what
 * serving through Hono on node-server costs; Bun: the fetch transport, faster but not exact); `--all` adds the rest.
 */
const KINDS = { node: ['plain-pipe', 'proxy', 'hono-pipe', 'plain-fetch', 'proxy-fetch'], bun: ['plain-fetch', 'proxy', 'proxy-fetch', 'proxy-node-server'] }
const BASELINE = { node: 'plain-pipe', bun: 'plain-fetch' }

async function main() {
  const argv = process.argv.slice(2)
  const quick = flag(argv, 'quick')
  const seconds = Number(option(argv, 'seconds', quick ? '1' : '3'))
  const rounds = Number(option(argv, 'rounds', quick ? '1' : '4'))
  const connections = Number(option(argv, 'connections', '50'))
  const all = flag(argv, 'all')
  const before = option(argv, 'before', undefined)
  if (before && !existsSync(`${before.replace(/\/$/, '')}/src/proxy/node.js`)) throw new Error(`--before ${before}: no src/proxy/node.js there`)
  if (!existsSync(`${distDir}src/proxy/node.js`)) throw new Error(`${distDir}src/proxy/node.js is missing: run npm run build first`)
  const runtimes = option(argv, 'runtimes', `node${runtimeBinary('bun') && !flag(argv, 'no-bun') ? ',bun' : ''}`).split(',')
  const stops = []
  try {
    // The origin runs on Bun when it is there (the fastest node:http server here), so it is never the bottleneck.
    const origin = await start(runtimeBinary('bun') ? 'bun' : 'node', 'origin', undefined, 'load')
    stops.push(origin.stop)
    const servers = []
    for (const runtime of runtimes) {
      // Without --all: the target rows only (the proxy against the runtime's plain pass-through).
      const chosen = option(argv, 'kinds', undefined)?.split(',')
      const kinds = KINDS[runtime].filter((kind, i) => (chosen ? chosen.includes(kind) || i === 0 : all || i < 3))
      if (before) kinds.splice(kinds.indexOf('proxy') + 1, 0, 'proxy@before')
      for (const kind of kinds) {
        const server = await start(runtime, kind, origin.url, 'server', before)
        stops.push(server.stop)
        servers.push({ runtime, kind, ...server })
      }
    }
    const cookieOf = (server) => (server.kind.startsWith('proxy') ? admittedCookie(server.url) : undefined)
    for (const server of servers) {
      for (const body of Object.keys(BODIES)) {
        await avoidMinuteTurn(1000)
        await load(`${server.url}/${body}`, { connections, seconds: 1, cookie: await cookieOf(server) })
      }
    }
    const runs = []
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? servers : [...servers].reverse()
      for (const body of Object.keys(BODIES)) {
        for (const server of order) {
          await avoidMinuteTurn(seconds * 1000)
          const result = await load(`${server.url}/${body}`, { connections, seconds, cookie: await cookieOf(server), pid: server.pid, originPid: origin.pid })
          runs.push({ round: r, body, runtime: server.runtime, kind: server.kind, ...result })
          await sleep(200)
        }
      }
    }
    report(runs, runtimes, { seconds, rounds, connections, tool: runs[0]?.tool, loadavg: loadavg().map((n) => round(n)) })
  } finally {
    for (const stop of stops) stop()
  }
}

const LABELS = {
  'plain-pipe': 'plain node:http pipe proxy',
  'plain-fetch': 'plain fetch pass-through',
  'hono-pipe': 'the same pipe as a Hono handler (no room)',
  proxy: 'createProxyApp + nodeTransport',
  'proxy-fetch': 'createProxyApp + fetchTransport',
  'proxy-node-server': 'createProxyApp on @hono/node-server',
  'proxy@before': 'createProxyApp + nodeTransport, --before',
}

/** Every server against its runtime's baseline, per body: req/s ratio (median of per-round ratios) and CPU per request. */
function report(runs, runtimes, settings) {
  const rows = []
  for (const runtime of runtimes) {
    for (const body of Object.keys(BODIES)) {
      const of = (kind) => runs.filter((run) => run.runtime === runtime && run.body === body && run.kind === kind)
      const baseline = BASELINE[runtime]
      const plain = of(baseline)
      const inRound = (run) => plain.find((p) => p.round === run.round)
      for (const kind of [...KINDS[runtime], 'proxy@before'].filter((kind) => kind !== baseline && of(kind).length > 0)) {
        const ratios = of(kind).map((run) => run.rps / inRound(run).rps)
        // Requests one CPU second serves, proxy over plain: the throughput ratio with the neighbours taken out.
        const cpuRatios = of(kind).map((run) => inRound(run).cpuUs / run.cpuUs).filter(Number.isFinite)
        rows.push({
          runtime,
          body,
          baseline,
          kind,
          target: kind === 'proxy',
          plainRps: round(median(plain.map((run) => run.rps)), 0),
          rps: round(median(of(kind).map((run) => run.rps)), 0),
          ratio: round(median(ratios)),
          rounds: ratios.map((ratio) => round(ratio)),
          p99Ms: round(median(of(kind).map((run) => run.p99)), 1),
          bad: of(kind).reduce((sum, run) => sum + run.bad, 0) + plain.reduce((sum, run) => sum + run.bad, 0),
          plainCpuUs: round(median(plain.map((run) => run.cpuUs).filter(Number.isFinite)), 0),
          cpuUs: round(median(of(kind).map((run) => run.cpuUs).filter(Number.isFinite)), 0),
          cpuRatio: round(median(cpuRatios)),
          originCpuUs: [round(median(plain.map((run) => run.originCpuUs).filter(Number.isFinite)), 0), round(median(of(kind).map((run) => run.originCpuUs).filter(Number.isFinite)), 0)],
        })
      }
    }
  }
  console.log(`\nproxy vs the plainest pass-through proxy on the same runtime (${settings.rounds} rounds × ${settings.seconds} s, ${settings.connections} connections, ${settings.tool}, load ${settings.loadavg.join(' ')})`)
  console.log('runtime body   baseline     server                                  base req/s  req/s  ratio  rounds                 CPU µs/req base  this  ratio  origin µs/req  bad')
  for (const row of rows) {
    console.log(
      [
        (row.target ? '*' : ' ') + row.runtime.padEnd(6),
        row.body.padEnd(6),
        row.baseline.padEnd(12),
        LABELS[row.kind].padEnd(39),
        String(row.plainRps).padStart(10),
        String(row.rps).padStart(6),
        row.ratio.toFixed(2).padStart(6),
        row.rounds.join(',').padEnd(22),
        String(row.plainCpuUs).padStart(15),
        String(row.cpuUs).padStart(5),
        (row.cpuRatio?.toFixed(2) ?? '–').padStart(6),
        row.originCpuUs.join(' → ').padStart(14),
        String(row.bad).padStart(4),
      ].join(' '),
    )
  }
  console.log('* the target rows: ≥ 0.9 (req/s ratio; the CPU ratio is requests per proxy CPU second, over the baseline\'s: the steadier figure on a loaded machine)')
  printResult({ bench: 'proxy-passthrough', target: 0.9, settings, rows })
}

await main()
