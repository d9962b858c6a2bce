import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildSnapshot } from '../src/admission/snapshot.ts'
import type { RoomState } from '../src/coordination/state.ts'
import { overtakes, utilisation } from '../src/simulator/fairness.ts'
import { paretoShares, planetScenario, scaleScenario } from '../src/simulator/planet.ts'
import { seededRandom } from '../src/admission/plan.ts'

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0)

/**
 * What a snapshot answers: its data, and its lookups (functions, compared by what they return for every location
 * and for allocations over them) — two snapshots are the same when a reader can tell no difference.
 */
function seen(snapshot: ReturnType<typeof buildSnapshot>): Record<string, unknown> {
  const names = ['a', 'b', 'c', 'elsewhere']
  const allocations: Record<string, number>[] = [{}, { a: 1 }, { a: 2, b: 3 }, { a: 5, b: 1, c: 4 }]
  const data = Object.fromEntries(Object.entries(snapshot).filter(([, value]) => typeof value !== 'function'))
  return {
    ...data,
    takenThisAt: names.map((n) => snapshot.takenThisAt(n)),
    takenLastAt: names.map((n) => snapshot.takenLastAt(n)),
    takenBeyond: allocations.map((a) => snapshot.takenBeyond(a)),
    untakenBehind: allocations.map((a) => snapshot.untakenBehind(a)),
  }
}

describe('snapshot parts cached per location', () => {
  it('gives the same snapshot as a fresh computation, for any counts, times and windows', () => {
    const minute = Math.floor(T0 / 60_000)
    const field = fc.oneof(
      fc.integer({ min: -8, max: 0 }).map((d) => `a${minute + d}`),
      fc.integer({ min: -8, max: 0 }).map((d) => `n${minute + d}`),
      fc.integer({ min: -8, max: 0 }).map((d) => `y${minute + d}`),
      fc.integer({ min: -3, max: 0 }).map((d) => `t${minute + d}`),
      fc.tuple(fc.integer({ min: -3, max: 0 }), fc.integer({ min: -5, max: 0 })).map(([d, b]) => `w${minute + d}.${minute + b}`),
    )
    const location = fc.dictionary(field, fc.integer({ min: -3, max: 40 }))
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'c'), location), fc.integer({ min: 0, max: 180_000 }), fc.integer({ min: 1, max: 5 }), (locations, offset, duration) => {
        const shared: RoomState = { locations: Object.fromEntries(Object.entries(locations).map(([n, counts]) => [n, { counts, updatedAt: T0 }])), at: T0 }
        // The same counts objects twice (cached), then fresh copies (computed): the snapshots must agree.
        const first = seen(buildSnapshot(shared, T0 + offset, duration))
        const cached = seen(buildSnapshot(shared, T0 + offset, duration))
        const copies: RoomState = { locations: Object.fromEntries(Object.entries(locations).map(([n, counts]) => [n, { counts: { ...counts }, updatedAt: T0 }])), at: T0 }
        const fresh = seen(buildSnapshot(copies, T0 + offset, duration))
        expect(cached).toEqual(first)
        expect(fresh).toEqual(first)
        // A later minute or another session length is never answered from the cache of an earlier one.
        expect(seen(buildSnapshot(shared, T0 + offset + 60_000, duration))).toEqual(seen(buildSnapshot(structuredClone(copies), T0 + offset + 60_000, duration)))
        expect(seen(buildSnapshot(shared, T0 + offset, duration + 1))).toEqual(seen(buildSnapshot(structuredClone(copies), T0 + offset, duration + 1)))
      }),
    )
  })
})

describe('fairness measures', () => {
  it('counts an admission as overtaking when an older user was admitted more than one refresh + 2 s later, or never', () => {
    const users = [
      { arrivalMs: 0, admittedMs: 200_000 },
      { arrivalMs: 70_000, admittedMs: 100_000 }, // 70 s after the first, admitted 100 s before it: overtakes (≥ 1 min)
      { arrivalMs: 130_000, admittedMs: 190_000 }, // overtakes the never-admitted user (≥ 1 and ≥ 2 min), not user 0 (10 s < 22 s)
      { arrivalMs: 10_000, admittedMs: undefined }, // never admitted: overtaken by any admission of a user 1 min younger
    ]
    const result = overtakes(users, 20_000)
    // Three admissions: user 0 overtakes nobody; the 70 s user overtakes user 0 (≥ 1 min only); the 130 s user
    // overtakes the never-admitted 10 s user (≥ 1 and ≥ 2 min).
    expect(result.oneMinutePercent).toBeCloseTo(66.67, 1)
    expect(result.twoMinutesPercent).toBeCloseTo(33.33, 1)
  })

  it('finds no overtakes in any strictly FIFO admission order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3_600_000 }), { minLength: 1, maxLength: 200 }), fc.integer({ min: 0, max: 10_000 }), (arrivals, wait) => {
        const users = arrivals.map((a) => ({ arrivalMs: a, admittedMs: a + wait }))
        expect(overtakes(users, 20_000)).toEqual({ oneMinutePercent: 0, twoMinutesPercent: 0 })
      }),
    )
  })

  it('summarises utilisation samples as a mean and a 5th percentile', () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 1)
    const u = utilisation(samples)
    expect(u.meanPercent).toBe(50.5)
    expect(u.p5Percent).toBeCloseTo(5.95, 0)
    expect(u.samples).toBe(100)
    expect(utilisation([])).toEqual({ meanPercent: undefined, p5Percent: undefined, samples: 0 })
  })
})

describe('planet and --users', () => {
  it('draws Pareto shares that sum to 1 and are skewed (the top 20% of locations hold most of the traffic)', () => {
    const shares = paretoShares(300, 1.16, seededRandom('x')).sort((a, b) => b - a)
    expect(shares.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 9)
    expect(shares.slice(0, 60).reduce((s, v) => s + v, 0)).toBeGreaterThan(0.5)
  })

  it('builds 300 locations × 4 workers, 5 s lag, 2 s sync, a limit of 5,000 and 33k–40k users (each location-minute rounded)', () => {
    const planet = planetScenario()
    expect(planet.locations).toHaveLength(300)
    expect(planet.locations.every((l) => l.workers === 4)).toBe(true)
    expect([planet.lagMs, planet.syncIntervalMs, planet.room.totalActiveUsers]).toEqual([5000, 2000, 5000])
    const users = planet.arrivals.reduce((s, p) => s + p.users, 0)
    expect(users).toBeGreaterThan(30_000)
    expect(users).toBeLessThan(42_000)
  })

  it('scales a scenario to N users keeping demand against the limit', () => {
    const planet = planetScenario()
    const total = planet.arrivals.reduce((s, p) => s + p.users, 0)
    const scaled = scaleScenario(planet, 1_000_000)
    const scaledTotal = scaled.arrivals.reduce((s, p) => s + p.users, 0)
    expect(scaledTotal).toBe(1_000_000)
    // Many small location-minutes: the total stays exact when most of them round to zero.
    expect(scaleScenario(planet, 500).arrivals.reduce((s, p) => s + p.users, 0)).toBe(500)
    expect(scaled.room.totalActiveUsers / planet.room.totalActiveUsers).toBeCloseTo(1_000_000 / total, 2)
  })
})
