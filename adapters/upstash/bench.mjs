// Measures the Redis adapter against the real redis-server on 127.0.0.1:6379 (database 13, keys under a
// fresh prefix, deleted afterwards). Prints figures; asserts nothing about speed.
//
//   node adapters/upstash/bench.mjs [decisions=20000] [concurrency=64]
//
// For each client — node-redis over TCP, and @upstash/redis over REST through the test bridge — it
// measures new-user decisions per second (takeSlot: location counter, then Anywhere) next to a bare
// INCR through the same client in the same run, the latency of one decision at a time, and the round
// trips per decision, counted by wrapping the client (and, for REST, by the bridge's HTTP requests).
// Redis's own time per command (INFO commandstats) separates server cost from client and transport.
// The REST figures measure the local bridge (one Node process in front of Redis), not Upstash.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Redis } from '@upstash/redis'
import { createClient } from 'redis'
import { bundleNodeModule, root } from './test/bundle.mjs'

const DECISIONS = Number(process.argv[2] ?? 20_000)
const CONCURRENCY = Number(process.argv[3] ?? 64)
const LATENCY_SAMPLES = 500
const ROUNDS = 3
const DATABASE = 13
const MINUTE = Math.floor(Date.now() / 60_000)
const prefix = `wrbench-${crypto.randomUUID().slice(0, 8)}`

const outDir = await mkdtemp(join(tmpdir(), 'wr-upstash-bench-'))
const load = async (entry, name) => import(pathToFileURL(await bundleNodeModule(`${root}${entry}`, join(outDir, name))).href)
const { upstashCoordinator, fromNodeRedis } = await load('adapters/upstash/index.ts', 'adapter.mjs')
const { startUpstashBridge } = await load('test/support/upstash-bridge.ts', 'bridge.mjs')

const tcp = await createClient({ url: 'redis://127.0.0.1:6379', database: DATABASE, socket: { reconnectStrategy: false } }).connect()
const bridge = await startUpstashBridge({ database: DATABASE })
const rest = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false })

/** Wraps a client in the adapter's shape, counting the calls it makes to Redis. */
function counting(client) {
  const counted = {
    calls: 0,
    evalsha: (...args) => (counted.calls++, client.evalsha(...args)),
    eval: (...args) => (counted.calls++, client.eval(...args)),
  }
  return counted
}

/** Runs `total` calls of `task(i)` with `concurrency` in flight; returns calls per second. */
async function throughput(total, concurrency, task) {
  let next = 0
  const started = performance.now()
  const lane = async () => {
    while (next < total) await task(next++)
  }
  await Promise.all(Array.from({ length: concurrency }, lane))
  return total / ((performance.now() - started) / 1000)
}

/** Median and p99 of `samples` sequential calls, in ms. */
async function latency(samples, task) {
  const times = []
  for (let i = 0; i < samples; i++) {
    const started = performance.now()
    await task(i)
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return { p50: times[Math.floor(samples / 2)], p99: times[Math.floor(samples * 0.99)] }
}

/** Redis's own time per call (INFO commandstats), to tell server cost from client and transport cost. */
async function commandStats() {
  const stats = {}
  for (const [, name, calls, usec] of (await tcp.info('commandstats')).matchAll(/cmdstat_(\w+):calls=(\d+),usec=(\d+)/g)) {
    stats[name] = { calls: Number(calls), usec: Number(usec) }
  }
  return stats
}
const serverMicros = (before, after, name) =>
  ((after[name]?.usec ?? 0) - (before[name]?.usec ?? 0)) / Math.max(1, (after[name]?.calls ?? 0) - (before[name]?.calls ?? 0))

const clients = {
  'node-redis (TCP)': { scripting: fromNodeRedis(tcp), incr: (key) => tcp.incr(key) },
  '@upstash/redis (REST via bridge)': { scripting: rest, incr: (key) => rest.incr(key) },
}

const rows = []
for (const [label, client] of Object.entries(clients)) {
  const wrapped = counting(client.scripting)
  const coordinator = upstashCoordinator(wrapped, { prefix })
  const decide = (run) => (i) =>
    coordinator.takeSlot({ roomId: `bench-${run}`, location: 'local', minute: MINUTE, localLimit: 1e9, anywhereLimit: 1e9, token: `t${i}` })
  await decide('warm')(0) // loads the script: the one decision per server lifetime that costs 2 round trips

  const callsBefore = wrapped.calls
  const requestsBefore = bridge.requests
  const roundTripsReported = []
  for (let i = 0; i < 1000; i++) roundTripsReported.push((await decide('trips')(i)).roundTrips)
  const perDecision = (wrapped.calls - callsBefore) / 1000
  const httpPerDecision = label.includes('REST') ? (bridge.requests - requestsBefore) / 1000 : undefined

  // Alternating rounds, best of each: a shared machine's noise hits both sides alike.
  const statsBefore = await commandStats()
  let decisionsPerSecond = 0
  let incrPerSecond = 0
  for (let round = 0; round < ROUNDS; round++) {
    decisionsPerSecond = Math.max(decisionsPerSecond, await throughput(DECISIONS, CONCURRENCY, decide(`rate${round}`)))
    incrPerSecond = Math.max(incrPerSecond, await throughput(DECISIONS, CONCURRENCY, () => client.incr(`${prefix}:incr`)))
  }
  const statsAfter = await commandStats()
  const decisionLatency = await latency(LATENCY_SAMPLES, decide('latency'))
  const incrLatency = await latency(LATENCY_SAMPLES, () => client.incr(`${prefix}:incr`))
  rows.push({
    client: label,
    'decisions/s': Math.round(decisionsPerSecond),
    'INCR/s': Math.round(incrPerSecond),
    'decision/INCR': (decisionsPerSecond / incrPerSecond).toFixed(2),
    'decision p50 ms': decisionLatency.p50.toFixed(3),
    'INCR p50 ms': incrLatency.p50.toFixed(3),
    'decision p99 ms': decisionLatency.p99.toFixed(3),
    'Redis µs/EVALSHA': serverMicros(statsBefore, statsAfter, 'evalsha').toFixed(2),
    'Redis µs/INCR': serverMicros(statsBefore, statsAfter, 'incr').toFixed(2),
    'round trips/decision': perDecision,
    'reported roundTrips': Math.max(...roundTripsReported),
    ...(httpPerDecision === undefined ? {} : { 'HTTP requests/decision': httpPerDecision }),
  })
}

console.log(`${DECISIONS} decisions and ${DECISIONS} INCRs per client and round, ${CONCURRENCY} in flight, best of ${ROUNDS} alternating rounds; latency over ${LATENCY_SAMPLES} sequential calls`)
console.log(`node ${process.version}, redis-server ${(await tcp.info('server')).match(/redis_version:(\S+)/)?.[1]} on 127.0.0.1`)
for (const row of rows) {
  console.log(`\n${row.client}`)
  for (const [key, value] of Object.entries(row)) if (key !== 'client') console.log(`  ${key.padEnd(24)} ${value}`)
}

let deleted = 0
for await (const keys of tcp.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) if (keys.length) deleted += await tcp.unlink(keys)
await bridge.close()
await tcp.close()
await rm(outDir, { recursive: true, force: true })
console.log(`\n(cleaned up ${deleted} keys)`)
