/**
 * Issue 15's plan pieces, as properties of the pure functions: the head of the line is asked back when the
 * places that reach it free (never later than its interval), FIFO holds back per location where the older users
 * wait (never above a counter's allocation, never more for an older bucket than for a newer one), and a
 * view from before the minute's start counts the previous minute's untaken allocation as possibly taken.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fifoLimits, planMinute } from '../src/admission/plan.ts'
import { fifoRefreshSeconds } from '../src/admission/refresh.ts'
import { allocateSlots } from '../src/admission/slots.ts'
import { buildSnapshot, EXPIRY_MARGIN_MS } from '../src/admission/snapshot.ts'
import type { RoomState } from '../src/coordination/state.ts'

const MINUTE_MS = 60_000
const MINUTE = 29_460_240 // 2026-01-05 12:00 UTC
const START = MINUTE * MINUTE_MS
const NAMES = ['a', 'b', 'c', 'd']

/** A room state: per location, active users by minute of last check-in, waiting users by bucket, traffic. */
const stateArb = fc
  .array(
    fc.record({
      active: fc.array(fc.nat(30), { minLength: 3, maxLength: 3 }),
      waiting: fc.array(fc.nat(25), { minLength: 4, maxLength: 4 }),
      traffic: fc.nat(60),
      admitted: fc.nat(10),
      changedAgoMs: fc.integer({ min: 0, max: 20_000 }),
    }),
    { minLength: 1, maxLength: NAMES.length },
  )
  .map((parts) => {
    const state: RoomState = { locations: {}, at: START }
    parts.forEach((part, i) => {
      const counts: Record<string, number> = { [`t${MINUTE - 2}`]: part.traffic, [`n${MINUTE}`]: part.admitted }
      part.active.forEach((value, d) => (counts[`a${MINUTE - d}`] = value + (d === 0 ? part.admitted : 0)))
      part.waiting.forEach((value, b) => (counts[`w${MINUTE}.${MINUTE - 3 + b}`] = value))
      state.locations[NAMES[i]!] = { counts, updatedAt: START - part.changedAgoMs }
    })
    return state
  })
const limitsArb = fc.record({ totalActiveUsers: fc.integer({ min: 20, max: 200 }), newUsersPerMinute: fc.integer({ min: 5, max: 200 }) })
const bucketArb = fc.option(fc.integer({ min: MINUTE - 3, max: MINUTE }), { nil: undefined })

/** Active counts at positions (src/coordination/positions.ts) over the three minutes before and into `MINUTE`. */
const positionsArb = fc.array(fc.record({ slice: fc.nat(47), count: fc.integer({ min: 1, max: 12 }), at: fc.nat(NAMES.length - 1) }), { maxLength: 40 })

/** `state` with its `a` fields replaced by `positions` (kept up to the slice of `now`). */
function withPositions(state: RoomState, positions: { slice: number; count: number; at: number }[], now: number): RoomState {
  const locations: RoomState['locations'] = {}
  for (const [name, located] of Object.entries(state.locations)) {
    const counts = Object.fromEntries(Object.entries(located.counts).filter(([field]) => !field.startsWith('a')))
    locations[name] = { ...located, counts }
  }
  const names = Object.keys(locations)
  for (const { slice, count, at } of positions) {
    const position = MINUTE - 2 + slice / 16
    if (position * MINUTE_MS > now) continue
    const counts = locations[names[at % names.length]!]!.counts
    counts[`a${position}`] = (counts[`a${position}`] ?? 0) + count
  }
  return { ...state, locations }
}

