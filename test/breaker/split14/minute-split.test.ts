/**
 * split14: the grants of one minute, across ALL its counters (each location's own and the Anywhere pool), never
 * exceed the minute's slots — whatever views the workers hold (warm with unreported deltas, cold, stale).
 *
 * FIXED (coordination/reference.ts, held-references.ts: the backend fixes each minute's reference table room-wide,
 * first writer wins, and workers split only from it). Before (integ 19a99c3), 40 seeds: memory 6, SQLite 3, Redis 2
 * over. Cause, seen in the probe's seed 1 (n = 7, one location):
 * worker A admits 7 users in minute m; its traffic deltas t.m for users 2..7 are still unreported (only the first
 * reached the store). In minute M = m + 2 the reference minute is M − 2 = m (TRAFFIC_REFERENCE_AGE). A cold
 * worker's view (the store) shows traffic {local: 1} → split local 1 / Anywhere 6; A's view (store + its own
 * overlay, worker-link.ts #rebuild) shows {local: 7} → local 7 / Anywhere 0. Each counter's conditional
 * increment bounds only itself: the cold worker takes local 1 + Anywhere 5, A then takes local 2..7 → 12 > 7.
 * The class: every counter's limit comes from one worker's view of the reference minute (apportion.ts, plan.ts),
 * and the store's history of that minute keeps changing while it is in use (late reports, a worker's overlay,
 * an idle worker's old snapshot), so the per-counter limits of different views can sum to more than the slots.
 * No worker-side rule can bound the sum while each grant step checks one counter against a view-made limit.
 * Checked: with one table for every view (plan.ts patched to split by an empty table, not committed), 0 of 80
 * seeds per backend go over — the disagreeing reference is the whole cause within this generated space.
 * Design (needs the grant contract of all five adapters + conformance, so not done here): fix the reference
 * in the store once per minute and check it in the grant's atomic step. The first sync or grant of minute M
 * writes (first writer wins: SETNX / INSERT OR IGNORE / KV check / the room:* Durable Object) the traffic table
 * of minute M − 2 it saw; every sync answer carries that fixed table; the core apportions from it (apportion.ts
 * is house-monotone, so views that share the weights but not the slots still sum to at most the largest slots);
 * each grant request carries the table's fingerprint and the grant step refuses a mismatch (the worker re-syncs).
 * The adapters then only store a per-minute record and compare a string — apportionment stays in the core. A
 * room-wide per-minute total counter checked by every grant would also bound the sum, but serialises every
 * grant of the room on one key (Deno KV's versionstamp loop, Redis slot, and on Cloudflare a hop to room:* per
 * grant instead of the location object's own counter), which the per-location counters exist to avoid.
 *
 * Generated: seeds × memory/SQLite/Redis, 1–3 locations, 1–4 workers (warm/cold/stale), sessions 1–3 min, idle
 * gaps 0–5 min. The bound for the burst minute M is min(newUsersPerMinute, totalActiveUsers − active at M), active
 * counted from the grants this test saw (an admission in minute a is active through a + session).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { closeBackends, coordinatorFor, type Backend } from '../break14d/backends.ts'
import { MINUTE, sleep, worker } from '../break14e/support.ts'

// The last case's workers report once more in the background (syncIntervalMs 0): let them before Redis closes.
afterAll(async () => {
  await sleep(200)
  await closeBackends()
})

const SEEDS = Number(process.env.SPLIT14_SEEDS ?? 40)

function rng(seed: number) {
  let x = seed * 2654435761 + 1
  return () => ((x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}
const pick = (random: () => number, low: number, high: number) => low + Math.floor(random() * (high - low + 1))

type Role = 'warm' | 'cold' | 'stale'

/** One generated case; returns a description when the burst minute granted more than its slots. */
async function runCase(backend: Backend, seed: number, onlyCold: boolean): Promise<string | undefined> {
  const random = rng(seed * 7919 + (backend === 'memory' ? 1 : backend === 'sqlite' ? 2 : 3))
  const n = pick(random, 3, 8)
  const locations = Array.from({ length: pick(random, 1, 3) }, (_, i) => `L${i}`)
  const fleet = pick(random, 1, 4)
  const session = pick(random, 1, 3)
  const idle = pick(random, 0, 5)
  const roles: Role[] = Array.from({ length: fleet }, (_, i) => (onlyCold ? 'cold' : i === 0 ? 'warm' : (['warm', 'cold', 'stale'] as const)[pick(random, 0, 2)]!))
  const coordinator = await coordinatorFor(backend)
  const m = 29_300_000 + seed * 20
  const clock = { now: m * MINUTE + pick(random, 1_000, 20_000) }
  const roomId = `split14-${backend}-${seed}-${onlyCold ? 'c' : 'm'}-${Date.now()}`
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: session, failMode: 'closed' as const, coordinatorTimeoutMs: 2_000, syncIntervalMs: 0 }
  const where = roles.map(() => locations[pick(random, 0, locations.length - 1)]!)
  const ws = roles.map((_, i) => worker(coordinator, clock, roomId, { ...options, location: () => where[i]! }))
  const grants = new Map<number, number>()
  const ask = async (k: number) => {
    const minute = Math.floor(clock.now / MINUTE)
    const answer = await ws[k]!(undefined)
    if (answer.reason === 'slot') grants.set(minute, (grants.get(minute) ?? 0) + 1)
    return answer
  }
  // Minute m: the warm workers admit n users between them (a fresh room: all of them fit).
  const warm = roles.flatMap((role, k) => (role === 'warm' ? [k] : []))
  if (warm.length > 0) for (let i = 0; i < n; i++) await ask(warm[pick(random, 0, warm.length - 1)]!)
  const M = m + session + 1 + idle
  // Stale workers sync once somewhere between, and decide in M from that view if it is young enough.
  for (const [k, role] of roles.entries()) {
    if (role !== 'stale') continue
    clock.now = Math.max(clock.now + 1, (M - pick(random, 1, 2)) * MINUTE + pick(random, 30_000, 59_000))
    await ask(k)
  }
  clock.now = M * MINUTE + pick(random, 1_000, 50_000)
  const picks = Array.from({ length: 2 * n }, () => pick(random, 0, fleet - 1))
  const answers = await Promise.all(picks.map((k) => ask(k).then((a) => `${k}:${a.reason}`)))
  let active = 0
  for (const [minute, count] of grants) if (minute >= M - session && minute < M) active += count
  const slots = Math.max(0, Math.min(n, n - active))
  const served = grants.get(M) ?? 0
  if (served <= slots) return undefined
  return JSON.stringify({ backend, seed, n, locations: locations.length, roles: roles.map((r, i) => `${r}@${where[i]}`).join(' '), session, idle, slots, served, by: answers.join(' ') })
}

const backends: Backend[] = ['memory', 'sqlite', 'redis']

/** Every seed's case on `backend`: the descriptions of those that granted more than the minute's slots. */
async function overSeeds(backend: Backend, onlyCold: boolean): Promise<string[]> {
  const over: string[] = []
  for (let seed = 1; seed <= SEEDS; seed++) {
    const failure = await runCase(backend, seed, onlyCold)
    if (failure) over.push(failure)
  }
  return over
}

describe('split14: one minute grants at most its slots across all counters', () => {
  // Holds today: a fresh room where every worker is cold (no view holds history the others lack).
  it.each(backends)('%s: cold workers only', async (backend) => expect(await overSeeds(backend, true)).toEqual([]), 120_000)

  // Warm / cold / stale mixes over a room with history (see the header). Before the fix, 40 seeds: memory 6, SQLite 3,
  // Redis 2 over (up to 12 granted of 7); 0 since every backend fixes each minute's reference (fixesReferences).
  it.each(backends)('%s: warm, cold and stale workers, after idle gaps', async (backend) => expect(await overSeeds(backend, false)).toEqual([]), 120_000)
})
