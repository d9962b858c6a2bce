// One process of the multi-process tests, under `node` (better-sqlite3) or `bun` (bun:sqlite).
// argv[2] is a JSON job; the worker prints lines to stdout and reads `go` from stdin when told to wait.
//   race:  print `ready`, wait for `go`, then `users` concurrent new users, arriving over `spreadMs`
//          so the processes' transactions interleave: takeSlot + a sync report each; print
//          `result {json}` and exit.
//   admit: take slots one by one, `paceMs` apart, printing `admitted <token>`; first retry the tokens
//          in `retry`, printing `repeat <token>` for those the counter remembers; print `full` when
//          the limit is reached (or 10 past it: a broken counter) and exit.
//   hold:  open a write transaction, write `rows` rows, print `holding`; after `holdMs` roll it back,
//          print `released` and exit; without `holdMs`, never end it (the test SIGKILLs the process).
//   epoch: sync `roomId`, print `epoch <id>`; on `go`, sync again and print `view <counts json>`, exit.
//   slots: print `ready`; for each line `<n>` on stdin, take n slots (takeSlot, `localLimit`) and print
//          `took <admitted> <errors>`; on `end`, exit.
//   room:  a waiting room on the file: one new user's request, print `outcome <status> <origin|queue page>`;
//          on `go`, wait for the adapter's next file check, another one, print `again …`, exit (the test runs
//          it as a user who cannot write the file at first).
import { adapter, openDatabase } from './load-adapter.mjs'

const job = JSON.parse(process.argv[2])
const db = openDatabase(job.file)
// `hold` takes the lock on a handle of its own: the coordinator would set the file up first.
const coordinator = job.mode === 'hold' ? undefined : adapter.sqliteCoordinator(db, job.options)
const say = (line) => process.stdout.write(`${line}\n`)
const lineFromStdin = () =>
  new Promise((resolve) => {
    process.stdin.setEncoding('utf8')
    process.stdin.once('data', (chunk) => resolve(String(chunk).trim()))
  })

async function race() {
  say('ready')
  await lineFromStdin()
  const { roomId, minute, location } = job
  const errors = []
  let admitted = 0
  const oneUser = async (i) => {
    await new Promise((resolve) => setTimeout(resolve, i % job.spreadMs))
    try {
      const token = `${job.name}-${i}`
      const slot = await coordinator.takeSlot({ roomId, location, minute, localLimit: job.localLimit, anywhereLimit: job.anywhereLimit, token })
      if (slot.admitted) admitted++
      // The grant counted the admission itself (a, n, y); the worker reports its traffic only.
      const deltas = { [`t${minute}`]: 1 }
      await coordinator.sync({ id: crypto.randomUUID(), roomId, location, at: minute * 60_000 + 1000, keepMinutes: 10, deltas })
    } catch (error) {
      errors.push(`${error?.code ?? ''} ${error?.message ?? error}`)
    }
  }
  await Promise.all(Array.from({ length: job.users }, (_, i) => oneUser(i)))
  say(`result ${JSON.stringify({ admitted, errors })}`)
}

async function admit() {
  const take = (token) => coordinator.increment({ roomId: job.roomId, scope: 'host', minute: job.minute, limit: job.limit, token })
  for (const token of job.retry ?? []) if ((await take(token)).repeat) say(`repeat ${token}`)
  // Bounded, so a counter that ignores its limit fails the test quickly instead of looping forever.
  for (let i = 0; i < job.limit + 10; i++) {
    const token = `${job.name}-${i}`
    if (!(await take(token)).taken) break
    say(`admitted ${token}`)
    if (job.paceMs > 0) await new Promise((resolve) => setTimeout(resolve, job.paceMs))
  }
  say('full')
}

function hold() {
  db.exec('BEGIN IMMEDIATE')
  db.prepare('UPDATE wr_counters SET count = count + 1000').run()
  // Enough rows to spill past the page cache, so uncommitted pages really reach the WAL file.
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO wr_state (room, location, field, minute, value) SELECT ?, 'junk', 'a' || i, ?, 1 FROM n`,
  ).run(job.rows, job.roomId, job.minute)
  say('holding')
  if (job.holdMs === undefined) return setInterval(() => {}, 60_000)
  setTimeout(() => {
    db.exec('ROLLBACK')
    say('released')
    db.close()
    process.exit(0)
  }, job.holdMs)
}

async function epoch() {
  const report = (deltas) => ({ id: crypto.randomUUID(), roomId: job.roomId, location: 'host', at: job.at, keepMinutes: 10, deltas })
  say(`epoch ${(await coordinator.sync(report({}))).epoch.id}`)
  await lineFromStdin()
  say(`view ${JSON.stringify((await coordinator.sync(report({}))).locations.host?.counts ?? {})}`)
}

async function room() {
  const [{ Hono }, { waitingRoom }] = await Promise.all([import('hono'), import('../../../src/index.ts')])
  const app = new Hono()
  app.use(waitingRoom({ roomId: job.roomId, coordinator, failMode: 'closed' }))
  app.get('/', (c) => c.text('origin'))
  const visit = async () => {
    const response = await app.request('/')
    return `${response.status} ${(await response.text()) === 'origin' ? 'origin' : 'queue page'}`
  }
  say(`outcome ${await visit()}`)
  await lineFromStdin()
  await new Promise((resolve) => setTimeout(resolve, (job.options?.fileCheckIntervalMs ?? 1000) + 20))
  say(`again ${await visit()}`)
}

async function slots() {
  const { createInterface } = await import('node:readline')
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
  say('ready')
  let i = 0
  for (let line = await lines.next(); !line.done && line.value.trim() !== 'end'; line = await lines.next()) {
    let admitted = 0
    let errors = 0
    for (let n = Number(line.value); n > 0; n--) {
      const request = { roomId: job.roomId, location: 'host', minute: job.minute, localLimit: job.localLimit, anywhereLimit: 0 }
      try {
        if ((await coordinator.takeSlot({ ...request, token: `${job.name}-${i++}` })).admitted) admitted++
      } catch {
        errors++
      }
    }
    say(`took ${admitted} ${errors}`)
  }
}

if (job.mode === 'race') await race()
else if (job.mode === 'admit') await admit()
else if (job.mode === 'hold') hold()
else if (job.mode === 'epoch') await epoch()
else if (job.mode === 'room') await room()
else if (job.mode === 'slots') await slots()
else throw new Error(`unknown mode ${job.mode}`)
if (job.mode !== 'hold') {
  db.close()
  process.exit(0)
}
