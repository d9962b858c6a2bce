#!/usr/bin/env node
/**
 * `npm run test:load` — the load and soak tests of the standalone proxy, on loopback only, bounded in
 * time and size, stopping by themselves. Every process is the real executable (`node
 * dist/bin/hono-waiting-room.js`, rebuilt first when dist/ is older than the sources), several of them
 * sharing one room, in front of a tiny origin:
 *
 * 1. Burst, on SQLite (`--store`) and then on Redis (`--redis`): 3 proxies, limits 200 active / 200 new
 *    per minute; 10,000 cookieless new users (2,000 with --short) all in flight at once, from several
 *    generator processes (see burst-client.mjs for what "at once" means). At most 200 may reach the
 *    origin in any minute (counted by the origin, per minute), no 5xx, no failed request.
 * 2. Soak, on SQLite and on Redis side by side: 3 proxies each, 3 minutes (30 s with --short) of steady
 *    mixed traffic (soak-client.mjs), 1-minute sessions. Every proxy's memory is sampled (RSS from /proc,
 *    and the heap after a full GC) and must stay flat; at the end the room's counts read from the store
 *    through the adapter (`sync` with an empty report, then buildSnapshot) must equal the recount of what
 *    the load generator observed: active users, and admissions and active tickets per minute.
 * 3. Crash, on SQLite and on Redis side by side (crash.mjs): 3 proxies, limits 7/7, 2-minute sessions; the
 *    first to answer a user it let in in a burst dies by SIGKILL right then, and is restarted 20 s later;
 *    for 3 minutes (both forms) active users never exceed 7, and the store's count equals the live sessions
 *    at the end. It runs alongside the others, which start once its crashes are done, so their load cannot
 *    delay a crash.
 * 4. Bots (bots.mjs): 3 proxies on SQLite, a room with free places and `--challenge proof-of-work --challenge-when
 *    always`; 10,000 cookieless requests that skip the challenge (2,000 with --short): 0 reach the origin.
 *
 * Usage: node test/load/run.mjs [--short] [--only burst|soak|crash|bots]
 * Environment: WR_LOAD_REDIS_URL (default redis://127.0.0.1:6379/13: the tests' database, keys deleted after).
 * Prints a summary and, last, `N passed, M failed`; exits 1 on any failure.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { botsCase } from './bots.mjs'
import { mergeResults, percentile } from './results.mjs'
import { startCrashCase } from './crash.mjs'
import { exitOf, installCleanup, killAll, procMemory, startChild, stop, waitForLine } from './processes.mjs'
import { deleteRedisRooms, readRoom, sameCounts, within } from './store.mjs'

/** How far the store may exceed the generator's recount in a minute: grants answered after the coordinator timeout (see store.mjs `within`). */
const LATE_GRANT_SLACK = 2

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const HERE = fileURLToPath(new URL('.', import.meta.url))
const BIN = join(ROOT, 'dist', 'bin', 'hono-waiting-room.js')
const GUARD = pathToFileURL(join(HERE, 'child-guard.mjs')).href
const SHORT = process.argv.includes('--short')
const ONLY = (() => {
  const i = process.argv.indexOf('--only')
  const value = i === -1 ? undefined : process.argv[i + 1]
  if (value !== undefined && !['burst', 'soak', 'crash', 'bots'].includes(value)) {
    console.error('usage: node test/load/run.mjs [--short] [--only burst|soak|crash|bots]')
    process.exit(2)
  }
  return value
})()
const REDIS_URL = process.env.WR_LOAD_REDIS_URL || 'redis://127.0.0.1:6379/13'
/** Where readRoom finds the build and the store. */
const STORE = { root: ROOT, redisUrl: REDIS_URL }
const RUN = randomBytes(4).toString('hex')
const SECRET = randomBytes(32).toString('base64url')
const T0 = Date.now()

