// The flood path on Node, Bun and Deno (issue 16): each case's server in its own process on one core
// (bench/runtime-server.mjs, `taskset -c 0` when there are two cores or more), the load from wrk on another
// core (autocannon in this process when wrk is not installed), rounds in alternating order (A B … B A), every
// figure a ratio to bare Hono on the same runtime in the same round. One runtime at a time.
//
//   node bench/runtimes.mjs [--runtimes node,bun,deno] [--cases bare,empty,…] [--seconds 3] [--rounds 3] [--quick]
//                           [--before /path/to/other/dist]
//
// --before adds the room cases once more, served from another build (e.g. the last commit's), in the same
// rounds: a before/after that shares the machine's conditions.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { benchDir, distDir, killGroup, median, option, printResult, root, round, sleep } from './lib.mjs'
import { formatRuntimes } from './report-runtimes.mjs'
import { loadRun, pinning, which } from './wrk.mjs'

/**
 * The cases, in the order of the first round. `issue`: the ratio to bare reported in issue 16 for each
 * runtime (measured with wrk, 50 connections, one core for the server), printed beside the new figures.
 */
export const RUNTIME_CASES = [
  { id: 'bare', label: 'bare Hono answering `ok`', server: 'bare' },
  { id: 'empty', label: 'empty middleware', server: 'empty', issue: { node: 0.85, bun: 1.04, deno: 0.86 } },
  // Opt-in (name it in --cases, with admitted): the empty middleware given the admitted user's very request, cookie
  // included, so `admitted ÷ this` is the room's own cost (a runtime parsing the cookie header is not the room's).
  { id: 'empty-cookie', label: 'empty middleware, the admitted request (its ticket cookie)', server: 'empty', cookie: 'admitted-of-room', optIn: true },
  { id: 'admitted', label: 'admitted user, valid ticket', server: 'room-open', cookie: 'admitted', expect: 'session', issue: { node: 0.83, bun: 0.82, deno: 0.72 } },
  { id: 'new', label: 'new user under the limit (memory coordinator)', server: 'room-open', expect: 'slot', issue: { node: 0.14, bun: 0.11, deno: 0.08 } },
  { id: 'queued', label: 'cookieless flood against a full room (queue page)', server: 'room-full', expect: 'no-slot', status: 202, issue: { node: 0.1, bun: 0.09, deno: 0.06 } },
  // Opt-in: the queue page a cookieless flood is answered, sent by bare Hono without the room (made once): what
  // answering it costs the runtime itself, the floor under the flood's ratio.
  { id: 'page', label: 'bare Hono sending the queue page as it is (no room)', server: 'page', status: 202, optIn: true },
  { id: 'too-early', label: 'queued user checking in too early', server: 'room-full', cookie: 'queued', expect: 'too-early', status: 202 },
  { id: 'peer-jwt', label: 'peer: JWT verified on every request (hono/jwt, HS256)', server: 'peer-jwt', cookie: 'jwt', issue: { node: 0.25, bun: 0.29, deno: 0.1 } },
  { id: 'peer-hmac', label: 'peer: HMAC token checked on every request (hono getSignedCookie)', server: 'peer-hmac', cookie: 'hmac', issue: { node: 0.75, bun: 0.64, deno: 0.36 } },
]

/** A runtime's binary: this Node for node; bun and deno from node_modules/.bin, then test/runtimes/node_modules/.bin. */
export function runtimeBinary(name) {
  if (name === 'node') return process.execPath
  for (const dir of ['node_modules/.bin/', 'test/runtimes/node_modules/.bin/']) if (existsSync(`${root}${dir}${name}`)) return `${root}${dir}${name}`
  return undefined
}

const SERVER = `${benchDir}runtime-server.mjs`
const argsOf = (runtime, kind) => (runtime === 'deno' ? ['run', '-A', SERVER, kind] : [SERVER, kind])
/** Starts one server; resolves once it printed READY. */
export function startRuntimeServer(runtime, kind, { timeoutMs = 30_000, dist = distDir } = {}) {
  const binary = runtimeBinary(runtime)
  const [command, ...prefix] = [...pinning().server, binary]
  const child = spawn(command, [...prefix, ...argsOf(runtime, kind)], { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BENCH_DIST: dist } })
  let output = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (killGroup(child, 'SIGKILL'), reject(new Error(`${runtime} ${kind}: not ready within ${timeoutMs} ms: ${output.slice(-300)}`))), timeoutMs)
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk))
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`${runtime} ${kind} exited (${code}): ${output.slice(-300)}`))))
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      output += chunk
      const ready = /READY (\d+) (\d+)/.exec(output)
      if (!ready) return
      clearTimeout(timer)
      const control = (path) => fetch(`http://127.0.0.1:${ready[2]}${path}`).then((r) => r.json())
      resolve({
        runtime,
        kind,
        url: `http://127.0.0.1:${ready[1]}/`,
        stats: () => control('/stats'),
        reset: () => control('/reset'),
        stop: async () => {
          if (child.exitCode !== null) return
          const exited = new Promise((done) => child.once('exit', done))
          await control('/exit').catch(() => {})
          await Promise.race([exited, sleep(3000)])
          killGroup(child, 'SIGKILL')
        },
      })
    })
  })
}

