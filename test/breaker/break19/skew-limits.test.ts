/**
 * break19 / guarantee 2: limits under skewed clocks, copies, retries and concurrency.
 * 2–3 workers on one store whose clocks sit within ±clockSkewToleranceMs (50, 500, 2000, 10000; skews drawn at the
 * extremes), crowds of new users landing around minute boundaries (where a skew matters), every cookie sometimes
 * sent to two or three workers at once (a retry, a copied cookie), queued users following Refresh or coming back
 * too early, admitted users browsing. Sessions of 5 minutes, a 4.5-minute run: nobody's session ends, so
 *   distinct admitted tickets ≤ totalActiveUsers, and tickets first admitted per REAL minute ≤ newUsersPerMinute.
 * Plus: bad values of clockSkewToleranceMs throw naming the field and the allowed range.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { waitingRoom } from '../../../src/index.ts'
import { backendFor, closeBackends, MINUTE, pick, refreshOf, rng, settle, sleep, worker, type Backend } from '../breakslice18/harness.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

async function runSkew(backend: Backend, seed: number): Promise<string[]> {
  const random = rng(seed * 7919 + backend.length)
  const tol = [50, 500, 2000, 10_000][seed % 4]!
  const N = pick(random, 2, 8)
  const P = pick(random, 1, 3)
  const W = pick(random, 2, 3)
  const store = await backendFor(backend)
  const T = { now: (29_400_000 + seed * 10) * MINUTE + 30_000 }
  const skews = Array.from({ length: W }, () => (random() < 0.7 ? (random() < 0.5 ? -tol : tol) : pick(random, -tol, tol)))
  const options = { roomId: `b19-skew-${seed}`, totalActiveUsers: N, newUsersPerMinute: P, sessionDurationMinutes: 5, syncIntervalMs: random() < 0.5 ? 0 : 1000, refreshIntervalSeconds: 5, clockSkewToleranceMs: process.env.B19_NO_TOL ? 0 : tol }
  const ws = skews.map((s, i) => worker(i === 0 ? store.coordinator : store.another(), { get now() { return T.now + s } } as { now: number }, options))
  const tag = `${backend} seed ${seed} tol=${tol} N=${N} P=${P} skews=${skews.join(',')}`
  const start = T.now
  const end = start + 4.5 * MINUTE
  type U = { next: number; cookie?: string; ticket?: string }
  const users: U[] = []
  // arrivals: crowds within ±1.5 tol of a minute boundary, and some at random
  for (let m = 1; m <= 4; m++) {
    const boundary = Math.floor(start / MINUTE + m) * MINUTE
    for (let k = pick(random, 2, 6); k > 0; k--) users.push({ next: boundary + pick(random, -1.5 * tol - 200, 1.5 * tol + 200) })
  }
  for (let k = pick(random, 2, 6); k > 0; k--) users.push({ next: start + pick(random, 0, 4 * MINUTE) })
  const firstAdmitted = new Map<string, number>()
  const problems: string[] = []
  while (true) {
    const at = Math.min(...users.map((u) => u.next))
    if (at > end) break
    T.now = at
    const batch = users.filter((u) => u.next === at)
    const sends = batch.map((u) => {
      const copies = random() < 0.35 ? pick(random, 2, 3) : 1
      return Promise.all(Array.from({ length: copies }, () => ws[pick(random, 0, W - 1)]!(u.cookie)))
    })
    const answers = await Promise.all(sends)
    await settle()
    if (backend !== 'memory') await sleep(2)
    for (const [i, u] of batch.entries()) {
      let best = answers[i]![0]!
      for (const a of answers[i]!) {
        if (a.status >= 500) problems.push(`${tag}: ${a.status}`)
        if (a.admitted && a.ticketId) {
          if (!firstAdmitted.has(a.ticketId)) firstAdmitted.set(a.ticketId, at)
          best = a
        }
      }
      if (u.ticket && best.admitted && best.ticketId !== u.ticket && firstAdmitted.get(u.ticket) !== undefined) problems.push(`${tag}: an admitted user re-admitted under another ticket`)
      u.cookie = best.cookie
      if (best.admitted) u.ticket = best.ticketId
      u.next = best.admitted ? at + pick(random, 1000, 50_000) : at + (random() < 0.3 ? pick(random, 0, 3000) : refreshOf(best, 5) * 1000)
    }
  }
  if (firstAdmitted.size > N) problems.push(`${tag}: ${firstAdmitted.size} tickets admitted in a room of ${N} (5-minute sessions, 4.5-minute run)`)
  const perMinute = new Map<number, number>()
  for (const t of firstAdmitted.values()) perMinute.set(Math.floor(t / MINUTE), (perMinute.get(Math.floor(t / MINUTE)) ?? 0) + 1)
  for (const [m, n] of perMinute) if (n > P) problems.push(`${tag}: ${n} admitted in real minute ${m - Math.floor(start / MINUTE)} (limit ${P})`)
  return problems
}

describe('break19: limits under skew within clockSkewToleranceMs, copies, retries, concurrency', () => {
  const seeds: Record<Backend, number> = { memory: Number(process.env.B19_SEEDS ?? 40), sqlite: 12, redis: 12 }
  for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
    it(`${backend}: ${seeds[backend]} schedules`, async () => {
      const problems: string[] = []
      for (let seed = 1; seed <= seeds[backend]; seed++) problems.push(...(await runSkew(backend, seed)))
      expect(problems).toEqual([])
    }, 600_000)
  }
  it('bad clockSkewToleranceMs values throw naming the field and the allowed values', () => {
    const bad: unknown[] = [-1, 10_001, 1e9, '500', '', 1.5, NaN, Infinity, -Infinity, null, true, {}, [], 5e-324]
    const out: string[] = []
    for (const value of bad) {
      try {
        waitingRoom({ secret: 'x'.repeat(40), clockSkewToleranceMs: value as number })
        out.push(`${String(value)} accepted`)
      } catch (e) {
        const msg = String((e as Error).message)
        if (!/clockSkewToleranceMs/.test(msg) || !/10[_,]?000/.test(msg) || !/\b0\b/.test(msg)) out.push(`${String(value)}: ${msg}`)
      }
    }
    for (const ok of [0, 10_000, 1, undefined]) {
      try { waitingRoom({ secret: 'x'.repeat(40), clockSkewToleranceMs: ok }) } catch (e) { out.push(`${ok} refused: ${(e as Error).message}`) }
    }
    expect(out).toEqual([])
  })
})