const PROFILE = SHORT
  ? {
      // The crash case's 3 minutes and more (the rest runs alongside it): about 4 minutes, and a build.
      budgetMs: 360_000,
      burst: { users: 2_000, generators: 3, proxies: 3, total: 200, perMinute: 200, needSeconds: 15, timeoutMs: 45_000 },
      soak: { durationMs: 30_000, warmupMs: 10_000, sampleMs: 1_500, proxies: 3 },
      bots: { users: 2_000, generators: 2, proxies: 3, timeoutMs: 45_000 },
    }
  : {
      budgetMs: 540_000,
      burst: { users: 10_000, generators: 4, proxies: 3, total: 200, perMinute: 200, needSeconds: 40, timeoutMs: 90_000 },
      soak: { durationMs: 180_000, warmupMs: 30_000, sampleMs: 3_000, proxies: 3 },
      bots: { users: 10_000, generators: 4, proxies: 3, timeoutMs: 90_000 },
    }
/** The soak's room and traffic, the same in both forms (only the length differs). */
const SOAK_ROOM = { total: 90, perMinute: 60, sessionMinutes: 1, refreshSeconds: 20 }
const SOAK_TRAFFIC = {
  arrivalsPerSecond: 8,
  browse: { minMs: 300, maxMs: 900, forMinMs: 10_000, forMaxMs: 40_000 },
  abandon: { minMs: 30_000, maxMs: 120_000 },
  flushMs: 10_000,
  maxUsers: 2_000,
  maxSockets: 32,
}
/** The last third's median may exceed the first third's by at most this factor (see memoryVerdict). */
const MEMORY_GROWTH_LIMIT = 1.2

// ---------------------------------------------------------------------------------------------------
// Results

const checks = []
const figures = {}
function check(name, ok, detail = '') {
  checks.push({ name, ok: Boolean(ok), detail })
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`)
}
const log = (text) => console.log(`[${((Date.now() - T0) / 1000).toFixed(1).padStart(6)} s] ${text}`)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`

let finished = false
function summary() {
  if (finished) return
  finished = true
  const passed = checks.filter((c) => c.ok).length
  const failed = checks.length - passed
  const seconds = ((Date.now() - T0) / 1000).toFixed(1)
  try {
    mkdirSync(join(ROOT, 'test-results'), { recursive: true })
    writeFileSync(join(ROOT, 'test-results', `load-${SHORT ? 'short' : 'full'}.json`), JSON.stringify({ short: SHORT, seconds: Number(seconds), checks, figures }, null, 2))
  } catch {
    // the summary line below is what counts
  }
  console.log(`\nload tests (${SHORT ? 'short' : 'full'} form) took ${seconds} s`)
  console.log(`${passed} passed, ${failed} failed`)
  process.exitCode = failed > 0 || checks.length === 0 ? 1 : 0
}

installCleanup((reason) => {
  check('the run completes', false, reason)
  summary()
})
const watchdog = setTimeout(() => {
  check('the run completes within its budget', false, `still running after ${PROFILE.budgetMs / 1000} s: stopped`)
  summary()
  killAll()
  process.exit(1)
}, PROFILE.budgetMs)
watchdog.unref()

// ---------------------------------------------------------------------------------------------------
// Setup: build, Redis, file limits, origin

/** The newest modification time of the TypeScript sources the build compiles. */
function newestSource(dir) {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'test' || entry.name.startsWith('.')) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (/\.(ts|html|json)$/.test(entry.name) && !/\.test\.ts$|\.bench\.ts$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

function ensureBuild() {
  const sources = Math.max(...['src', 'adapters', 'bin'].map((dir) => newestSource(join(ROOT, dir))))
  const built = existsSync(BIN) ? statSync(BIN).mtimeMs : 0
  if (built >= sources) {
    log('dist/ is up to date')
    return
  }
  log('dist/ is older than the sources: building (tsc -p tsconfig.build.json)')
  const started = Date.now()
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  })
  figures.buildSeconds = (Date.now() - started) / 1000
  if (!existsSync(BIN) || statSync(BIN).mtimeMs < started - 1000) {
    throw new Error(`the build did not produce ${relative(ROOT, BIN)}:\n${build.stdout}${build.stderr}`)
  }
  // tsc emits even when some other file has a type error; the executable is what these tests need.
  if (build.status !== 0) log(`warning: tsc reported errors (output written anyway):\n${(build.stdout + build.stderr).slice(0, 2000)}`)
  log(`built in ${figures.buildSeconds.toFixed(1)} s`)
}