/** A cookie minted by a room server: its first Set-Cookie's name=value. */
async function mint(url, expectStatus) {
  const response = await fetch(url)
  await response.arrayBuffer()
  if (expectStatus !== undefined && response.status !== expectStatus) throw new Error(`${url}: status ${response.status}, expected ${expectStatus}`)
  const setCookie = response.headers.getSetCookie()[0]
  if (!setCookie) throw new Error(`no ticket cookie from ${url} (status ${response.status})`)
  return setCookie.split(';')[0]
}

/** The cookie a case's requests carry, made right before each run (a ticket is renewed when a minute turns). */
async function cookieFor(c, server, servers) {
  if (c.cookie === 'admitted') return mint(server.url, 200)
  if (c.cookie === 'admitted-of-room') {
    const room = [...servers.values()].find((s) => s.kind === 'room-open')
    if (!room) throw new Error(`${c.id} carries an admitted ticket: measure it with the admitted case`)
    return mint(room.url, 200)
  }
  if (c.cookie === 'queued') return mint(server.url, 202)
  if (c.cookie === 'jwt') {
    const { sign } = await import('hono/jwt')
    return `token=${await sign({ sub: 'bench-user', exp: Math.floor(Date.now() / 1000) + 3600 }, SECRET_OF_PEERS, 'HS256')}`
  }
  if (c.cookie === 'hmac') {
    const { generateSignedCookie } = await import('hono/cookie')
    return (await generateSignedCookie('session', 'bench-user', SECRET_OF_PEERS)).split(';')[0]
  }
  return undefined
}
const SECRET_OF_PEERS = 'bench-secret-0123456789abcdef0123456789abcdef' // runtime-server.mjs's SECRET

/** Waits for the next minute when a run of `ms` would cross one (a replayed admitted ticket would renew on every request). */
async function avoidMinuteTurn(ms) {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < ms + 1500) await sleep(left + 300)
}

/** Measures every case on one runtime; resolves with per-case runs and ratios. */
async function measureRuntime(runtime, { cases, seconds, rounds, connections, warmupSeconds, log }) {
  const servers = new Map()
  try {
    for (const c of cases) servers.set(c.id, await startRuntimeServer(runtime, c.server, { dist: c.dist }))
    for (const c of cases.filter((c) => c.server === 'room-full')) await mint(servers.get(c.id).url, 200) // the one place
    for (const c of cases) {
      if (c.cookie === 'admitted') await avoidMinuteTurn(warmupSeconds * 1000)
      await loadRun(servers.get(c.id).url, { connections, seconds: warmupSeconds, cookie: await cookieFor(c, servers.get(c.id), servers) })
    }
    const runs = Object.fromEntries(cases.map((c) => [c.id, []]))
    for (let r = 0; r < rounds; r++) {
      for (const c of r % 2 === 0 ? cases : [...cases].reverse()) {
        const server = servers.get(c.id)
        if (c.cookie === 'admitted') await avoidMinuteTurn(seconds * 1000)
        const cookie = await cookieFor(c, server, servers)
        await server.reset()
        const before = await server.stats()
        const run = await loadRun(server.url, { connections, seconds, cookie })
        const after = await server.stats()
        const cpuMicros = after.cpu.user + after.cpu.system - (before.cpu.user + before.cpu.system)
        const decided = Object.values(after.decisions ?? {}).reduce((sum, n) => sum + n, 0)
        const coordinatorCalls = Object.keys(after.calls).reduce((sum, k) => sum + after.calls[k] - before.calls[k], 0)
        runs[c.id].push({
          ...run,
          round: r,
          serverCpuMicrosPerRequest: cpuMicros / Math.max(1, run.requests),
          expectedShare: c.expect ? (after.decisions?.[c.expect] ?? 0) / Math.max(1, decided) : undefined,
          coordinatorCallsPerRequest: coordinatorCalls / Math.max(1, run.requests),
        })
        log(`  ${runtime.padEnd(4)} round ${r + 1}/${rounds} ${c.id.padEnd(10)} ${Math.round(run.requestsPerSecond).toString().padStart(7)} req/s  p99 ${round(run.p99Ms, 1)} ms  ${round(cpuMicros / Math.max(1, run.requests), 1)} µs CPU/req${run.non2xx && !c.status ? `  non-2xx ${run.non2xx}` : ''}${run.errors ? `  errors ${run.errors}` : ''}`)
      }
    }
    return summarize(cases, runs)
  } finally {
    await Promise.all([...servers.values()].map((s) => s.stop()))
  }
}

