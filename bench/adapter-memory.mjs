// The memory adapter: decisions per second (takeSlot through the core's `takeSlot`) next to its backend's
// bare operation (an awaited Map increment, what its counter is built on), and round trips per new-user
// decision through the real middleware (`app.request`, a fake clock, two minutes so locations get shares).
// Prints a BENCH_RESULT line in the shape every adapter bench is asked for (see bench/README.md).
import { Hono } from 'hono'
import { dist, median, option, printResult, round } from './lib.mjs'

const OPS = Number(option(process.argv, 'ops', '200000'))
const ROUNDS = 3
const { memoryCoordinator } = await dist('adapters/memory/index.js')
const { takeSlot } = await dist('src/coordination/coordinator.js')
const { waitingRoom } = await dist('src/room/middleware.js')

const cpuNow = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}

/** Calls per CPU second of `op(i)`, `inFlight` at a time. */
async function rate(total, inFlight, op) {
  let next = 0
  const cpu = cpuNow()
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < total) await op(next++)
  }))
  return total / ((cpuNow() - cpu) / 1e6)
}

const MINUTE = Math.floor(Date.now() / 60_000)
const rows = []
for (const inFlight of [1, 64]) {
  const decision = []
  const bare = []
  const bookkeeping = []
  for (let r = 0; r < ROUNDS; r++) {
    const coordinator = memoryCoordinator()
    decision.push(await rate(OPS, inFlight, (i) => takeSlot(coordinator, { roomId: 'bench', location: 'local', minute: MINUTE, localLimit: 1e12, anywhereLimit: 0, token: `t${i}` })))
    const map = new Map()
    const increment = async (key) => {
      const value = (map.get(key) ?? 0) + 1
      map.set(key, value)
      return value
    }
    bare.push(await rate(OPS, inFlight, () => increment('bench\nlocal')))
    // The same bookkeeping a decision needs (a per-minute key, the ticket remembered for idempotent
    // retries), without the core or the adapter: what a decision could cost at best.
    const counters = new Map()
    bookkeeping.push(
      await rate(OPS, inFlight, async (i) => {
        const key = `bench\nlocal\n${MINUTE}`
        let counter = counters.get(key)
        if (!counter) counters.set(key, (counter = { count: 0, tokens: new Map() }))
        const token = `t${i}`
        if (counter.tokens.has(token)) return
        counter.tokens.set(token, counter.count++)
      }),
    )
  }
  const decisionsPerSecond = median(decision)
  const barePerSecond = median(bare)
  const bookkeepingPerSecond = median(bookkeeping)
  rows.push({
    client: `in-process, ${inFlight} in flight`,
    decisionsPerSecond: Math.round(decisionsPerSecond),
    bareOp: 'awaited Map increment',
    barePerSecond: Math.round(barePerSecond),
    ratio: round(decisionsPerSecond / barePerSecond, 3),
    microsPerDecision: round(1e6 / decisionsPerSecond, 3),
  })
  rows.push({
    client: `in-process, ${inFlight} in flight, vs the same bookkeeping inline`,
    decisionsPerSecond: Math.round(decisionsPerSecond),
    bareOp: 'per-minute key + counter + token Map, inline',
    barePerSecond: Math.round(bookkeepingPerSecond),
    ratio: round(decisionsPerSecond / bookkeepingPerSecond, 3),
    microsPerDecision: round(1e6 / decisionsPerSecond, 3),
  })
}

// Round trips per new-user decision, through the middleware. Minute 0: users at `sjc` (traffic history);
// minute 2: `sjc` has a share of the slots, `nrt` has none. Limits leave sjc's allocation short, so the
// last sjc users fall through to the Anywhere counter (the 2-round-trip case).
const calls = new Map()
const inner = memoryCoordinator()
const counting = {
  name: inner.name,
  preferredSyncIntervalMs: inner.preferredSyncIntervalMs,
  increment: (request) => {
    calls.set(request.token, (calls.get(request.token) ?? 0) + 1)
    return inner.increment(request)
  },
  sync: (report) => inner.sync(report),
  // A fused takeSlot (location, then Anywhere, in one call) is one round trip, however many counters it tries.
  ...(inner.takeSlot
    ? {
        takeSlot: (request) => {
          calls.set(request.token, (calls.get(request.token) ?? 0) + 1)
          return inner.takeSlot(request)
        },
      }
    : {}),
}
let now = MINUTE * 60_000 + 1000
let location = 'sjc'
const room = waitingRoom({
  secret: 'bench-secret-0123456789abcdef0123456789abcdef',
  totalActiveUsers: 1000,
  newUsersPerMinute: 100,
  coordinator: counting,
  clock: () => now,
  location: () => location,
})
const app = new Hono().use(room).get('/', (c) => c.text(c.get('waitingRoom').ticketId ?? ''))
const users = async (n, where) => {
  location = where
  const ids = []
  for (let i = 0; i < n; i++) ids.push(await (await app.request('/')).text())
  return ids
}
await users(40, 'sjc') // minute 0: 40 of 1000 → sjc's share is 4% → 4 of the 100 slots two minutes later
now += 2 * 60_000
const decisions = [...(await users(20, 'sjc')), ...(await users(20, 'nrt'))]
const trips = decisions.map((id) => calls.get(id) ?? 0)
const histogram = {}
for (const t of trips) histogram[t] = (histogram[t] ?? 0) + 1

printResult({
  adapter: 'memory',
  runtime: `node ${process.version}`,
  rows,
  roundTripsPerDecision: round(trips.reduce((a, b) => a + b, 0) / trips.length, 3),
  roundTripsHistogram: histogram,
  roundTripsNote: 'counter calls per new user through the middleware: 20 at a location with a share of 4 slots (4 take 1 call, 16 fall through to Anywhere: 2), 20 at a location without a share (1 call, Anywhere)',
  note: 'rates per CPU second, in one process; the backend is a Map, so any bookkeeping dwarfs the bare operation',
})
console.log(JSON.stringify(rows), JSON.stringify(histogram))