function ensureRedis() {
  const result = spawnSync('bash', [join(ROOT, 'test', 'support', 'ensure-redis.sh')], { cwd: ROOT, encoding: 'utf8', timeout: 15_000 })
  if (result.status !== 0) throw new Error(`no Redis on 127.0.0.1:6379: ${result.stderr}`)
}

/** The soft and hard limits on open files children get by default. */
function fileLimits() {
  const read = (flag) => spawnSync('/bin/sh', ['-c', `ulimit -${flag}n`], { encoding: 'utf8' }).stdout.trim()
  const soft = Number(read('S')) || 1024
  const hardText = read('H')
  return { soft, hard: hardText === 'unlimited' ? Number.POSITIVE_INFINITY : Number(hardText) || soft }
}

/** A file limit for a child that needs `needed` descriptors: undefined (inherit) when the default is enough. */
function limitFor(needed, limits) {
  if (needed <= limits.soft) return undefined
  if (needed <= limits.hard) return Math.min(limits.hard, Math.max(needed, 4096))
  throw new Error(`a child needs ${needed} open files but ulimit -Hn is ${limits.hard}: lower the burst size or raise the limit`)
}

// NODE_PATH: better-sqlite3 (for --store) is installed in test/runtimes/ and found through it.
const CHILD_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_PATH: process.env.NODE_PATH ?? '', NODE_ENV: 'production' }

async function startOrigin() {
  const origin = startChild('origin', process.execPath, [join(HERE, 'origin.mjs')], {
    cwd: ROOT,
    env: { ...CHILD_ENV, WR_LOAD_MAX_LIFETIME_MS: String(PROFILE.budgetMs + 60_000) },
    fileLimit: limitFor(4096, fileLimits()),
  })
  const match = await waitForLine(origin, /origin listening on (\d+)/, 20_000)
  return { child: origin, url: `http://127.0.0.1:${match[1]}` }
}

async function originStats(origin, scenario) {
  const response = await fetch(`${origin.url}/__stats`)
  const all = await response.json()
  return all[scenario] ?? {}
}

/**
 * Starts `count` proxies of one group; resolves when all listen. Each child goes into `track` (a Set) as soon
 * as it is spawned; `env` adds variables for child-guard.mjs (the crash case's WR_LOAD_CRASH_CLAIM).
 */
async function startProxies(label, args, count, { memoryMs = 0, fileLimit, lifetimeMs, track, env = {} }) {
  const proxies = []
  for (let i = 0; i < count; i++) {
    const memory = []
    const warnings = []
    const nodeArgs = ['--import', GUARD, ...(memoryMs > 0 ? ['--expose-gc'] : []), BIN, ...args]
    const child = startChild(`${label} proxy ${i + 1}`, process.execPath, nodeArgs, {
      cwd: ROOT,
      env: { ...CHILD_ENV, ...env, WR_LOAD_MAX_LIFETIME_MS: String(lifetimeMs), WR_LOAD_MEMORY_MS: String(memoryMs) },
      fileLimit,
      onStderrLine: (line) => {
        const m = /^@@mem (\d+) (\d+) (\d+) (\d+) (\d+)$/.exec(line)
        if (m) memory.push({ t: Number(m[1]), rss: Number(m[2]), heap: Number(m[3]) })
        else if (line.trim() && warnings.length < 50) warnings.push(line)
      },
    })
    track?.add(child)
    proxies.push({ child, memory, warnings, rss: [] })
  }
  const urls = await Promise.all(proxies.map((p) => waitForLine(p.child, /listening on (http:\/\/127\.0\.0\.1:\d+)/, 30_000)))
  proxies.forEach((p, i) => (p.url = urls[i][1]))
  return proxies
}

/** SIGTERM to every proxy; true when all exited 0 by themselves. */
async function stopProxies(proxies) {
  const codes = await Promise.all(proxies.map((p) => stop(p.child, 8000)))
  return { ok: codes.every((code) => code === 0), codes }
}

// ---------------------------------------------------------------------------------------------------
// Statistics

