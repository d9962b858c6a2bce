// Instructions Redis executes per decision, by path: a load-independent companion to bench.mjs's Redis µs
// (INFO commandstats times commands by the wall clock, so a busy machine inflates them 2–3×). Starts its own
// redis-server under callgrind (valgrind) on a free port, counting only inside evalShaCommand and
// incrCommand, runs each decision path of this checkout (and of BENCH_BEFORE's, alternating, on the same
// server), a sync with and without a proposed reference, and a bare INCR, and prints instructions per call.
// Prints figures; asserts nothing.
//
//   node adapters/upstash/bench-instructions.mjs [decisions per path=1000]
// (a second server under callgrind, counting only inside incrCommand, gives the bare INCR)
//   BENCH_BEFORE=/other/checkout/adapters/upstash/index.ts …   (the same paths of another version, same server)
//   BENCH_KEEP=/some/dir …   (keeps each dump there: `callgrind_annotate --inclusive=yes` shows where they go)
import { spawn, execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleNodeModule, root } from './test/bundle.mjs'
import { connect, decisionPaths, warmRoom } from './test/bench-paths.mjs'

const DECISIONS = Number(process.argv[2] ?? 1000)
const ROOM_SIZE = 250
const IN_FLIGHT = 16
const PORT = 17_000 + (process.pid % 900) + 50
const MINUTE = Math.floor(Date.now() / 60_000)

const dir = mkdtempSync(join(tmpdir(), 'wr-callgrind-'))
const load = async (entry, name) => import(pathToFileURL(await bundleNodeModule(entry, join(dir, name))).href)
const sides = { now: await load(`${root}adapters/upstash/index.ts`, 'now.mjs') }
if (process.env.BENCH_BEFORE) sides.before = await load(process.env.BENCH_BEFORE, 'before.mjs')

/**
 * A redis-server under callgrind counting only inside `entry` (and what it calls). One per yardstick: callgrind's
 * toggle flips collection at every entry, so an incrCommand toggle would switch counting off for the INCR a script
 * runs inside evalShaCommand (the grants' figures were ~1,300 short that way before #16's second pass).
 */
function startServer(entry, port) {
  return spawn(
    'valgrind',
    ['--tool=callgrind', `--toggle-collect=${entry}`, `--callgrind-out-file=${dir}/cg-${entry}.out`, 'redis-server', '--port', String(port), '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  )
}
let counting = 'evalShaCommand'
let server = startServer(counting, PORT)
let client = await connect(PORT)

let dumps = 0
const control = (flag) => execFileSync('callgrind_control', [flag, String(server.pid)], { stdio: 'ignore' })
/** Instructions counted since the last zeroing: dumps them and reads the dump's total. */
function counted(label) {
  control('-d')
  dumps++
  const file = readdirSync(dir).find((name) => name.startsWith(`cg-${counting}.`) && name.endsWith(`.${dumps}`))
  if (process.env.BENCH_KEEP) copyFileSync(join(dir, file), join(process.env.BENCH_KEEP, `${label.replace(/\W+/g, '-')}.callgrind`))
  return Number(readFileSync(join(dir, file), 'utf8').match(/^(?:totals|summary): (\d+)/m)[1])
}

/** Runs `total` calls of `task(i)` with IN_FLIGHT in flight. */
async function run(total, task) {
  let next = 0
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < total) await task(next++)
  }))
}

const rows = {}
const paths = decisionPaths(MINUTE)
const rooms = Math.ceil(DECISIONS / ROOM_SIZE)
for (const [name, request] of Object.entries(paths)) {
  for (const [side, adapter] of Object.entries(sides)) {
    const coordinator = adapter.upstashCoordinator(adapter.fromNodeRedis(client), { prefix: `wri-${side}` })
    const seen = []
    for (let room = 0; room < rooms; room++) seen.push(await warmRoom(coordinator, request, room, MINUTE))
    control('-z')
    await run(DECISIONS, (i) => coordinator.takeSlot(request(i % rooms, i, seen[i % rooms])))
    ;(rows[name] ??= {})[side] = Math.round(counted(`${side} ${name}`) / DECISIONS)
  }
}
// Syncs (a worker's report of one delta, rooms of three locations) without and with a proposed reference traffic
// table (split14: 20 locations; of each minute's proposals the first is stored, the rest answered it).
const table = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`loc-${i}`, 100 + i]))
const syncReport = (roomId, i, proposing) => ({
  id: `sync-${i}-${Math.random()}`,
  roomId,
  location: `l${i % 3}`,
  at: MINUTE * 60_000 + i,
  keepMinutes: 31,
  deltas: { [`t${MINUTE}`]: 1 },
  ...(proposing ? { references: [{ minute: MINUTE + 1 + (i % 2), table, id: `sync-${i}` }] } : {}),
})
for (const [name, proposing] of [['sync', false], ['sync, 1 reference proposed', true]]) {
  for (const [side, adapter] of Object.entries(sides)) {
    const coordinator = adapter.upstashCoordinator(adapter.fromNodeRedis(client), { prefix: `wri-${side}` })
    const roomId = `sync-${proposing}`
    for (let i = 0; i < 3; i++) await coordinator.sync(syncReport(roomId, i, false))
    control('-z')
    await run(DECISIONS, (i) => coordinator.sync(syncReport(roomId, i, proposing)))
    ;(rows[name] ??= {})[side] = Math.round(counted(`${side} ${name}`) / DECISIONS)
  }
}
const version = (await client.info('server')).match(/redis_version:(\S+)/)?.[1]
await client.quit()
server.kill()
await new Promise((resolve) => server.once('exit', resolve))
counting = 'incrCommand'
server = startServer(counting, PORT + 1)
client = await connect(PORT + 1)
dumps = 0
control('-z')
await run(DECISIONS, () => client.incr('wri:incr'))
rows.INCR = { now: Math.round(counted('incr') / DECISIONS) }

console.log(`redis-server ${version} under callgrind, ${DECISIONS} calls per path in rooms of ${ROOM_SIZE}, ${IN_FLIGHT} in flight; instructions per call inside evalShaCommand (incrCommand for INCR)`)
console.table(rows)
await client.quit()
server.kill()
await new Promise((resolve) => server.once('exit', resolve))
rmSync(dir, { recursive: true, force: true })
