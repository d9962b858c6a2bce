/**
 * breakslice18 / guarantee 1: an admitted user who keeps checking in with gaps < D (sessionDurationMinutes) is
 * never logged out — every check-in is admitted under the ticket it was first given — whatever the pattern of
 * gaps (every second, 59 s, 61 s, bursts, just under D), D (1, 2, 5, 30), where the admission falls in its minute,
 * 1–2 workers on one store (memory, SQLite file, Redis), skewed worker clocks and clock jumps.
 * The room has one place and a rival newcomer who checks in as the room asks (Refresh), so a session the room
 * lets go is visible: the rival takes the place and the loyal user is queued (or re-admitted as a new ticket).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { backendFor, closeBackends, MINUTE, pick, refreshOf, rng, settle, sleep, worker, type Backend } from './harness.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

type Mode = 'second' | '59s' | '61s' | 'nearD' | 'mixed' | 'burst' | 'slices'

function gapsFor(mode: Mode, D: number, random: () => number): number[] {
  const Dms = D * MINUTE
  const total = Math.min(D + 4, 12) * MINUTE // enough time for several renewals and the end of a first position
  const out: number[] = []
  let sum = 0
  const push = (g: number) => { g = Math.max(0, Math.min(g, Dms - 1)); out.push(g); sum += g }
  while (sum < total && out.length < 80) {
    switch (mode) {
      case 'second': push(out.length % 20 === 19 ? Dms - 1 - pick(random, 0, 2000) : 1000); break
      case '59s': push(59_000); break
      case '61s': push(61_000); break
      case 'nearD': push(Dms - pick(random, 1, 3000)); break
      case 'burst': push(out.length % 4 === 3 ? Dms - pick(random, 1, 500) : pick(random, 0, 100)); break
      case 'slices': push(pick(random, 1, 20) * 3750 + pick(random, -1, 1)); break
      case 'mixed': {
        const c = [0, 1000, 3750 * pick(random, 1, 16) + pick(random, -2, 2), 59_999, 60_001, pick(random, 0, Dms - 1), Dms - 1]
        push(c[pick(random, 0, c.length - 1)]!)
      }
    }
  }
  return out
}

interface Case { backend: Backend; seed: number; D: number; mode: Mode; workers: number; skewMs: number[]; startInMinute: number; jumpBackMs: number; syncIntervalMs: number }

function caseOf(backend: Backend, seed: number): Case {
  const random = rng(seed * 31 + backend.length)
  const D = [1, 2, 5, 30][pick(random, 0, 3)]!
  const modes: Mode[] = ['second', '59s', '61s', 'nearD', 'mixed', 'burst', 'slices']
  const workers = pick(random, 1, 2)
  const startChoices = [0, 1, 3749, 3751, 30_000, 56_250, 59_000, 59_999, pick(random, 0, 59_999)]
  return {
    backend, seed, D, workers,
    mode: modes[pick(random, 0, modes.length - 1)]!,
    skewMs: Array.from({ length: workers }, (_, i) => (i === 0 ? 0 : pick(random, -1500, 1500))),
    startInMinute: startChoices[pick(random, 0, startChoices.length - 1)]!,
    jumpBackMs: random() < 0.3 ? pick(random, 1, 5000) : 0,
    syncIntervalMs: random() < 0.5 ? 0 : 1000,
  }
}

/** Runs one case; returns the first logout seen (a description) or undefined. */
async function run(c: Case): Promise<string | undefined> {
  const random = rng(c.seed * 7 + 3)
  const gaps = gapsFor(c.mode, c.D, random)
  const store = await backendFor(c.backend)
  const T = { now: (29_100_000 + c.seed * 60) * MINUTE + c.startInMinute }
  const clocks = c.skewMs.map((s) => ({ get now() { return T.now + s } }))
  const options = { roomId: `bs18-keep-${c.seed}`, totalActiveUsers: 1, newUsersPerMinute: 50, sessionDurationMinutes: c.D, syncIntervalMs: c.syncIntervalMs, coordinatorTimeoutMs: 2000 }
  const ws = clocks.map((clock, i) => worker(i === 0 ? store.coordinator : store.another(), clock as { now: number }, options))
  const pause = async () => { await settle(); if (c.backend !== 'memory') await sleep(3) }
  const first = await ws[0]!(undefined)
  await pause()
  if (!first.admitted) return `first user not admitted: ${first.reason}`
  let cookie = first.cookie
  const ticket = first.ticketId
  let rival: string | undefined
  let rivalNext = T.now + 1000
  let at = T.now
  const log: string[] = []
  for (const [i, gap] of gaps.entries()) {
    const target = at + gap
    // The rival checks in whenever the room asks it to, up to the loyal user's next check-in.
    while (rivalNext < target) {
      T.now = rivalNext
      const r = await ws[pick(random, 0, ws.length - 1)]!(rival)
      await pause()
      rival = r.cookie
      rivalNext = T.now + (r.admitted ? 20_000 : refreshOf(r) * 1000)
    }
    // A clock jump back (an NTP step) once, halfway: the true time moves on, the clocks read earlier.
    T.now = target
    const k = pick(random, 0, ws.length - 1)
    const jump = i === Math.floor(gaps.length / 2) ? c.jumpBackMs : 0
    T.now -= jump
    const a = await ws[k]!(cookie)
    T.now += jump
    await pause()
    log.push(`${((target - first.ticketId.length * 0) % MINUTE / 1000).toFixed(3)}s w${k} ${a.reason}${a.set ? ` max-age=${a.maxAge}` : ''}`)
    if (!a.admitted || a.ticketId !== ticket) {
      return JSON.stringify({ ...c, gaps: gaps.slice(0, i + 1).map((g) => g / 1000), at: i, sinceStart: (target - (T.now - (target - T.now))) , answer: a.reason, sameTicket: a.ticketId === ticket, status: a.status, tail: log.slice(-4) })
    }
    cookie = a.cookie
    at = target
  }
  return undefined
}

const SEEDS = Number(process.env.BS18_SEEDS ?? 24)

describe('guarantee 1: gaps < D never log an admitted user out', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
    it(`${backend}: ${SEEDS} generated check-in patterns`, async () => {
      const failures: string[] = []
      for (let seed = 1; seed <= SEEDS; seed++) {
        const f = await run(caseOf(backend, seed))
        if (f) failures.push(f)
      }
      expect(failures).toEqual([])
    }, 600_000)
  }

  // Fixed patterns at each D: the edges the design names (a count's position a minute old, slice starts).
  for (const D of [1, 2, 5, 30]) {
    for (const mode of ['59s', '61s', 'nearD', 'burst'] as Mode[]) {
      it(`memory, D=${D}, ${mode}, admitted 59.999 s into a minute`, async () => {
        const f = await run({ backend: 'memory', seed: 1000 + D, D, mode, workers: 1, skewMs: [0], startInMinute: 59_999, jumpBackMs: 0, syncIntervalMs: 0 })
        expect(f).toBeUndefined()
      }, 120_000)
    }
  }
})