const median = (values) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/**
 * Flat memory, per series of samples taken after the warm-up: the median of the last third of the samples
 * is at most MEMORY_GROWTH_LIMIT times the median of the first third. Medians, not single samples, so a
 * collection landing just before or after one sample does not decide; thirds, so the two windows are a
 * whole third of the soak apart and a steady leak has that long to show. The bound leaves room for what
 * grows by design and is capped: the opened-ticket cache (20,000 entries) and the per-minute seen set.
 */
function memoryVerdict(samples, key) {
  if (samples.length < 6) return { ok: false, reason: `only ${samples.length} samples` }
  const third = Math.floor(samples.length / 3)
  const first = median(samples.slice(0, third).map((s) => s[key]))
  const last = median(samples.slice(-third).map((s) => s[key]))
  const values = samples.map((s) => s[key])
  return { ok: last <= first * MEMORY_GROWTH_LIMIT, first, last, ratio: last / first, min: Math.min(...values), max: Math.max(...values), n: samples.length }
}

// ---------------------------------------------------------------------------------------------------
// 1. Burst

async function burst(backend, origin, tmp, limits, redisRooms) {
  const P = PROFILE.burst
  const scenario = `burst-${backend}`
  const roomId = `load-${scenario}-${RUN}`
  if (backend === 'redis') redisRooms.push(roomId)
  const store = backend === 'sqlite' ? ['--store', join(tmp, 'burst.db')] : ['--redis', REDIS_URL]
  const args = ['--origin', `${origin.url}/s/${scenario}`, '--port', '0', '--secret', SECRET, '--room-id', roomId]
  args.push('--total-active-users', String(P.total), '--new-users-per-minute', String(P.perMinute), ...store)
  const perProxy = Math.ceil(P.users / P.proxies)
  const perGenerator = Math.ceil(P.users / P.generators)
  const proxies = await startProxies(scenario, args, P.proxies, { fileLimit: limitFor(perProxy + 256, limits), lifetimeMs: 5 * 60_000 })
  log(`burst on ${backend}: ${P.proxies} proxies up (${proxies.map((p) => p.url).join(', ')}), room ${roomId}`)

  // The burst starts right after a minute boundary unless enough of this minute is left for all of it.
  let startAt = Date.now() + 1500
  const left = 60_000 - (startAt % 60_000)
  if (left < P.needSeconds * 1000) startAt += left + 300
  log(`burst on ${backend}: ${P.users} users from ${P.generators} generators at ${new Date(startAt).toISOString().slice(11, 23)} (${((startAt - Date.now()) / 1000).toFixed(1)} s from now)`)
  const generators = []
  for (let g = 0; g < P.generators; g++) {
    const count = Math.min(perGenerator, P.users - g * perGenerator)
    const config = { targets: proxies.map((p) => p.url), count, offset: g * perGenerator, startAt, timeoutMs: P.timeoutMs }
    generators.push(
      startChild(`${scenario} generator ${g + 1}`, process.execPath, [join(HERE, 'burst-client.mjs'), JSON.stringify(config)], {
        cwd: ROOT,
        env: CHILD_ENV,
        fileLimit: limitFor(count + 64, limits),
      }),
    )
  }
  const results = []
  for (const generator of generators) {
    const code = await exitOf(generator, startAt - Date.now() + P.timeoutMs + 30_000)
    const line = generator.stdoutText.trim().split('\n').at(-1)
    if (code !== 0 || !line?.startsWith('{')) throw new Error(`${generator.label} failed (exit ${code}):\n${generator.stdoutText}${generator.stderrText}`)
    results.push(JSON.parse(line))
  }
  const peaks = proxies.map((p) => procMemory(p.child.pid)?.peak ?? Number.NaN)
  await sleep(200)
  const hits = await originStats(origin, scenario)
  const stopped = await stopProxies(proxies)

  const { sum, statuses, errors, latencies } = mergeResults(results)
  const issueStart = Math.min(...results.map((r) => r.issueStart))
  const issueEnd = Math.max(...results.map((r) => r.issueEnd))
  const firstResponse = Math.min(...results.map((r) => r.firstResponseAt))
  const lastResponse = Math.max(...results.map((r) => r.lastResponseAt))
  const admitted = sum('admitted')
  const minutes = Object.entries(hits).map(([minute, n]) => ({ minute: Number(minute), n }))
  const originTotal = minutes.reduce((total, m) => total + m.n, 0)
  const maxPerMinute = Math.max(0, ...minutes.map((m) => m.n))
  const straddled = Math.floor(issueStart / 60_000) !== Math.floor(lastResponse / 60_000)
  const fivexx = Object.entries(statuses).filter(([status]) => Number(status) >= 500).reduce((total, [, n]) => total + n, 0)
  const failedRequests = Object.values(errors).reduce((total, n) => total + n, 0)
  const figure = {
    users: P.users,
    generators: P.generators,
    admitted,
    originHitsByMinute: Object.fromEntries(minutes.map((m) => [m.minute, m.n])),
    queued: sum('queued'),
    statuses,
    errors,
    straddledMinute: straddled,
    startedSecondOfMinute: (issueStart % 60_000) / 1000,
    issueWindowMs: issueEnd - issueStart,
    firstResponseAfterIssueMs: firstResponse - issueEnd,
    peakInFlight: results.reduce((total, r) => total + r.peakInFlight, 0),
    durationMs: lastResponse - issueStart,
    requestsPerSecond: Math.round(P.users / ((lastResponse - issueStart) / 1000)),
    latencyMs: { p50: percentile(latencies, 0.5), p90: percentile(latencies, 0.9), p99: percentile(latencies, 0.99), max: latencies.at(-1) },
    proxyPeakRss: peaks.map(mb),
    proxyWarnings: proxies.flatMap((p) => p.warnings).slice(0, 5),
  }
  figures[scenario] = figure
  log(
    `burst on ${backend}: ${admitted} admitted, ${figure.queued} queued in ${(figure.durationMs / 1000).toFixed(1)} s ` +
      `(${figure.requestsPerSecond} req/s; p50 ${figure.latencyMs.p50} ms, p99 ${figure.latencyMs.p99} ms); all ${P.users} issued within ` +
      `${figure.issueWindowMs} ms, first answer ${figure.firstResponseAfterIssueMs} ms after the last was issued; peak RSS ${figure.proxyPeakRss.join(', ')}`,
  )
  if (figure.proxyWarnings.length > 0) log(`burst on ${backend}: the proxies said: ${figure.proxyWarnings.slice(0, 3).join(' | ')}`)
  const byMinute = minutes.map((m) => `${new Date(m.minute * 60_000).toISOString().slice(11, 16)}: ${m.n}`).join(', ')
  check(
    `burst ${backend}: at most ${P.perMinute} of ${P.users} concurrent new users admitted in any minute`,
    maxPerMinute <= P.perMinute && admitted > 0 && (straddled || admitted <= P.total),
    `origin saw ${byMinute || 'nothing'}${straddled ? ' (the burst straddled a minute boundary)' : ''}`,
  )
  check(`burst ${backend}: no 5xx and no failed request`, fivexx === 0 && failedRequests === 0, `statuses ${JSON.stringify(statuses)}${failedRequests ? `, errors ${JSON.stringify(errors)}` : ''}`)
  check(
    `burst ${backend}: every user answered, admitted ones by the origin, the rest with the queue page and a ticket`,
    admitted + figure.queued === P.users && sum('withTicket') === P.users && originTotal === admitted,
    `${admitted} admitted (origin counted ${originTotal}) + ${figure.queued} queued; ${sum('withTicket')} tickets`,
  )
  check(`burst ${backend}: every proxy exits 0 on SIGTERM`, stopped.ok, `exit codes ${stopped.codes.join(', ')}`)
}

