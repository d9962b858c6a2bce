import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { planMinute } from '../src/admission/plan.ts'
import { buildSnapshot } from '../src/admission/snapshot.ts'
import { activeField, activeSliceField, ACTIVE_SLICE_MS, sessionEndOf, fieldMinute, type RoomState } from '../src/coordination/state.ts'
import { overtakes, utilisation } from '../src/simulator/fairness.ts'
import { paretoShares, planetScenario, scaleScenario } from '../src/simulator/planet.ts'
import { seededRandom } from '../src/admission/plan.ts'

const T0 = Date.UTC(2026, 0, 5, 12, 0, 0)
const state = (counts: Record<string, number>): RoomState => ({ locations: { a: { counts, updatedAt: T0 } }, at: T0 })

describe('active counts in 5 s slices (issue 15)', () => {
  it('names a slice a{m}.{k}, so fieldMinute (and every adapter pruning by it) still reads the minute', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 7 }), (offset) => {
        const ms = T0 + offset
        const field = activeSliceField(ms)
        expect(fieldMinute(field)).toBe(Math.floor(ms / 60_000))
        expect(field).toMatch(/^a\d+\.(\d|1[01])$/)
      }),
    )
  })

  it('ends a session sessionDurationMinutes after the end of its slice, never before the last check-in + duration', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 8 }), fc.integer({ min: 1, max: 30 }), (offset, minutes) => {
        const at = T0 + offset
        const end = sessionEndOf(at, minutes)
        expect(end).toBeGreaterThan(at + minutes * 60_000)
        expect(end).toBeLessThanOrEqual(at + minutes * 60_000 + ACTIVE_SLICE_MS)
        expect(end % ACTIVE_SLICE_MS).toBe(0)
      }),
    )
  })

  it('counts a slice until exactly the moment its sessions end, at any session length and check-in time', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 7 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 50 }), (offset, minutes, users) => {
        const at = T0 + offset
        const end = sessionEndOf(at, minutes)
        const s = state({ [activeSliceField(at)]: users })
        expect(buildSnapshot(s, end - 1, minutes).activeUsers).toBe(users)
        expect(buildSnapshot(s, end, minutes).activeUsers).toBe(0)
      }),
    )
  })

  it('keeps a grant counted in its minute (a{m}) until its move to the slice cancels it: never under-counted', () => {
    const at = T0 + 50_000
    const grantOnly = state({ [activeField(Math.floor(at / 60_000))]: 1 })
    const moved = state({ [activeField(Math.floor(at / 60_000))]: 0, [activeSliceField(at)]: 1 })
    for (let t = at; t < T0 + 3 * 60_000; t += 1000) {
      expect(buildSnapshot(moved, t, 1).activeUsers).toBe(t < sessionEndOf(at, 1) ? 1 : 0)
      expect(buildSnapshot(grantOnly, t, 1).activeUsers).toBeGreaterThanOrEqual(buildSnapshot(moved, t, 1).activeUsers)
    }
  })
})

describe('the minute plan as slots grow during the minute', () => {
  it('never lets the locations and Anywhere together allow more than the slots, after Anywhere took some', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 2, maxLength: 12 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 1, max: 40 }),
        (traffic, limit, anywhereTaken, freed) => {
          const names = traffic.map((_, i) => `L${i}`)
          const minute = Math.floor(T0 / 60_000)
          const counts = (i: number): Record<string, number> => ({ [`t${minute - 2}`]: traffic[i]! })
          const withActive = (active: number): RoomState => ({
            locations: Object.fromEntries(
              names.map((n, i) => [n, { counts: { ...counts(i), ...(i === 0 ? { [`a${minute}`]: active, [`n${minute}`]: anywhereTaken, [`y${minute}`]: anywhereTaken } : {}) }, updatedAt: T0 }]),
            ),
            at: T0,
          })
          const before = Math.max(anywhereTaken, limit - freed)
          const plan = planMinute(buildSnapshot(withActive(before), T0 + 1000, 1), { totalActiveUsers: limit, newUsersPerMinute: limit })
          const allowed = Object.values(plan.allocation.locations).reduce((s, v) => s + v, 0)
          // Anywhere's counter already gave `anywhereTaken`: its limit plus every location's must fit the slots.
          expect(allowed + Math.max(plan.allocation.anywhere, anywhereTaken)).toBeLessThanOrEqual(Math.max(plan.slots, anywhereTaken))
        },
      ),
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
    expect(Math.abs(scaledTotal - 1_000_000) / 1_000_000).toBeLessThan(0.01)
    expect(scaled.room.totalActiveUsers / planet.room.totalActiveUsers).toBeCloseTo(1_000_000 / total, 2)
  })
})
