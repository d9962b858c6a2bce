/**
 * breakslice18 / guarantee 5: a queued user who closes the tab for up to 5 minutes (the default
 * queuePlaceKeptSeconds, 300) keeps their place in line, whatever the session duration. FIFO room of one place,
 * held by a user who keeps checking in; Q queues, checks in once or twice, leaves for G (1 min … 299 s), returns
 * and follows Refresh; users who arrived after Q (in later minutes) follow Refresh throughout. The holder leaves
 * after Q's return; the first of the waiting users to be admitted must be Q, and no later arrival may be admitted
 * while Q waits.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { backendFor, closeBackends, MINUTE, pick, refreshOf, rng, settle, sleep, worker, type Backend } from './harness.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

interface Case { backend: Backend; seed: number; D: number; away: number; workers: number; later: number }

async function run(c: Case): Promise<string | undefined> {
  const random = rng(c.seed * 313 + c.away)
  const store = await backendFor(c.backend)
  const T = { now: (29_600_000 + c.seed * 60) * MINUTE + pick(random, 0, 59_999) }
  const options = { roomId: `bs18-q-${c.seed}`, totalActiveUsers: 1, newUsersPerMinute: 50, sessionDurationMinutes: c.D, syncIntervalMs: 0, refreshIntervalSeconds: 20 }
  const ws = Array.from({ length: c.workers }, (_, i) => worker(i === 0 ? store.coordinator : store.another(), T, options))
  const w = () => ws[pick(random, 0, ws.length - 1)]!
  const pause = async () => { await settle(); if (c.backend !== 'memory') await sleep(2) }
  const holder = await w()(undefined)
  await pause()
  let holderCookie = holder.cookie
  // Q arrives 5 s later, checks in once per Refresh twice, then leaves for `away`
  T.now += 5_000
  let q = await w()(undefined)
  await pause()
  if (q.admitted) return 'Q admitted at once'
  const qArrived = T.now
  T.now += refreshOf(q) * 1000
  q = await w()(q.cookie)
  await pause()
  const leftAt = T.now
  const returnAt = leftAt + c.away
  // later arrivals: one a minute from Q's next minute on, until Q returns
  type W = { cookie?: string; next: number; arrived: number; admittedAt?: number }
  const others: W[] = []
  for (let k = 1; k <= c.later; k++) others.push({ next: (Math.floor(qArrived / MINUTE) + k) * MINUTE + pick(random, 0, 50_000), arrived: 0 })
  let qNext = returnAt
  let qAdmittedAt: number | undefined
  let holderNext = T.now + 30_000
  const holderStops = returnAt + pick(random, 1_000, 60_000)
  const deadline = holderStops + (c.D + 2) * MINUTE
  while (true) {
    const candidates = [qAdmittedAt === undefined ? qNext : Infinity, holderNext, ...others.map((o) => (o.admittedAt === undefined ? o.next : Infinity))]
    const at = Math.min(...candidates)
    if (at === Infinity || at > deadline) break
    T.now = at
    if (at === holderNext) {
      const h = await w()(holderCookie)
      await pause()
      if (!h.admitted) return `holder logged out at +${(at - qArrived) / 1000}s`
      holderCookie = h.cookie
      holderNext = at + 30_000 < holderStops ? at + 30_000 : Infinity
    } else if (at === qNext && qAdmittedAt === undefined) {
      q = await w()(q.cookie)
      await pause()
      if (q.admitted) qAdmittedAt = at
      else qNext = at + refreshOf(q) * 1000
    } else {
      const o = others.find((x) => x.admittedAt === undefined && x.next === at)!
      if (!o.cookie) o.arrived = at
      const a = await w()(o.cookie)
      await pause()
      o.cookie = a.cookie
      if (a.admitted) {
        o.admittedAt = at
        if (qAdmittedAt === undefined) return `later arrival (arrived +${(o.arrived - qArrived) / 1000}s after Q) admitted at +${(at - qArrived) / 1000}s while Q (away ${c.away / 1000}s, back at +${(returnAt - qArrived) / 1000}s) still waits`
      } else o.next = at + refreshOf(a) * 1000
    }
  }
  if (qAdmittedAt === undefined) return `Q never admitted (away ${c.away / 1000}s)`
  return undefined
}

const cases: Case[] = []
for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
  let seed = 0
  for (const D of [1, 2, 5, 30]) for (const away of [60_000, 150_000, 270_000, 299_000]) cases.push({ backend, seed: ++seed, D, away, workers: 1 + (seed % 2), later: 3 })
}

describe('guarantee 5: a queued user away for up to 5 minutes keeps their place', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
    it(`${backend}: D 1/2/5/30 × away 60/150/270/299 s`, async () => {
      const failures: string[] = []
      for (const c of cases.filter((x) => x.backend === backend)) {
        const f = await run(c)
        if (f) failures.push(`D=${c.D} away=${c.away / 1000}s workers=${c.workers}: ${f}`)
      }
      expect(failures).toEqual([])
    }, 900_000)
  }
})

// Control (the probe can see a lost place): away for 7 minutes, past queuePlaceKeptSeconds, Q is behind later arrivals.
it('control: memory, away 420 s (> 300 s) — a later arrival goes first', async () => {
  expect(await run({ backend: 'memory', seed: 99, D: 2, away: 420_000, workers: 1, later: 3 })).toMatch(/later arrival/)
}, 120_000)