// ---------------------------------------------------------------------------------------------------
// 2. Soak

async function soak(origin, tmp, limits, redisRooms) {
  const P = PROFILE.soak
  const groups = []
  for (const backend of ['sqlite', 'redis']) {
    const scenario = `soak-${backend}`
    const roomId = `load-${scenario}-${RUN}`
    if (backend === 'redis') redisRooms.push(roomId)
    const storePath = join(tmp, 'soak.db')
    const store = backend === 'sqlite' ? ['--store', storePath] : ['--redis', REDIS_URL]
    const args = ['--origin', `${origin.url}/s/${scenario}`, '--port', '0', '--secret', SECRET, '--room-id', roomId]
    args.push('--total-active-users', String(SOAK_ROOM.total), '--new-users-per-minute', String(SOAK_ROOM.perMinute))
    args.push('--session-duration', String(SOAK_ROOM.sessionMinutes), '--refresh-interval', String(SOAK_ROOM.refreshSeconds), ...store)
    const proxies = await startProxies(scenario, args, P.proxies, {
      memoryMs: P.sampleMs,
      fileLimit: limitFor(SOAK_TRAFFIC.maxSockets * 4 + 512, limits),
      lifetimeMs: P.durationMs + 4 * 60_000,
    })
    groups.push({ backend, scenario, roomId, storePath, proxies })
  }
  log(`soak: ${groups.map((g) => `${g.backend} on ${g.proxies.map((p) => p.url.split(':').at(-1)).join('/')}`).join('; ')}; ${P.durationMs / 1000} s of traffic`)

  const soakStart = Date.now()
  const sampler = setInterval(() => {
    const t = Date.now()
    for (const group of groups) for (const p of group.proxies) {
      const m = procMemory(p.child.pid)
      if (m) p.rss.push({ t, rss: m.rss })
    }
  }, P.sampleMs)
  let clients
  try {
    clients = groups.map((group, i) => {
      const config = {
        label: group.scenario,
        targets: group.proxies.map((p) => p.url),
        durationMs: P.durationMs,
        sessionDurationMinutes: SOAK_ROOM.sessionMinutes,
        seed: Number.parseInt(RUN, 16) + i,
        ...SOAK_TRAFFIC,
      }
      const client = startChild(`${group.scenario} generator`, process.execPath, [join(HERE, 'soak-client.mjs'), JSON.stringify(config)], { cwd: ROOT, env: CHILD_ENV })
      // The store as it is when the traffic stops, before the flush: for the report only.
      client.on('message', (message) => {
        if (message?.phase === 'flush') group.preFlush = readRoom(STORE, group.backend, group.roomId, group.storePath, SOAK_ROOM.sessionMinutes).catch(() => undefined)
      })
      return client
    })
    for (const [i, client] of clients.entries()) {
      const code = await exitOf(client, P.durationMs + SOAK_TRAFFIC.flushMs + 90_000 - (Date.now() - soakStart))
      const line = client.stdoutText.trim().split('\n').at(-1)
      if (code !== 0 || !line?.startsWith('{')) throw new Error(`${client.label} failed (exit ${code}):\n${client.stdoutText}${client.stderrText}`)
      groups[i].seen = JSON.parse(line)
    }
  } finally {
    clearInterval(sampler)
  }
  const trafficEnd = soakStart + P.durationMs

  for (const group of groups) {
    const { backend, seen, proxies } = group
    const room = await readRoom(STORE, backend, group.roomId, group.storePath, SOAK_ROOM.sessionMinutes)
    const before = await group.preFlush
    const totalOf = (counts) => Object.values(counts).reduce((total, n) => total + n, 0)
    const seenAdmissions = totalOf(seen.admissionsByMinute)
    const stopped = await stopProxies(proxies)
    const name = `soak ${backend}`
    const M = room.minute
    // Live when the store was read: sessions end on the room's 3.75-s grid, not at minute boundaries (session-end.mjs).
    const activeRecount = Object.values(seen.sessionEnds).filter((end) => end > room.now).length
    const keptFrom = M - (SOAK_ROOM.sessionMinutes + 6) + 1
    const admissions = sameCounts(room.admissions, seen.admissionsByMinute, keptFrom, LATE_GRANT_SLACK)
    const activeByMinute = sameCounts(room.active, seen.ticketsByLastMinute, keptFrom, LATE_GRANT_SLACK)
    const maxAdmissions = Math.max(0, ...Object.values(seen.admissionsByMinute))
    const fivexx = Object.entries(seen.statuses).filter(([status]) => Number(status) >= 500).reduce((total, [, n]) => total + n, 0)
    const failedRequests = Object.values(seen.errors).reduce((total, n) => total + n, 0)

    const memory = proxies.map((p, i) => {
      const afterWarmup = (samples) => samples.filter((s) => s.t >= soakStart + P.warmupMs && s.t <= trafficEnd)
      return { proxy: i + 1, rss: memoryVerdict(afterWarmup(p.rss), 'rss'), heap: memoryVerdict(afterWarmup(p.memory), 'heap') }
    })
    const memoryText = memory
      .map((m) => `#${m.proxy} RSS ${mb(m.rss.first)}→${mb(m.rss.last)} (×${m.rss.ratio?.toFixed(2)}), heap ${mb(m.heap.first)}→${mb(m.heap.last)} (×${m.heap.ratio?.toFixed(2)})`)
      .join('; ')
    figures[group.scenario] = {
      traffic: {
        seconds: seen.trafficSeconds,
        requestsPerSecond: Math.round(seen.requestsPerSecond),
        requests: seen.requests,
        outcomes: seen.outcomes,
        users: seen.users,
        latencyMs: seen.latencies,
        statuses: seen.statuses,
        errors: seen.errors,
        anomalies: seen.anomalies,
      },
      flush: {
        ...seen.flush,
        storeBeforeFlush: before && { activeUsers: before.snapshot.activeUsers, admissions: totalOf(before.admissions) },
        storeAfterFlush: { activeUsers: room.snapshot.activeUsers, admissions: totalOf(room.admissions) },
        seen: { admissions: seenAdmissions },
      },
      retriedResets: seen.retriedResets,
      recount: {
        readAtMinute: M,
        activeUsers: { store: room.snapshot.activeUsers, seen: activeRecount },
        admittedThisMinute: { store: room.snapshot.admittedThisMinute, seen: seen.admissionsByMinute[M] ?? 0 },
        admissionsByMinute: { store: room.admissions, seen: seen.admissionsByMinute },
        activeTicketsByLastMinute: { store: room.active, seen: seen.ticketsByLastMinute },
        locations: room.locations,
      },
      memory: memory.map((m) => ({
        proxy: m.proxy,
        samples: m.rss.n,
        rss: { firstThirdMedian: mb(m.rss.first), lastThirdMedian: mb(m.rss.last), ratio: Number(m.rss.ratio?.toFixed(3)), min: mb(m.rss.min), max: mb(m.rss.max) },
        heapAfterGc: { firstThirdMedian: mb(m.heap.first), lastThirdMedian: mb(m.heap.last), ratio: Number(m.heap.ratio?.toFixed(3)), min: mb(m.heap.min), max: mb(m.heap.max) },
      })),
      proxyWarnings: proxies.flatMap((p) => p.warnings).slice(0, 5),
    }
    log(
      `${name}: ${Math.round(seen.requestsPerSecond)} req/s for ${seen.trafficSeconds.toFixed(0)} s — ${seen.users.arrived} users arrived, ` +
        `${seen.outcomes.admitted} admitted, ${seen.outcomes.session} session requests (${seen.outcomes.renewed} renewals), ` +
        `${seen.outcomes.queued} queue pages, ${seen.users.abandoned} gave up; p99 ${seen.latencies.browse.p99}/${seen.latencies.checkIn.p99}/${seen.latencies.new.p99} ms (browse/check-in/new)` +
        `${seen.retriedResets ? `; ${seen.retriedResets} request(s) resent after a kept-alive connection was reset unanswered` : ''}`,
    )
    check(
      `${name}: no 5xx, no failed request, nothing unexpected`,
      // Nothing is tolerated: the too-early check-ins once seen here were the client's own early sends (soak-client.mjs).
      fivexx === 0 && failedRequests === 0 && seen.anomalyCount === 0,
      `statuses ${JSON.stringify(seen.statuses)}${failedRequests ? `, errors ${JSON.stringify(seen.errors)}` : ''}${seen.anomalyCount ? `, ${seen.anomalyCount} anomalies: ${seen.anomalies.slice(0, 3).join(' | ')}` : ''}`,
    )
    check(
      `${name}: every proxy reported its last counts (too-early check-ins for ${seen.flush.seconds.toFixed(0)} s)`,
      seen.flush.ok,
      `${seen.flush.pokes} pokes; admissions in the store before the flush ${before ? totalOf(before.admissions) : '?'}, after ${totalOf(room.admissions)}, seen ${seenAdmissions}`,
    )
    check(
      `${name}: active users in the store equal the recount of live admitted sessions (or exceed it by at most ${LATE_GRANT_SLACK} late grants)`,
      within(room.snapshot.activeUsers, activeRecount, LATE_GRANT_SLACK) && activeByMinute.ok,
      `store ${room.snapshot.activeUsers}, recount ${activeRecount} at minute ${M % 1000}; tickets by last minute ${activeByMinute.shown}${activeByMinute.ok ? '' : `; ${activeByMinute.diffs.join('; ')}`}`,
    )
    check(
      `${name}: admissions per minute in the store equal the recount (or exceed it by at most ${LATE_GRANT_SLACK} late grants)`,
      admissions.ok && within(room.snapshot.admittedThisMinute, seen.admissionsByMinute[M] ?? 0, LATE_GRANT_SLACK),
      `${admissions.shown}${admissions.ok ? '' : `; ${admissions.diffs.join('; ')}`}`,
    )
    check(`${name}: at most ${SOAK_ROOM.perMinute} admissions in any minute`, maxAdmissions <= SOAK_ROOM.perMinute && seen.outcomes.admitted > 0, `most in a minute: ${maxAdmissions}`)
    check(`${name}: memory stays flat (last third's median within +${Math.round((MEMORY_GROWTH_LIMIT - 1) * 100)}% of the first third's, after ${P.warmupMs / 1000} s warm-up)`, memory.every((m) => m.rss.ok && m.heap.ok), memoryText)
    check(`${name}: every proxy exits 0 on SIGTERM`, stopped.ok, `exit codes ${stopped.codes.join(', ')}`)
  }
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  log(`load tests, ${SHORT ? 'short' : 'full'} form${ONLY ? `, ${ONLY} only` : ''}; run ${RUN}`)
  ensureBuild()
  ensureRedis()
  const limits = fileLimits()
  log(`open files: ulimit -n ${limits.soft} (hard ${limits.hard})`)
  const tmp = mkdtempSync(join(tmpdir(), 'hwr-load-'))
  const redisRooms = []
  const origin = await startOrigin()
  const crash = ONLY === undefined || ONLY === 'crash' ? startCrashCase({ origin, tmp, run: RUN, secret: SECRET, redisUrl: REDIS_URL, redisRooms, root: ROOT, here: HERE, childEnv: CHILD_ENV, startProxies, check, log, figures }) : undefined
  // What a test cleans up after itself must spare the origin and the crash case running alongside.
  const spared = () => [origin.child, ...(crash?.children ?? [])]
  try {
    await crash?.killed
    if (ONLY === undefined || ONLY === 'burst') {
      for (const backend of ['sqlite', 'redis']) {
        try {
          await burst(backend, origin, tmp, limits, redisRooms)
        } catch (error) {
          check(`burst ${backend}: runs`, false, error instanceof Error ? error.message.slice(0, 2000) : String(error))
        } finally {
          killAll(spared())
        }
      }
    }
    if (ONLY === undefined || ONLY === 'bots') {
      try {
        const helpers = { startProxies, stopProxies, limitFor, originStats, startChild, exitOf, check, log, figures }
        await botsCase({ ...helpers, origin, tmp, limits, profile: PROFILE.bots, run: RUN, secret: SECRET, root: ROOT, here: HERE, childEnv: CHILD_ENV })
      } catch (error) {
        check('bots: runs', false, error instanceof Error ? error.message.slice(0, 2000) : String(error))
      } finally {
        killAll(spared())
      }
    }
    if (ONLY === undefined || ONLY === 'soak') {
      try {
        await soak(origin, tmp, limits, redisRooms)
      } catch (error) {
        check('soak: runs', false, error instanceof Error ? error.message.slice(0, 2000) : String(error))
      } finally {
        killAll(spared())
      }
    }
    await crash?.done
  } finally {
    await stop(origin.child, 2000)
    killAll()
    rmSync(tmp, { recursive: true, force: true })
    await deleteRedisRooms(REDIS_URL, redisRooms).catch((error) => log(`warning: could not delete the Redis keys: ${error.message}`))
  }
}

try {
  await main()
} catch (error) {
  check('the run completes', false, error instanceof Error ? error.message : String(error))
}
summary()
clearTimeout(watchdog)
