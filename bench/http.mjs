// HTTP overhead on Node: each server in its own process (bench/http-server.mjs), load from autocannon's
// programmatic API in this process, loopback only. Cases run in rounds that alternate their order
// (A B C … C B A), and every figure is reported as a ratio to a baseline measured in the same round, so
// drift on a shared machine cancels out.
import { fork } from 'node:child_process'
import autocannon from 'autocannon'
import { benchDir, killGroup, mean, median, round, sleep } from './lib.mjs'

/** The cases, in the order of the first round. `cookie`: a ticket minted right before each run. */
export const HTTP_CASES = [
  { id: 'bare', label: 'bare Hono app', server: 'bare', baseline: 'bare' },
  { id: 'empty', label: 'empty middleware', server: 'empty', baseline: 'bare' },
  { id: 'admitted', label: 'waitingRoom, admitted (valid ticket)', server: 'room-open', cookie: 'admitted', expect: 'session', baseline: 'bare' },
  { id: 'new', label: 'waitingRoom, new users under the limit', server: 'room-open', expect: 'slot', baseline: 'bare' },
  { id: 'queued', label: 'waitingRoom, queued (room full, no cookie)', server: 'room-full', expect: 'no-slot', status: 202, baseline: 'bare' },
  { id: 'too-early', label: 'waitingRoom, queued ticket too early', server: 'room-full', cookie: 'queued', expect: 'too-early', status: 202, baseline: 'bare' },
  { id: 'proxy-plain', label: 'plain fetch pass-through proxy', server: 'proxy-plain', origin: true, baseline: 'proxy-plain' },
  { id: 'proxy-room', label: 'createProxyApp, admitted (valid ticket)', server: 'proxy-room', origin: true, cookie: 'admitted', baseline: 'proxy-plain' },
]

/** Forks one server; resolves once it listens. */
export function startServer(kind, { originUrl, execArgv = [], distDir } = {}) {
  const child = fork(`${benchDir}http-server.mjs`, [kind, originUrl ?? ''], {
    execArgv,
    env: distDir ? { ...process.env, BENCH_DIST: distDir } : process.env,
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  })
  // One listener each for messages and exit; waiters are settled by type, in order.
  const waiters = []
  let exited
  child.on('message', (message) => {
    const at = waiters.findIndex((w) => w.type === message?.type)
    if (at !== -1) waiters.splice(at, 1)[0].resolve(message)
  })
  child.once('exit', (code) => {
    exited = code
    for (const w of waiters.splice(0)) w.reject(new Error(`server ${kind} exited (${code})`))
  })
  const waitFor = (type, ms = 20_000) =>
    new Promise((resolve, reject) => {
      if (exited !== undefined) return reject(new Error(`server ${kind} exited (${exited})`))
      const timer = setTimeout(() => reject(new Error(`server ${kind}: no '${type}' within ${ms} ms`)), ms)
      waiters.push({
        type,
        resolve: (message) => (clearTimeout(timer), resolve(message)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      })
    })
  return waitFor('ready').then(({ port }) => ({
    kind,
    port,
    url: `http://127.0.0.1:${port}/`,
    child,
    stats: () => (child.send({ type: 'stats' }), waitFor('stats')),
    reset: () => (child.send({ type: 'reset' }), waitFor('reset')),
    /** The server's monotonic clock now, in µs (the time base of its --cpu-prof samples). */
    mark: async () => (child.send({ type: 'mark' }), (await waitFor('mark')).at),
    /** Asks the server to exit by itself (profiles get written), then makes sure. */
    stop: async () => {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      try {
        child.send({ type: 'exit' })
      } catch {
        // channel already closed
      }
      await Promise.race([exited, sleep(5000)])
      killGroup(child, 'SIGKILL')
    },
  }))
}

/** One autocannon run. */
export function load(url, { connections, seconds, cookie }) {
  return autocannon({
    url,
    connections,
    duration: seconds,
    headers: cookie ? { cookie } : {},
  })
}

/** A fresh ticket cookie from `url`: an admitted one from an open room, a queued one from a full room. */
export async function mintCookie(url) {
  const response = await fetch(url)
  await response.arrayBuffer()
  const setCookie = response.headers.getSetCookie()[0]
  if (!setCookie) throw new Error(`no ticket cookie from ${url} (status ${response.status})`)
  return { cookie: setCookie.split(';')[0], status: response.status }
}

/**
 * Waits for the next minute when a run of `ms` would cross a minute boundary: a ticket is renewed (resealed)
 * on its first request in a new minute, and a client replaying one cookie would then renew on every request.
 */
export async function avoidMinuteTurn(ms) {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < ms + 1500) await sleep(left + 300)
}

const delta = (after, before) => {
  const out = {}
  for (const key of Object.keys(after)) out[key] = after[key] - (before?.[key] ?? 0)
  return out
}

/**
 * Runs every case `rounds` times for `seconds` each with `connections`, after a warm-up of `warmupSeconds`
 * per server. Returns per-case runs and per-round ratios to each case's baseline.
 */
