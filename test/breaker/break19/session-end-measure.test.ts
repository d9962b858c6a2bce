/**
 * break19 / guarantee 1: a session ends `sessionDurationMinutes` (D) after the user's LAST check-in. A user who
 * keeps checking in with gaps < D (including D − 1 ms, D − 250 ms, at every phase of the minute) is never logged
 * out; once they stop, the place is reused, and we MEASURE how long past L + D (L = last check-in) the room lets
 * another user in (a rival who follows the room's Refresh, refreshIntervalSeconds 5), and check the old user's
 * cookie is refused once the rival holds the place (never 2 in a room of 1).
 * D 1, 2, 5; 1–3 workers on one store (memory, SQLite file, Redis); sync 0 or 1000 (reported, fake clock).
 * Hard oracles: never logged out; never 2 sessions at once; rival admitted by L + (D + 1) min + one refresh.
 * Figures: the overshoot R − (L + D) per backend, printed.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { backendFor, closeBackends, MINUTE, pick, rivalOf, rng, settle, sleep, stillSessions, worker, type Backend } from '../breakslice18/harness.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

interface Case { backend: Backend; seed: number; D: number; gaps: number[]; workers: number; sync: number }

function caseOf(backend: Backend, seed: number): Case {
  const random = rng(seed * 977 + backend.length * 31)
  const D = [1, 2, 5][seed % 3]!
  const Dms = D * MINUTE
  const gaps: number[] = []
  for (let i = pick(random, 1, 5); i > 0; i--) {
    const choices = [Dms - 1, Dms - 250, Dms - pick(random, 1, 4000), 1000, 59_999, 60_001, pick(random, 0, Dms - 1)]
    gaps.push(choices[pick(random, 0, choices.length - 1)]!)
  }
  return { backend, seed, D, gaps, workers: pick(random, 1, 3), sync: random() < 0.5 ? 0 : 1000 }
}

async function run(c: Case, overshoots: number[]): Promise<string[]> {
  const random = rng(c.seed * 53 + 7)
  const store = await backendFor(c.backend)
  const clock = { now: (29_300_000 + c.seed * 40) * MINUTE + pick(random, 0, 59_999) }
  const options = { roomId: `b19-end-${c.seed}`, totalActiveUsers: 1, newUsersPerMinute: 50, sessionDurationMinutes: c.D, syncIntervalMs: c.sync, refreshIntervalSeconds: 5 }
  const ws = Array.from({ length: c.workers }, (_, i) => worker(i === 0 ? store.coordinator : store.another(), clock, options))
  const any = () => ws[pick(random, 0, ws.length - 1)]!
  const pause = async () => { await settle(); if (c.backend !== 'memory') await sleep(2) }
  const tag = `${c.backend} seed ${c.seed} D=${c.D} workers=${c.workers} sync=${c.sync} gaps=${c.gaps.map((g) => g / 1000).join(',')}`
  const first = await any()(undefined)
  await pause()
  if (!first.admitted) return [`${tag}: first user not admitted`]
  let cookie = first.cookie
  const cookies = [cookie!]
  const rivalFirst = await any()(undefined)
  await pause()
  if (rivalFirst.admitted) return [`${tag}: rival admitted at once in a room of 1`]
  const rival = rivalOf(rivalFirst, clock, any, pause)
  let L = clock.now
  for (const gap of c.gaps) {
    await rival.until(L + gap)
    if (rival.admittedAt !== undefined) return [`${tag}: rival admitted at L+${(rival.admittedAt - L) / 1000}s while the user checks in with gap ${gap / 1000}s`]
    clock.now = L + gap
    const a = await any()(cookie)
    await pause()
    if (!a.admitted || a.ticketId !== first.ticketId) return [`${tag}: logged out after a gap of ${gap / 1000}s (${a.reason})`]
    if (a.cookie !== cookie) cookies.push(a.cookie!)
    cookie = a.cookie
    L = clock.now
  }
  const bound = L + (c.D + 1) * MINUTE + 6_000 + 1000 // refresh 5 s jittered ±1 s, plus a sync interval
  await rival.until(L + (c.D + 4) * MINUTE)
  const R = rival.admittedAt
  if (R === undefined) return [`${tag}: place never reused`]
  overshoots.push((R - L - c.D * MINUTE) / 1000)
  const problems: string[] = []
  if (R > bound) problems.push(`${tag}: rival admitted ${(R - L) / 1000}s after the last check-in`)
  if (R < L + c.D * MINUTE - 1000) problems.push(`${tag}: place reused ${(L + c.D * MINUTE - R) / 1000}s before L + D`)
  clock.now = R + 1
  for (const i of await stillSessions(cookies, first.ticketId, any, pause)) problems.push(`${tag}: cookie #${i} still a session beside the rival at L+${(clock.now - L) / 1000}s`)
  return problems
}

const SEEDS = Number(process.env.B19_SEEDS ?? 15)

describe('break19: sessions end D after the last check-in; measure how far past D the place is reused', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
    it(`${backend}: ${SEEDS} generated sessions`, async () => {
      const problems: string[] = []
      const overshoots: number[] = []
      for (let seed = 1; seed <= SEEDS; seed++) problems.push(...(await run(caseOf(backend, seed), overshoots)))
      overshoots.sort((a, b) => a - b)
      console.log(`${backend}: R − (L + D) seconds: min ${overshoots[0]} median ${overshoots[overshoots.length >> 1]} max ${overshoots.at(-1)} (n=${overshoots.length})`)
      expect(problems).toEqual([])
    }, 600_000)
  }
})
