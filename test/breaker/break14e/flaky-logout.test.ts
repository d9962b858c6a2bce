/**
 * break14e — (b) a user who keeps browsing stays admitted across many minutes of a FLAKY store.
 * Promise (README renewal row / fail-mode row): "a slow store or an outage never logs out an admitted user";
 * admitted users are never refused or logged out for a backend failure, in either fail mode.
 * Attack: n users admitted in a room of n; then for 10 minutes every coordinator call (sync and grant) fails — throws,
 * or hangs past coordinatorTimeoutMs — with a generated probability per call (seeded); each user browses 2–4 times a
 * minute on a random worker of 2–3; sessions of 1–2 minutes; both fail modes. Nothing crashes. Expected: every user
 * keeps their ticket and is served at every request. A logged-out user is one queued or let in under a new ticket.
 * HOLDS (guard): 6 seeds × 4 variants × 10 minutes, 0 logged out (failure probability 0.2–0.9 per call).
 */
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import type { Coordinator } from '../../../src/index.ts'
import { rng } from '../break14b/procs.ts'
import { MINUTE, sleep, worker } from './support.ts'

async function run(seed: number, failMode: 'open' | 'closed', hang: boolean) {
  const random = rng(seed)
  const storeRandom = rng(seed * 7919)
  const m0 = 29_200_000 + seed * 30
  const clock = { now: m0 * MINUTE + 2_000 }
  const inner = memoryCoordinator()
  const flaky = { p: 0 }
  const guard = <T>(f: () => Promise<T>): Promise<T> => {
    if (storeRandom() >= flaky.p) return f()
    return hang ? sleep(150).then(() => f()) : Promise.reject(new Error('store flaky'))
  }
  const coordinator: Coordinator = { name: 'flaky', increment: (r) => guard(() => inner.increment(r)), takeSlot: (r) => guard(() => inner.takeSlot!(r)), sync: (r) => guard(() => inner.sync(r)) }
  const n = 3 + Math.floor(random() * 3)
  const workers = 2 + Math.floor(random() * 2)
  const session = 2 + Math.floor(random() * 2) // visits up to 118 s apart: a session ends D after the last check-in (issue 15), so D > that
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: session, failMode, coordinatorTimeoutMs: 100, syncIntervalMs: 20 }
  const fleet = Array.from({ length: workers }, () => worker(coordinator, clock, `flaky-${seed}-${failMode}-${hang}`, options))
  const users: { cookie: string | undefined; ticket: string; lostAt?: string }[] = []
  for (let i = 0; i < n; i++) {
    const a = await fleet[0]!(undefined)
    if (!a.admitted) throw new Error('setup')
    users.push({ cookie: a.fresh, ticket: a.ticketId })
  }
  await sleep(30)
  flaky.p = 0.2 + random() * 0.7
  for (let m = 1; m <= 10; m++) {
    const visits: { at: number; user: number }[] = []
    users.forEach((_, user) => { for (let k = 2 + Math.floor(random() * 3); k > 0; k--) visits.push({ at: Math.floor(random() * 59_000), user }) })
    visits.sort((a, b) => a.at - b.at)
    for (const v of visits) {
      clock.now = (m0 + m) * MINUTE + v.at
      const u = users[v.user]!
      if (u.lostAt !== undefined) continue
      const r = await fleet[Math.floor(random() * workers)]!(u.cookie)
      if (r.admitted && r.ticketId === u.ticket) { if (r.fresh) u.cookie = r.fresh }
      else u.lostAt = `minute ${m} (${r.reason})`
      await sleep(random() < 0.3 ? 40 : 2)
    }
  }
  return { n, workers, session, p: flaky.p.toFixed(2), lost: users.filter((u) => u.lostAt !== undefined).map((u) => u.lostAt) }
}

describe('break14e: a flaky store never logs out a user who keeps browsing', () => {
  for (const hang of [false, true]) {
    for (const failMode of ['closed', 'open'] as const) {
      it(`${hang ? 'hanging' : 'throwing'} calls, failMode ${failMode}: 3 seeds × 10 minutes, nobody logged out`, async () => {
        const bad: string[] = []
        for (let seed = 1; seed <= 3; seed++) {
          const out = await run(seed + (hang ? 100 : 0), failMode, hang)
          if (out.lost.length) bad.push(JSON.stringify({ seed, ...out }))
        }
        expect(bad).toEqual([])
      }, 60_000)
    }
  }
})
