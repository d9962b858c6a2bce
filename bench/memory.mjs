// Server-side memory for 1,000,000 queued users spread over 60 minute buckets and 300 locations: the
// state a memory coordinator holds for them (and, separately, what one worker holds: the room state it
// synced and the snapshot built from it). Heap measured with `--expose-gc`, a full GC before each reading.
//
//   node --expose-gc bench/memory.mjs [--users 1000000] [--locations 300] [--buckets 60]
import { dist, option, printResult, round } from './lib.mjs'
import { locationCounts, MINUTE, NOW, roomState, waitingIn } from './fixtures.mjs'

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
const users = Number(option(process.argv, 'users', '1000000'))
const locations = Number(option(process.argv, 'locations', '300'))
const buckets = Number(option(process.argv, 'buckets', '60'))

const { memoryCoordinator } = await dist('adapters/memory/index.js')
const { WorkerLink } = await dist('src/coordination/worker-link.js')
const { LocationAggregator } = await dist('src/coordination/aggregator.js')
const { randomId } = await dist('src/ticket/ticket.js')

const heap = () => {
  for (let i = 0; i < 3; i++) globalThis.gc()
  return process.memoryUsage().heapUsed
}
const MB = 1024 * 1024
let keep // what is measured stays reachable through this until the second reading

/** Heap growth while `build()` runs and its result stays alive. */
async function measure(build) {
  keep = undefined
  const before = heap()
  keep = await build()
  const after = heap()
  return after - before
}

// 1. The coordinator: one report per location carrying that location's counts (the same state many small
//    reports would add up to), merged by its location aggregator and exchanged with the global aggregator.
const perLocation = Array.from({ length: locations }, (_, i) =>
  locationCounts({ buckets, waiting: Math.floor(users / locations) + (i < users % locations ? 1 : 0) }),
)
const fields = perLocation.reduce((sum, counts) => sum + Object.keys(counts).length, 0)
const waitingFields = perLocation.reduce((sum, counts) => sum + Object.keys(counts).filter((f) => f[0] === 'w').length, 0)
let check = 0
/**
 * Every location reports its counts once, then once more with nothing new — the steady state, where every
 * location has exchanged with the global aggregator since every other one joined.
 */
async function fillCoordinator(countsOf) {
  const coordinator = memoryCoordinator()
  let state
  for (const round of [0, 1]) {
    for (let i = 0; i < locations; i++) {
      const deltas = round === 0 ? countsOf(i) : {}
      state = await coordinator.sync({ id: randomId(), roomId: 'bench', location: `l${i}`, at: NOW + round * 1000, keepMinutes: 11, deltas })
    }
  }
  return { coordinator, state }
}
let firstRound = 0
const coordinatorBytes = await measure(async () => {
  // A copy of each location's counts, so the fixture's own objects are not what is measured.
  const { coordinator, state } = await fillCoordinator((i) => ({ ...perLocation[i] }))
  check = waitingIn(state)
  return coordinator
})
// The same, one round only: what the coordinator holds while locations are still joining.
firstRound = await measure(async () => {
  const coordinator = memoryCoordinator()
  for (let i = 0; i < locations; i++) {
    await coordinator.sync({ id: randomId(), roomId: 'bench', location: `l${i}`, at: NOW, keepMinutes: 11, deltas: { ...perLocation[i] } })
  }
  return coordinator
})
if (check !== users) throw new Error(`fixture holds ${check} waiting users, not ${users}`)

// 2. One worker: the room state of every location (as a sync answers it) and the snapshot built from it.
const workerBytes = await measure(async () => {
  const state = roomState({ locations, waitingUsers: users, buckets })
  const link = new WorkerLink({ roomId: 'bench', sessionDurationMinutes: 5, syncIntervalMs: 1000, maxSnapshotAgeMs: 5000, timeoutMs: 1000, clock: () => NOW })
  await link.sync({ name: 'fixed', increment: async () => ({ taken: false, seq: 0 }), sync: async () => state }, 'l0', NOW)
  return link
})
const snapshot = keep.snapshot(NOW)

// 3. Not users but reports: a location aggregator remembers every report id for 10 minutes (up to 50,000),
//    so retried reports are applied once. One report a second from each location for 10 minutes:
const reportsPerLocation = Number(option(process.argv, 'reports', '600'))
const reportIdBytes = await measure(() => {
  const aggregators = []
  for (let i = 0; i < locations; i++) {
    const aggregator = new LocationAggregator(`l${i}`)
    for (let r = 0; r < reportsPerLocation; r++) {
      aggregator.apply({ id: randomId(), roomId: 'bench', location: `l${i}`, at: NOW + r * 1000, keepMinutes: 11, deltas: {} }, NOW + r * 1000)
    }
    aggregators.push(aggregator)
  }
  return aggregators
})
keep = undefined

// The same 300 × 60 state with twice and ten times the users: memory must not move (O(fields), not O(users)).
const scaling = []
for (const factor of [0.1, 1, 10]) {
  const n = Math.round(users * factor)
  const bytes = await measure(async () => (await fillCoordinator(() => locationCounts({ buckets, waiting: Math.floor(n / locations) }))).coordinator)
  scaling.push({ users: n, bytes })
}
keep = undefined

const result = {
  users,
  locations,
  buckets,
  minute: MINUTE,
  fields,
  waitingFields,
  coordinatorBytes,
  coordinatorMB: round(coordinatorBytes / MB, 3),
  firstRoundBytes: firstRound,
  firstRoundMB: round(firstRound / MB, 3),
  bytesPerField: round(coordinatorBytes / fields, 1),
  workerBytes,
  workerMB: round(workerBytes / MB, 3),
  snapshotBuckets: snapshot.buckets.length,
  reportsPerLocation,
  reportIdBytes,
  reportIdMB: round(reportIdBytes / MB, 3),
  scaling: scaling.map((s) => ({ users: s.users, MB: round(s.bytes / MB, 3) })),
  targetMB: 2,
}
console.log(
  `${users.toLocaleString('en-US')} queued users, ${locations} locations × ${buckets} buckets: ${fields} fields; ` +
    `coordinator ${result.coordinatorMB} MB (${result.bytesPerField} B/field; ${result.firstRoundMB} MB after one round), one worker ${result.workerMB} MB, ` +
    `report ids (${reportsPerLocation}/location) ${result.reportIdMB} MB; scaling ${JSON.stringify(result.scaling)}`,
)
printResult(result)