describe('head of the line asked back when the places that reach it free', () => {
  it('never later than the interval; just after the first moment the places freed by then reach the user (brute force over time)', () => {
    fc.assert(
      fc.property(stateArb, positionsArb, limitsArb, fc.integer({ min: MINUTE - 3, max: MINUTE }), fc.integer({ min: 0, max: 59_999 }), fc.integer({ min: 5, max: 60 }), fc.double({ min: 0, max: 0.999, noNaN: true }), (base, positions, limits, bucketId, into, interval, random) => {
        const now = START + into
        const state = withPositions(base, positions, now)
        const snapshot = buildSnapshot({ ...state, at: now }, now, 1)
        const plan = planMinute(snapshot, limits)
        const spreadSeconds = Math.max(1, Math.round(interval / 10))
        const refresh = fifoRefreshSeconds({ plan, snapshot, limits, bucketId, now, intervalSeconds: interval, spreadSeconds, random })
        expect(refresh).toBeLessThanOrEqual(interval)
        // The oracle: every 250 ms, the slots a view then would show (ends read EXPIRY_MARGIN_MS late), from the
        // state's fields — a count at p of a 1-minute session ends at p + 2 minutes.
        let older = 0
        for (const bucket of snapshot.buckets) if (bucket.bucketId < bucketId) older += bucket.waiting
        const ahead = Math.max(0, older - plan.remaining)
        const ends: number[] = []
        for (const located of Object.values(state.locations)) {
          for (const [field, value] of Object.entries(located.counts)) {
            const end = (Number(field.slice(1)) + 2) * MINUTE_MS
            if (field.startsWith('a') && end > now - EXPIRY_MARGIN_MS) for (let i = 0; i < value; i++) ends.push(end)
          }
        }
        const next = START + MINUTE_MS
        const reachedAt = (t: number): boolean => {
          const freed = ends.filter((end) => end + EXPIRY_MARGIN_MS <= t).length
          if (t < next) return ahead < Math.min(freed, Math.max(0, limits.newUsersPerMinute - plan.slots))
          return ahead < Math.min(limits.totalActiveUsers - (snapshot.activeUsers - freed), limits.newUsersPerMinute)
        }
        let first: number | undefined
        for (let t = now; t <= now + interval * 1000 && first === undefined; t += 250) if (reachedAt(t)) first = t
        const back = now + refresh * 1000
        if (first === undefined) expect(refresh).toBe(interval)
        else {
          expect(back).toBeGreaterThanOrEqual(Math.min(now + interval * 1000, first + 1000 - 250))
          expect(back).toBeLessThanOrEqual(first + (2 + spreadSeconds) * 1000)
        }
      }),
      { seed: 1515, numRuns: 400 },
    )
  })
})

describe('FIFO holds back where the older users wait', () => {
  it('limits never exceed a counter allocation, and an older bucket never gets less than a newer one or a new user', () => {
    fc.assert(
      fc.property(stateArb, limitsArb, bucketArb, fc.integer({ min: 0, max: 59_999 }), (state, limits, bucketId, into) => {
        const now = START + into
        const plan = planMinute(buildSnapshot(state, now, 1), limits)
        for (const name of NAMES) {
          const mine = fifoLimits(plan, name, bucketId)
          if (!mine) continue
          expect(mine.localLimit).toBeLessThanOrEqual(plan.allocation.locations[name] ?? 0)
          expect(mine.anywhereLimit).toBeLessThanOrEqual(plan.allocation.anywhere)
          // Anyone newer (a later bucket, or a new user) is held back at least as much.
          for (const newer of [...(bucketId === undefined ? [] : [bucketId + 1]), undefined]) {
            const theirs = fifoLimits(plan, name, newer)
            if (!theirs) continue
            expect(theirs.localLimit).toBeLessThanOrEqual(mine.localLimit)
            expect(theirs.anywhereLimit).toBeLessThanOrEqual(mine.anywhereLimit)
          }
        }
      }),
      { seed: 1516, numRuns: 400 },
    )
  })

  it('a new user at a location where nobody older waits keeps its counter; Anywhere keeps what older users elsewhere cannot fit at home', () => {
    // Slots 30: traffic two minutes ago all at `a` (its counter gets 30 × 20/30), but the queue waits at `b`.
    const state: RoomState = {
      at: START,
      locations: {
        a: { updatedAt: START, counts: { [`t${MINUTE - 2}`]: 20, [`a${MINUTE}`]: 170 } },
        b: { updatedAt: START, counts: { [`t${MINUTE - 2}`]: 10, [`w${MINUTE}.${MINUTE - 1}`]: 25 } },
      },
    }
    const plan = planMinute(buildSnapshot(state, START + 1000, 1), { totalActiveUsers: 200, newUsersPerMinute: 200 })
    expect(plan.slots).toBe(30)
    expect(plan.allocation.locations).toEqual({ a: 3, b: 1 })
    const newAtA = fifoLimits(plan, 'a', undefined)!
    const newAtB = fifoLimits(plan, 'b', undefined)!
    // The 25 older users at b: 1 on b's counter, 24 need Anywhere (26 left): a new user there gets 2.
    expect(newAtB).toEqual({ localLimit: 0, anywhereLimit: 2 })
    expect(newAtA).toEqual({ localLimit: 3, anywhereLimit: 2 })
    expect(fifoLimits(plan, 'b', MINUTE - 1)).toEqual({ localLimit: 1, anywhereLimit: 26 })
  })
  it('users queued beside a counter with room go before its newcomers, however many older users wait where no counter has room', () => {
    // Slots 30 (a: 3, b: 1, Anywhere 26). 40 users of the oldest bucket wait at b: 1 fits b's counter, 26 the
    // Anywhere pool, 13 nothing this minute. Two users of the next bucket wait at a, whose counter none of them
    // can use: they may take it, and a new user at a must leave it to them (before, the 40 made the whole next
    // bucket ineligible while a's newcomers took a's counter).
    const state: RoomState = {
      at: START,
      locations: {
        a: { updatedAt: START, counts: { [`t${MINUTE - 2}`]: 20, [`a${MINUTE}`]: 170, [`w${MINUTE}.${MINUTE - 1}`]: 2 } },
        b: { updatedAt: START, counts: { [`t${MINUTE - 2}`]: 10, [`w${MINUTE}.${MINUTE - 2}`]: 40 } },
      },
    }
    const plan = planMinute(buildSnapshot(state, START + 1000, 1), { totalActiveUsers: 200, newUsersPerMinute: 200 })
    expect(plan.allocation).toEqual({ locations: { a: 3, b: 1 }, anywhere: 26 })
    expect(fifoLimits(plan, 'a', MINUTE - 1)).toEqual({ localLimit: 3, anywhereLimit: 0 })
    expect(fifoLimits(plan, 'a', undefined)).toEqual({ localLimit: 1, anywhereLimit: 0 })
    // The next bucket at b has nothing left: not eligible (no counter call).
    expect(fifoLimits(plan, 'b', MINUTE - 1)).toBeUndefined()
  })
})