/** Per case: the median over rounds of its ratio to bare (and to the empty middleware), CPU beside it. */
function summarize(cases, runs) {
  const ratios = (id, over) => runs[id].map((run, i) => run.requestsPerSecond / runs[over][i].requestsPerSecond)
  return cases.map((c) => {
    const own = runs[c.id]
    const toBare = runs.bare ? ratios(c.id, 'bare') : []
    const toEmpty = runs.empty ? ratios(c.id, 'empty') : []
    // Requests one CPU second serves, over bare's: the throughput ratio with the neighbours' load taken out.
    const cpuToBare = runs.bare ? own.map((run, i) => runs.bare[i].serverCpuMicrosPerRequest / run.serverCpuMicrosPerRequest) : []
    return {
      id: c.id,
      label: c.label,
      requestsPerSecond: median(own.map((r) => r.requestsPerSecond)),
      ratioToBare: median(toBare),
      ratiosToBare: toBare.map((x) => round(x, 3)),
      ratioToEmpty: median(toEmpty),
      ratiosToEmpty: toEmpty.map((x) => round(x, 3)),
      serverCpuMicrosPerRequest: median(own.map((r) => r.serverCpuMicrosPerRequest)),
      cpuRatioToBare: median(cpuToBare),
      p50Ms: median(own.map((r) => r.p50Ms)),
      p99Ms: median(own.map((r) => r.p99Ms)),
      expectedReason: c.expect,
      expectedShare: c.expect ? median(own.map((r) => r.expectedShare)) : undefined,
      coordinatorCallsPerRequest: median(own.map((r) => r.coordinatorCallsPerRequest)),
      unexpectedStatus: c.status ? 0 : own.reduce((sum, r) => sum + r.non2xx, 0),
      errors: own.reduce((sum, r) => sum + r.errors, 0),
      issue: c.issue,
      runs: own,
    }
  })
}

/** Every runtime in turn; a runtime whose binary is missing is "not measured". */
export async function runRuntimes({ runtimes = ['node', 'bun', 'deno'], caseIds, seconds = 3, rounds = 3, connections = 50, warmupSeconds = 2, before, log = console.log } = {}) {
  let cases = caseIds ? [...RUNTIME_CASES, ...caseIds.filter((id) => id.startsWith('page:')).map((id) => ({ id, label: id, server: id, status: 202 }))].filter((c) => c.id === 'bare' || caseIds.includes(c.id)) : RUNTIME_CASES.filter((c) => !c.optIn)
  if (before) {
    const dist = `${before.replace(/\/$/, '')}/`
    cases = cases.flatMap((c) => (c.server.startsWith('room-') ? [c, { ...c, id: `${c.id}@before`, label: `${c.label} — before (${dist})`, dist, issue: undefined }] : [c]))
  }
  const pins = pinning()
  const out = { seconds, rounds, connections, warmupSeconds, tool: which('wrk') ? 'wrk' : 'autocannon', pinned: pins.server.length > 0, runtimes: {} }
  for (const runtime of runtimes) {
    const binary = runtimeBinary(runtime)
    if (!binary) {
      out.runtimes[runtime] = { error: `no ${runtime} binary in node_modules/.bin or test/runtimes/node_modules/.bin` }
      continue
    }
    let version
    try {
      version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).split('\n')[0].trim()
    } catch {
      version = 'unknown version'
    }
    log(`  ${runtime} (${version}): ${cases.length} servers, ${rounds} rounds of ${seconds} s`)
    try {
      out.runtimes[runtime] = { version, results: await measureRuntime(runtime, { cases, seconds, rounds, connections, warmupSeconds, log }) }
    } catch (error) {
      out.runtimes[runtime] = { version, error: String(error?.message ?? error) }
    }
  }
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv
  const quick = argv.includes('--quick')
  const result = await runRuntimes({
    runtimes: option(argv, 'runtimes', 'node,bun,deno').split(','),
    caseIds: option(argv, 'cases', undefined)?.split(','),
    seconds: Number(option(argv, 'seconds', quick ? '1' : '3')),
    rounds: Number(option(argv, 'rounds', quick ? '1' : '3')),
    warmupSeconds: quick ? 1 : 2,
    before: option(argv, 'before', undefined),
  })
  console.log(formatRuntimes(result))
  printResult(result)
}
