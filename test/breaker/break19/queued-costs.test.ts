/**
 * break19 / guarantee 3: a queued user refreshing — too early or on time, at any worker — costs no counter call
 * (increment / takeSlot / takeSlots, counted by a wrapping coordinator) while it cannot get a place (the room full
 * of sessions that keep checking in). (Its second half — copies of an admitted ticket's earlier queued cookies at a
 * worker that saw the ticket this minute are admitted as it at once — broke and is held out until the lookup rule
 * can tell such a copy from a refresh without a call per refresh: issue 15's notes, break19 (b).)
 * Rooms of 1–2 places, FIFO or random queueing, D 1–2, 1–3 workers on memory, SQLite, Redis, sync 0 or 1000.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { Coordinator } from '../../../src/index.ts'
import { backendFor, closeBackends, MINUTE, pick, refreshOf, rng, settle, sleep, worker, type Backend } from '../breakslice18/harness.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

const calls = { counter: 0, log: [] as number[] }
let clockNow = () => 0
function counting(inner: Coordinator): Coordinator {
  return {
    name: inner.name,
    preferredSyncIntervalMs: inner.preferredSyncIntervalMs,
    fixesReferences: inner.fixesReferences,
    ...(inner.holdsReference ? { holdsReference: (r: string, m: number) => inner.holdsReference!(r, m) } : {}),
    increment: (r) => { calls.counter++; calls.log.push(clockNow()); return inner.increment(r) },
    sync: (r) => inner.sync(r),
    ...(inner.takeSlot ? { takeSlot: (r) => { calls.counter++; calls.log.push(clockNow()); return inner.takeSlot!(r) } } : {}),
    ...(inner.takeSlots ? { takeSlots: (r) => { calls.counter++; calls.log.push(clockNow()); return inner.takeSlots!(r) } } : {}),
  }
}

async function run(backend: Backend, seed: number): Promise<string[]> {
  const random = rng(seed * 4241 + backend.length)
  const N = pick(random, 1, 2)
  const D = pick(random, 1, 2)
  const W = pick(random, 1, 3)
  const sync = random() < 0.5 ? 0 : 1000
  const method = random() < 0.5 ? 'fifo' : 'random'
  const store = await backendFor(backend)
  const T = { now: (29_500_000 + seed * 30) * MINUTE + pick(random, 0, 59_999) }
  clockNow = () => T.now
  const options = { roomId: `b19-q-${seed}`, totalActiveUsers: N, newUsersPerMinute: 50, sessionDurationMinutes: D, syncIntervalMs: sync, refreshIntervalSeconds: 5, queueingMethod: method as 'fifo' }
  const ws = Array.from({ length: W }, (_, i) => worker(counting(i === 0 ? store.coordinator : store.another()), T, options))
  const w = () => ws[pick(random, 0, W - 1)]!
  const pause = async () => { await settle(); if (backend !== 'memory') await sleep(2) }
  const tag = `${backend} seed ${seed} N=${N} D=${D} W=${W} sync=${sync} ${method}`
  const problems: string[] = []
  // the holders fill the room and every worker hears of it
  const holders: (string | undefined)[] = []
  for (let i = 0; i < N; i++) { const h = await w()(undefined); await pause(); if (!h.admitted) return [`${tag}: holder not admitted`]; holders.push(h.cookie) }
  for (const x of ws) { T.now += 500; await x(holders[0]); await pause() }
  // queued users, each with the cookies it was handed
  const qs = Array.from({ length: pick(random, 1, 3) }, () => ({ cookies: [] as string[], next: 0 }))
  for (const q of qs) { const a = await w()(undefined); await pause(); if (a.admitted) return [`${tag}: admitted into a full room`]; q.cookies.push(a.cookie!); q.next = T.now + refreshOf(a, 5) * 1000 }
  // full phase: holders check in every 10–40 s; queued users refresh too early or on time; count counter calls
  const admittedMinute = Math.floor(T.now / MINUTE)
  const fullUntil = T.now + pick(random, 2, 4) * MINUTE
  let holderNext = T.now + 10_000
  let refreshes = 0
  const before = calls.counter
  while (true) {
    const at = Math.min(holderNext, ...qs.map((q) => q.next))
    if (at > fullUntil) break
    T.now = at
    if (at === holderNext) {
      for (const [i, h] of holders.entries()) { const a = await w()(h); await pause(); if (!a.admitted) problems.push(`${tag}: holder logged out`); holders[i] = a.cookie }
      holderNext = at + pick(random, 10_000, 40_000)
      continue
    }
    const q = qs.find((x) => x.next === at)!
    const a = await w()(q.cookies.at(-1))
    await pause()
    refreshes++
    if (a.admitted) { problems.push(`${tag}: a queued user admitted while the room is full`); break }
    if (a.cookie && a.cookie !== q.cookies.at(-1)) q.cookies.push(a.cookie)
    q.next = at + (random() < 0.4 ? pick(random, 200, 3000) : refreshOf(a, 5) * 1000)
  }
  const spent = calls.counter - before
  const later = calls.log.slice(before).filter((t) => Math.floor(t / MINUTE) > admittedMinute)
  if (later.length > 0) problems.push(`${tag}: ${later.length} counter calls (of ${spent}) for ${refreshes} queued refreshes in minutes nobody was admitted (full room), at s ${later.map((t) => ((t % MINUTE) / 1000).toFixed(1)).join(',')}`)
  return [...new Set(problems)]
}

describe('break19: queued refreshes cost no counter call while the room is full', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
    const seeds = backend === 'memory' ? 30 : 10
    it(`${backend}: ${seeds} seeds`, async () => {
      const problems: string[] = []
      for (let seed = 1; seed <= seeds; seed++) problems.push(...(await run(backend, seed)))
      expect(problems).toEqual([])
    }, 600_000)
  }
})
