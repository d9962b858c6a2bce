/**
 * break14h — one split per minute vs a worker clock minutes AHEAD (split14, reference.ts REFERENCE_KEEP_MINUTES).
 * The backend prunes references older than REFERENCE_KEEP_MINUTES before the minute of the REPORT's clock (memory:
 * ReferenceBook.fix(…, minuteOf(report.at)); SQLite: pruneRoom → pruneReferences(minute − 3)). A worker whose clock
 * runs ≥ 4 minutes ahead (here it only syncs: queueAll, so no counter is touched) drops the reference of the
 * minute M the rest of the room is still granting in. A worker that holds no reference for M (cold, restarted)
 * then proposes again, and its table is fixed as if first; the workers that held the old one keep splitting by
 * it. Each counter bounds only itself, so minute M grants up to (old split) + (new split).
 * Tables differ because the first fix came from a stale worker's view (its prefetch in M−1's second half, from a
 * state older than the traffic of M − 2), the second from the full traffic — as in minute-split.test.ts.
 * BROKE on memory and SQLite: skews 3¾, 4 and 5 minutes × rooms of 6 and 10 — 6 of 12 cases over per backend (7
 * granted in a room of 6, 13 in a room of 10; rooms of 4 and the 10-minute skew did not go over); a granting X: 11
 * of 10. Redis holds (its references and counters expire by real-time TTL, not by a report's clock).
 * Through CLI proxies (one SQLite file, one proxy 4 minutes ahead, preload clock) it held: the CLI serves one
 * location, and with one location the two tables' splits did not exceed the slots (5 served of 6).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { closeBackends, coordinatorFor, type Backend } from '../break14d/backends.ts'
import { MINUTE, sleep, worker } from '../break14e/support.ts'

afterAll(async () => { await sleep(200); await closeBackends() })

async function run(backend: Backend, aheadMs: number, n: number, xGrants = false) {
  const aheadMinutes = aheadMs / MINUTE
  const coordinator = await coordinatorFor(backend)
  const m = 29_500_000 + Math.floor(Math.random() * 1000) * 20
  const clock = { now: m * MINUTE + 1_000 }
  const ahead = { get now() { return clock.now + aheadMs } }
  const roomId = `b14h-skew-${backend}-${aheadMinutes}-${crypto.randomUUID().slice(0, 6)}`
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: 1, failMode: 'closed' as const, coordinatorTimeoutMs: 2_000, syncIntervalMs: 0 }
  const at = (location: string) => ({ ...options, location: () => location })
  const A = worker(coordinator, clock, roomId, at('L0')) // warm, L0
  const S = worker(coordinator, clock, roomId, at('L1')) // stale: its state predates most of minute m's traffic
  const X = worker(coordinator, ahead, roomId, { ...at('L0'), queueAll: !xGrants }) // clock ahead; only syncs (queueAll) or also grants
  const grants = new Map<number, number>()
  const ask = async (w: typeof A) => {
    const r = await w(undefined)
    if (r.reason === 'slot') { const k = Math.floor(clock.now / MINUTE); grants.set(k, (grants.get(k) ?? 0) + 1) }
    return r
  }
  await ask(S) // m: S learns the room early (traffic m: L1 1)
  for (let i = 1; i < n; i++) await ask(A) // m: A admits the rest at L0 (traffic m: L0 n−1, reported)
  clock.now = (m + 1) * MINUTE + 45_000
  await ask(S) // m+1, second half: S proposes M = m+2 from its old state ({L1: 1}) — fixed first
  await sleep(50)
  const M = m + 2
  clock.now = M * MINUTE + 2_000
  // Minute M: the warm workers grant by the fixed reference (sessions of m ended: n slots).
  for (let i = 0; i < n; i++) { await ask(A); await ask(S) }
  const before = grants.get(M) ?? 0
  clock.now = M * MINUTE + 20_000
  if (aheadMs > 0) { await X(undefined); await sleep(50); await X(undefined); await sleep(50) } // X at M + ahead syncs: prunes
  // Restarted processes (cold, no reference held) at both locations, in the same minute M.
  const Y0 = worker(coordinator, clock, roomId, at('L0'))
  const Y1 = worker(coordinator, clock, roomId, at('L1'))
  for (let i = 0; i < n; i++) { await ask(Y0); await ask(Y1); await ask(A); await ask(S) }
  return { backend, aheadMinutes, n, slots: n, before, granted: grants.get(M) ?? 0 }
}

describe('break14h: a worker clock minutes ahead prunes the reference of a minute still granting', () => {
  // Memory and SQLite serve one host, whose callers read one clock: a clock minutes ahead takes a custom `clock` option
  // that disagrees between the processes of one file (README Known limits). Their skewed cases are opt-in
  // (BREAK14H_SKEW=1); Redis, whose records expire by the server's time, runs them by default.
  for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
    const skewed = backend === 'redis' || process.env.BREAK14H_SKEW === '1'
    it(`${backend}: control, no clock ahead — minute M grants at most its slots`, async () => {
      const out = await run(backend, 0, 6)
      expect(out.granted, JSON.stringify(out)).toBeLessThanOrEqual(out.slots)
    }, 30_000)
    // Skews 3 min 45 s (X's minute is M + 4 at M:20) to 10 min, rooms of 4–10.
    it.runIf(skewed)(`${backend}: a worker 3¾–10 minutes ahead — minute M grants at most its slots`, async () => {
      const over: string[] = []
      for (const aheadMs of [225_000, 240_000, 300_000, 600_000]) for (const n of [4, 6, 10]) {
        const out = await run(backend, aheadMs, n)
        if (out.granted > out.slots) over.push(JSON.stringify(out))
      }
      expect(over).toEqual([])
    }, 50_000)
    // X also admits its own newcomers (at its minute M + 4): its grant prunes counters older than COUNTER_TTL_MINUTES
    // before ITS minute (SQLite pruneCounters(request.minute); memory likewise), minute M's counters with them.
    it.runIf(skewed)(`${backend}: a worker 4 minutes ahead that also admits — minute M grants at most its slots`, async () => {
      const out = await run(backend, 240_000, 10, true)
      console.log(JSON.stringify(out))
      expect(out.granted, JSON.stringify(out)).toBeLessThanOrEqual(out.slots)
    }, 30_000)
  }
})
