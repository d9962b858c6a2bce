// Redis CPU per new-user decision when one process receives `crowd` new users in one turn (#16, batch17): the core
// batches them into one takeSlots EVALSHA (src/coordination/slot-batch.ts), so the script's fixed cost is shared.
// Starts its own redis-server on a free port (so no other client's EVALSHAs are counted), runs each decision path
// (bench-paths.mjs: location grant, Anywhere grant, no slot, a ticket asking again) at each crowd size, `crowd`
// decisions asked in one turn and awaited together, and prints Redis's own µs per decision (INFO commandstats:
// EVALSHA usec ÷ decisions, i.e. usec_per_call ÷ batch size) and EVALSHAs (round trips) per decision; with
// BENCH_BEFORE, another checkout's adapter (its takeSlot per decision, no batching) in the same rounds, alternating.
// Under BENCH_CALLGRIND=1 the server runs under callgrind counting inside evalShaCommand: instructions per decision,
// independent of the machine's load. Prints figures; asserts nothing.
//
//   node adapters/upstash/bench-batch.mjs [decisions per cell=4000] [crowds=1,8,50] [rounds=3]
//   BENCH_BEFORE=/other/checkout/adapters/upstash/index.ts …
//   BENCH_PATHS='location grant,no slot' …   (only these paths)   BENCH_KEEP=/some/dir …   (keeps each callgrind dump)
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { bundleNodeModule, root } from './test/bundle.mjs'
import { connect, decisionPaths, warmRoom } from './test/bench-paths.mjs'

const DECISIONS = Number(process.argv[2] ?? 4000)
const CROWDS = (process.argv[3] ?? '1,8,50').split(',').map(Number)
const ROUNDS = Number(process.argv[4] ?? 3)
const ROOM_SIZE = 200 // a multiple of every crowd size: a crowd never spans two rooms
const CALLGRIND = process.env.BENCH_CALLGRIND === '1'
const PORT = 17_000 + (process.pid % 900) + 70
const MINUTE = Math.floor(Date.now() / 60_000)

const dir = mkdtempSync(join(tmpdir(), 'wr-batch-'))
writeFileSync(join(dir, 'now-entry.ts'), `export * from '${root}adapters/upstash/index.ts'\nexport { takeSlotBatched } from '${root}src/coordination/slot-batch.ts'\n`)
const load = async (entry, name) => import(pathToFileURL(await bundleNodeModule(entry, join(dir, name))).href)
const sides = { now: await load(join(dir, 'now-entry.ts'), 'now.mjs') }
if (process.env.BENCH_BEFORE) sides.before = await load(process.env.BENCH_BEFORE, 'before.mjs')

const server = CALLGRIND
  ? spawn('valgrind', ['--tool=callgrind', '--toggle-collect=evalShaCommand', `--callgrind-out-file=${dir}/cg.out`, 'redis-server', '--port', String(PORT), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  : spawn('redis-server', ['--port', String(PORT), '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
const client = await connect(PORT)

let dumps = 0
/** Instructions inside evalShaCommand since the last call (callgrind only). */
function instructions() {
  execFileSync('callgrind_control', ['-d', String(server.pid)], { stdio: 'ignore' })
  dumps++
  const file = readdirSync(dir).find((name) => name.startsWith('cg.out.') && name.endsWith(`.${dumps}`))
  return Number(readFileSync(join(dir, file), 'utf8').match(/^(?:totals|summary): (\d+)/m)[1])
}
async function evalsha() {
  const stats = (await client.info('commandstats')).match(/cmdstat_evalsha:calls=(\d+),usec=(\d+)/)
  return stats ? { calls: Number(stats[1]), usec: Number(stats[2]) } : { calls: 0, usec: 0 }
}

const paths = decisionPaths(MINUTE)
const cells = {}
let rooms = 0
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, request] of Object.entries(paths)) {
    if (process.env.BENCH_PATHS && !process.env.BENCH_PATHS.split(',').includes(name)) continue
    for (const crowd of CROWDS) {
      for (const [side, adapter] of Object.entries(sides)) {
        const coordinator = adapter.upstashCoordinator(adapter.fromNodeRedis(client), { prefix: `wrb-${side}` })
        const ask = side === 'now' ? (r) => adapter.takeSlotBatched(coordinator, r) : (r) => coordinator.takeSlot(r)
        const first = rooms
        const seen = []
        for (let room = 0; room < Math.ceil(DECISIONS / ROOM_SIZE); room++) seen.push(await warmRoom(coordinator, request, first + room, MINUTE))
        rooms += seen.length
        await ask(request(first, 'load', seen[0])) // loads the script: the EVAL is not counted
        if (CALLGRIND) instructions()
        const before = await evalsha()
        for (let i = 0; i < DECISIONS; i += crowd) {
          const room = Math.floor(i / ROOM_SIZE)
          // `crowd` new users in one turn, as one process receives them when a crowd arrives.
          await Promise.all(Array.from({ length: crowd }, (_, j) => ask(request(first + room, i + j, seen[room]))))
        }
        const after = await evalsha()
        const cell = ((cells[`${name}, ${crowd} at once`] ??= {})[side] ??= { usec: [], trips: 0, instructions: 0 })
        cell.usec.push((after.usec - before.usec) / DECISIONS)
        cell.trips = (after.calls - before.calls) / DECISIONS
        if (CALLGRIND) cell.instructions = Math.round(instructions() / DECISIONS)
        if (CALLGRIND && process.env.BENCH_KEEP) execFileSync('cp', [join(dir, readdirSync(dir).find((f) => f.endsWith(`.${dumps}`))), join(process.env.BENCH_KEEP, `${side}-${name.replace(/\W+/g, '-')}-${crowd}.callgrind`)])
      }
    }
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const rows = {}
for (const [label, bySide] of Object.entries(cells)) {
  const row = (rows[label] = {})
  for (const [side, cell] of Object.entries(bySide)) {
    row[`${side} µs`] = Number(median(cell.usec).toFixed(2))
    row[`${side} trips`] = Number(cell.trips.toFixed(3))
    if (CALLGRIND) row[`${side} instr`] = cell.instructions
  }
}
const version = (await client.info('server')).match(/redis_version:(\S+)/)?.[1]
console.log(`redis-server ${version}${CALLGRIND ? ' under callgrind' : ''}, ${DECISIONS} decisions per cell, ${ROUNDS} rounds (median), load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`)
console.log('Redis µs per decision (INFO commandstats: EVALSHA usec ÷ decisions); trips: EVALSHAs per decision')
console.table(rows)
await client.quit()
server.kill()
await new Promise((resolve) => server.once('exit', resolve))
rmSync(dir, { recursive: true, force: true })
