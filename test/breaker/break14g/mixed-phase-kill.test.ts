/**
 * break14g — a SLOW store (every call answered within coordinatorTimeoutMs, nothing ever fails) still makes a worker
 * hand out pending renewals, and a SIGKILL then logs those users out while newcomers take their places.
 * Promise (README "Security and reliability", renewal row): "in the confirmed cookie's last minute up to
 * coordinatorTimeoutMs (a slow store is waited for, so a worker killed meanwhile has handed out no cookie the room
 * does not count)"; commit 222e2ef: "only a failed exchange marks the worker failing".
 * Attack: sessions of S = 2–3 minutes, so users renew in two phases: "regulars" who renewed last minute (their
 * renewal is not in the confirmed cookie's last minute: it waits at most 150 ms) and "returners" whose confirmed
 * cookie is in its last minute (they must be waited for). The store answers every sync in 200–900 ms (T = 1000).
 * At worker B a regular renews: its 150 ms wait times out with its move in flight, and that timeout alone marks B
 * failing (worker-link.ts awaitMove: `if (answer === undefined) this.#failing = true`). Returners arriving while
 * that slow exchange is still under way are answered at once with pending cookies (no wait while failing), their
 * moves queued behind it. B is SIGKILLed right after answering them. Next minute: newcomers, then the users.
 * Observed: the returners' counts have left the window, newcomers took their places, and the returners are new users
 * (logged out) — e.g. 3–7 of 4–8 users logged out on memory, SQLite and Redis. Expected: nobody handed a renewal
 * is logged out, ≤ n served. Control: the same with the regular's renewal left out (no 150 ms timeout) — holds.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { closeBackends, coordinatorFor, type Backend } from '../break14d/backends.ts'
import { MINUTE, slowKillable, sleep, worker } from '../break14e/support.ts'

afterAll(() => closeBackends())

function rng(seed: number) {
  let x = seed * 2654435761 + 11
  return () => ((x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}

async function run(backend: Backend, seed: number, withRegular: boolean) {
  const random = rng(seed)
  const n = 4 + Math.floor(random() * 5)
  const S = 2 + Math.floor(random() * 2)
  const syncMs = 200 + Math.floor(random() * 700)
  const T = 1_000
  const inner = await coordinatorFor(backend)
  const m = 29_400_000 + seed * 10
  const clock = { now: m * MINUTE + 5_000 }
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: S, failMode: 'closed' as const, coordinatorTimeoutMs: T, syncIntervalMs: 100 }
  const roomId = `b14g-mixed-${backend}-${seed}-${withRegular}-${Date.now()}`
  const A = worker(inner, clock, roomId, options)
  const slow = { syncMs: 0 }
  const b = slowKillable(inner, slow)
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
  slow.syncMs = syncMs
  const regular = withRegular ? B(users[0]!.cookie) : Promise.resolve(undefined)
  await sleep(160 + Math.floor(random() * 20)) // the regular's 150 ms wait has timed out, the exchange still runs
  const answers = await Promise.all(users.slice(1).map((u) => B(u.cookie)))
  b.kill() // SIGKILL right after answering the returners
  answers.forEach((r, i) => { const u = users[i + 1]!; u.handed = true; if (r.admitted && r.ticketId === u.ticket && r.fresh) u.cookie = r.fresh })
  const reg = await Promise.race([regular, sleep(3 * T).then(() => undefined)])
  if (reg?.fresh && reg.ticketId === users[0]!.ticket) users[0]!.cookie = reg.fresh
  await sleep(syncMs + 300) // whatever B sent before the kill has landed
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
  return { backend, seed, n, S, syncMs, withRegular, handedAdmitted: answers.filter((r) => r.admitted).length, newcomers, back, served: newcomers + back, lost: lost.length }
}

describe('break14g: a slow store and sessions in mixed phases — a timed-out 150 ms wait marks the worker failing', () => {
  for (const [backend, seeds] of [['memory', 5], ['sqlite', 3], ['redis', 3]] as const) {
    it(`${backend}: ${seeds} seeds — nobody handed a renewal logged out, never above n`, async () => {
      const outs = []
      for (let seed = 1; seed <= seeds; seed++) outs.push(await run(backend, seed, true))
      console.log(outs.map((o) => JSON.stringify(o)).join('\n'))
      for (const o of outs) expect(o.handedAdmitted, 'returners were served (not vacuous)').toBe(o.n - 1)
      expect(outs.filter((o) => o.served > o.n || o.lost > 0).map((o) => `seed ${o.seed}: ${o.lost} of ${o.n - 1} logged out, ${o.served} served in ${o.n}`)).toEqual([])
    }, 60_000)
  }
  it('control (holds): memory, no regular renewing first — the returners wait and keep their places', async () => {
    const outs = []
    for (let seed = 1; seed <= 3; seed++) outs.push(await run('memory', seed, false))
    console.log(outs.map((o) => JSON.stringify(o)).join('\n'))
    for (const o of outs) { expect(o.lost).toBe(0); expect(o.served).toBeLessThanOrEqual(o.n) }
  }, 60_000)
})
