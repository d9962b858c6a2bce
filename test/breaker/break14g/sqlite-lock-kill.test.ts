/**
 * break14g — mixed-phase-kill.test.ts with SQLite made slow the way an operator sees it: another process (sqlite3)
 * holds the write lock for L = 300–900 ms (coordinatorTimeoutMs 1000: every call within it), taken just before the
 * regular's renewal at worker B. The regular's 150 ms wait times out and marks B failing; the returners (their
 * confirmed cookie's last minute) arriving while the lock is held are answered pending at once; B is SIGKILLed
 * right after (no further call reaches the store). Next minute: newcomers, then everyone at A. Expected: nobody
 * handed a renewal logged out, never above n. Control: no regular renewal first.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sqliteStoreCoordinator } from '../../../adapters/bun-sqlite/node.ts'
import { MINUTE, slowKillable, sleep, worker } from '../break14e/support.ts'

/** Another process holds the write lock for `ms`; resolves once it has it. */
function holdLock(path: string, ms: number): Promise<void> {
  const child = spawn('sqlite3', [path], { stdio: ['pipe', 'pipe', 'ignore'] })
  child.stdin.write(`.timeout 5000\nBEGIN IMMEDIATE;\n.print locked\n.shell sleep ${ms / 1000}\nCOMMIT;\n.quit\n`)
  child.stdin.end()
  return new Promise((r) => child.stdout.on('data', (d) => { if (String(d).includes('locked')) r() }))
}

function rng(seed: number) {
  let x = seed * 2654435761 + 11
  return () => ((x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}

async function run(seed: number, withRegular: boolean) {
  const random = rng(seed)
  const n = 4 + Math.floor(random() * 5)
  const S = 2 + Math.floor(random() * 2)
  const lockMs = 300 + Math.floor(random() * 600)
  const T = 1_000
  const path = join(mkdtempSync(join(tmpdir(), 'b14g-')), 'room.db')
  const inner = sqliteStoreCoordinator(path)
  const m = 29_400_000 + seed * 10
  const clock = { now: m * MINUTE + 5_000 }
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: S, failMode: 'closed' as const, coordinatorTimeoutMs: T, syncIntervalMs: 100 }
  const roomId = `b14g-lock-${seed}-${withRegular}-${Date.now()}`
  const A = worker(inner, clock, roomId, options)
  const b = slowKillable(inner, { syncMs: 0 })
  const B = worker(b.coordinator, clock, roomId, options)
  const users: { cookie?: string | undefined; ticket: string; handed: boolean }[] = []
  for (let i = 0; i < n; i++) {
    const r = await A(undefined)
    if (!r.admitted) throw new Error('setup: not admitted')
    users.push({ cookie: r.fresh, ticket: r.ticketId, handed: false })
  }
  await B(users[0]!.cookie) // B learns the room
  // Minutes m+1 .. m+S-1: user 0 (the regular) renews every minute at A; the others stay away.
  for (let k = 1; k < S; k++) {
    clock.now = (m + k) * MINUTE + 5_000
    const r = await A(users[0]!.cookie)
    if (r.fresh) users[0]!.cookie = r.fresh
  }
  await sleep(300) // A's reports landed
  // Minute m+S: the returners' last confirmed minute. The store is slow (never failing).
  clock.now = (m + S) * MINUTE + 5_000
  await B(undefined) // warm B's snapshot (a newcomer: the room is full, queued)
  await holdLock(path, lockMs)
  const regular = withRegular ? B(users[0]!.cookie) : Promise.resolve(undefined)
  await sleep(160 + Math.floor(random() * 20)) // the regular's 150 ms wait has timed out, the exchange still runs
  const answers = await Promise.all(users.slice(1).map((u) => B(u.cookie)))
  b.kill() // SIGKILL right after answering the returners
  answers.forEach((r, i) => { const u = users[i + 1]!; u.handed = true; if (r.admitted && r.ticketId === u.ticket && r.fresh) u.cookie = r.fresh })
  const reg = await Promise.race([regular, sleep(3 * T).then(() => undefined)])
  if (reg?.fresh && reg.ticketId === users[0]!.ticket) users[0]!.cookie = reg.fresh
  await sleep(lockMs + 300) // whatever B sent before the kill has landed
  clock.now = (m + S + 1) * MINUTE + 5_000
  let newcomers = 0
  for (let i = 0; i < n; i++) if ((await A(undefined)).admitted) newcomers++
  let back = 0
  const lost: number[] = []
  for (const [i, u] of users.entries()) {
    const r = await A(u.cookie)
    if (r.admitted && r.ticketId === u.ticket) back++
    else if (u.handed) lost.push(i)
  }
  return { seed, n, S, lockMs, withRegular, handedAdmitted: answers.filter((r) => r.admitted).length, newcomers, back, served: newcomers + back, lost: lost.length }
}

describe('break14g: SQLite write lock held by another process 300–900 ms, sessions in mixed phases, worker SIGKILLed', () => {
  it('4 seeds — nobody handed a renewal logged out, never above n', async () => {
    const outs = []
    for (let seed = 1; seed <= 4; seed++) outs.push(await run(seed, true))
    console.log(outs.map((o) => JSON.stringify(o)).join('\n'))
    for (const o of outs) expect(o.handedAdmitted, 'returners were served (not vacuous)').toBe(o.n - 1)
    expect(outs.filter((o) => o.served > o.n || o.lost > 0).map((o) => `seed ${o.seed}: ${o.lost} of ${o.n - 1} logged out, ${o.served} served in ${o.n}`)).toEqual([])
  }, 60_000)
  it('control (holds): no regular renewing first', async () => {
    const outs = []
    for (let seed = 1; seed <= 2; seed++) outs.push(await run(seed, false))
    console.log(outs.map((o) => JSON.stringify(o)).join('\n'))
    for (const o of outs) { expect(o.lost).toBe(0); expect(o.served).toBeLessThanOrEqual(o.n) }
  }, 60_000)
})