describe('the previous minute seen from before this one', () => {
  it('counts the untaken allocations of locations behind (and Anywhere) as active while users queue; a fresh view adds nothing', () => {
    fc.assert(
      fc.property(stateArb, limitsArb, fc.integer({ min: 0, max: 59_999 }), (state, limits, into) => {
        // The plan of the minute before, from the same counts seen then.
        const before = planMinute(buildSnapshot(state, START + 30_000, 1), limits)
        const snapshot = buildSnapshot(state, START + MINUTE_MS + into, 1)
        const plain = planMinute(snapshot, limits)
        const withPrevious = planMinute(snapshot, limits, before)
        expect(withPrevious.slots).toBeLessThanOrEqual(plain.slots)
        const fresh = { ...snapshot, behind: [], untakenBehind: () => ({ behind: 0, untaken: 0 }) }
        expect(planMinute(fresh, limits, before).slots).toBe(plain.slots)
        if (snapshot.behind.length > 0 && snapshot.buckets.length > 0) {
          // Bounded by the allocation at the most slots any view of that minute could give (they grow as sessions end).
          const bound = allocateSlots(before.slotsBound, before.traffic, limits.totalActiveUsers)
          // A pooled minute (no location has a share) has no location counter to re-hand unseen Anywhere grants.
          const pooled = !Object.values(snapshot.traffic).some((seen) => seen > 0)
          let untaken = pooled ? 0 : Math.max(0, bound.anywhere - snapshot.takenLastMinute.anywhere)
          for (const name of snapshot.behind) untaken += Math.max(0, (bound.locations[name] ?? 0) - (snapshot.takenLastMinute.locations[name] ?? 0))
          const active = snapshot.activeUsers + untaken - snapshot.admittedThisMinute
          expect(withPrevious.slots).toBe(Math.max(0, Math.min(limits.totalActiveUsers - active, limits.newUsersPerMinute)))
        }
      }),
      { seed: 1517, numRuns: 300 },
    )
  })

  it('a minute plan bounds the slots of every later view of that minute, as its sessions end (positions)', () => {
    fc.assert(
      fc.property(stateArb, positionsArb, limitsArb, fc.integer({ min: 0, max: 59_999 }), fc.integer({ min: 0, max: 59_999 }), (base, positions, limits, a, b) => {
        const [early, late] = [Math.min(a, b), Math.max(a, b)]
        const state = withPositions(base, positions, START + early)
        const first = planMinute(buildSnapshot({ ...state, at: START + early }, START + early, 1), limits)
        const later = planMinute(buildSnapshot({ ...state, at: START + late }, START + late, 1), limits)
        expect(later.slots).toBeLessThanOrEqual(first.slotsBound)
      }),
      { seed: 1518, numRuns: 300 },
    )
  })
})