export async function runHttp({ seconds = 3, connections = 50, rounds = 4, warmupSeconds = 2, cases = HTTP_CASES, log = console.log } = {}) {
  const servers = new Map()
  let origin
  try {
    if (cases.some((c) => c.origin)) origin = await startServer('origin')
    for (const c of cases) servers.set(c.id, await startServer(c.server, { originUrl: origin?.url, distDir: c.distDir }))

    // The full rooms: their one place is taken before anything is measured.
    for (const c of cases.filter((c) => c.server === 'room-full')) {
      const first = await mintCookie(servers.get(c.id).url)
      if (first.status !== 200) throw new Error(`room-full: the first user was not admitted (${first.status})`)
      const second = await mintCookie(servers.get(c.id).url)
      if (second.status !== 202) throw new Error(`room-full: the second user was not queued (${second.status})`)
    }

    const cookieFor = async (c) => (c.cookie ? (await mintCookie(servers.get(c.id).url)).cookie : undefined)

    for (const c of cases) {
      await avoidMinuteTurn(warmupSeconds * 1000)
      await load(servers.get(c.id).url, { connections, seconds: warmupSeconds, cookie: await cookieFor(c) })
    }
    log(`  warmed up ${cases.length} servers`)

    const runs = Object.fromEntries(cases.map((c) => [c.id, []]))
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? cases : [...cases].reverse()
      for (const c of order) {
        const server = servers.get(c.id)
        await avoidMinuteTurn(seconds * 1000)
        const cookie = await cookieFor(c)
        await server.reset()
        const before = await server.stats()
        const result = await load(server.url, { connections, seconds, cookie })
        const after = await server.stats()
        const requests = result.requests.total
        const cpuMicros = after.cpu.user + after.cpu.system - (before.cpu.user + before.cpu.system)
        const calls = delta(after.calls, before.calls)
        const run = {
          round: r,
          requestsPerSecond: requests / result.duration,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          requests,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
          serverCpuMicrosPerRequest: cpuMicros / Math.max(1, requests),
          perRequest: {
            coordinatorCalls: (calls.increment + calls.sync + calls.takeSlot) / Math.max(1, requests),
            counterCalls: (calls.increment + calls.takeSlot) / Math.max(1, requests),
            syncCalls: calls.sync / Math.max(1, requests),
            cryptoCalls: (calls.encrypt + calls.decrypt + calls.deriveKey) / Math.max(1, requests),
          },
          decisions: after.decisions,
          calls,
        }
        runs[c.id].push(run)
        log(
          `  round ${r + 1}/${rounds} ${c.id.padEnd(12)} ${Math.round(run.requestsPerSecond).toString().padStart(6)} req/s` +
            `  p50 ${run.p50Ms} ms  p99 ${run.p99Ms} ms  server ${round(run.serverCpuMicrosPerRequest, 1)} µs CPU/req` +
            (run.errors || run.timeouts ? `  errors ${run.errors} timeouts ${run.timeouts}` : ''),
        )
      }
    }

    const results = cases.map((c) => {
      const own = runs[c.id]
      const base = runs[c.baseline]
      const ratios = own.map((run, i) => run.requestsPerSecond / base[i].requestsPerSecond)
      const cpuRatios = own.map((run, i) => run.serverCpuMicrosPerRequest / base[i].serverCpuMicrosPerRequest)
      const decisions = {}
      for (const run of own) for (const [reason, n] of Object.entries(run.decisions ?? {})) decisions[reason] = (decisions[reason] ?? 0) + n
      const decided = Object.values(decisions).reduce((sum, n) => sum + n, 0)
      const requests = own.reduce((sum, run) => sum + run.requests, 0)
      const wrongStatus = own.reduce((sum, run) => sum + Object.entries(run.statusCodes).filter(([code]) => Number(code) !== (c.status ?? 200)).reduce((s, [, n]) => s + n, 0), 0)
      return {
        id: c.id,
        label: c.label,
        baseline: c.baseline,
        requestsPerSecond: mean(own.map((run) => run.requestsPerSecond)),
        p50Ms: mean(own.map((run) => run.p50Ms)),
        p99Ms: mean(own.map((run) => run.p99Ms)),
        // The median of the per-round ratios: one round disturbed by a neighbour's load does not move it.
        ratioToBaseline: median(ratios),
        meanRatioToBaseline: mean(ratios),
        ratiosPerRound: ratios.map((x) => round(x, 3)),
        serverCpuMicrosPerRequest: mean(own.map((run) => run.serverCpuMicrosPerRequest)),
        cpuRatioToBaseline: median(cpuRatios),
        cpuRatiosPerRound: cpuRatios.map((x) => round(x, 3)),
        perRequest: {
          coordinatorCalls: mean(own.map((run) => run.perRequest.coordinatorCalls)),
          counterCalls: mean(own.map((run) => run.perRequest.counterCalls)),
          syncCalls: mean(own.map((run) => run.perRequest.syncCalls)),
          cryptoCalls: mean(own.map((run) => run.perRequest.cryptoCalls)),
        },
        // Counter calls per decision of the expected kind (a new user's round trips to the counters).
        counterCallsPerDecision: c.expect
          ? own.reduce((sum, run) => sum + run.calls.increment + run.calls.takeSlot, 0) / Math.max(1, decisions[c.expect] ?? 0)
          : undefined,
        expectedReason: c.expect,
        expectedShare: c.expect ? (decisions[c.expect] ?? 0) / Math.max(1, decided) : undefined,
        decisions: c.expect ? decisions : undefined,
        requests,
        unexpectedStatus: wrongStatus,
        errors: own.reduce((sum, run) => sum + run.errors + run.timeouts, 0),
        runs: own,
      }
    })
    return { seconds, connections, rounds, warmupSeconds, results }
  } finally {
    await Promise.all([...servers.values(), origin].filter(Boolean).map((s) => s.stop()))
  }
}
