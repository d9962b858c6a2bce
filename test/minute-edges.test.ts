/**
 * clockSkewToleranceMs (src/admission/minute-edges.ts): no fresh grant within the tolerance of a minute's edges by
 * the worker's clock, so a grant's minute is the same on every clock within the tolerance — per-minute limits hold
 * on any of them (breakslice18 limits-exact, skewed workers). Properties of the pure functions, then the room:
 * two workers whose clocks disagree, new users at generated instants around a boundary.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { atMinuteEdge, pastMinuteEdge } from '../src/admission/minute-edges.ts'
import { minuteOf } from '../src/clock.ts'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { waitingRoom, type WaitingRoomEnv } from '../src/index.ts'

const MINUTE_MS = 60_000
const START = 29_460_240 * MINUTE_MS
const nowArb = fc.integer({ min: START - 3 * MINUTE_MS, max: START + 3 * MINUTE_MS })
const tolArb = fc.integer({ min: 0, max: 10_000 })

describe('minute edges', () => {
  it('outside the edges, every clock within the tolerance is in the same minute', () => {
    fc.assert(
      fc.property(nowArb, tolArb, fc.double({ min: -1, max: 1, noNaN: true }), (now, tol, f) => {
        const skew = Math.round(f * tol)
        if (!atMinuteEdge(now, tol)) expect(minuteOf(now - skew)).toBe(minuteOf(now))
      }),
    )
  })

  it('tolerance 0 has no edge; pastMinuteEdge is the first moment at or after `at` outside the edges', () => {
    fc.assert(
      fc.property(nowArb, tolArb, (at, tol) => {
        expect(atMinuteEdge(at, 0)).toBe(false)
        const past = pastMinuteEdge(at, tol)
        expect(past).toBeGreaterThanOrEqual(at)
        expect(atMinuteEdge(past, tol)).toBe(false)
        // Edges are whole intervals: the millisecond before a moved answer is still one.
        if (past > at) expect(atMinuteEdge(past - 1, tol) && atMinuteEdge(at, tol)).toBe(true)
        expect(past - at).toBeLessThanOrEqual(2 * tol)
      }),
    )
  })
})

/** A worker on the shared memory coordinator whose clock reads `clock.now + skew`; answers reason and Refresh. */
function worker(coordinator: ReturnType<typeof memoryCoordinator>, clock: { now: number }, skew: number, tol: number) {
  const app = new Hono<WaitingRoomEnv>()
  const options = { roomId: 'edges', totalActiveUsers: 50, newUsersPerMinute: 1, sessionDurationMinutes: 5, refreshIntervalSeconds: 20, syncIntervalMs: 0 }
  app.use('*', waitingRoom({ ...options, secret: 'minute-edges-secret-0123456789-abcdefghij', clock: () => clock.now + skew, coordinator, jsonResponseEnabled: true, clockSkewToleranceMs: tol }))
  app.all('*', (c) => c.text(c.get('waitingRoom').reason))
  return async () => {
    const res = await app.request('/', { headers: { accept: 'application/json' } })
    return { admitted: res.headers.get('refresh') === null && res.status === 200 && (await res.text()) === 'slot', refresh: Number(res.headers.get('refresh') ?? 0) }
  }
}

describe('two workers whose clocks disagree within the tolerance', () => {
  // Tolerances up to 3 s: an edge (twice the tolerance) shorter than the refresh interval, which caps every refresh.
  it('admit at most newUsersPerMinute in each minute of either clock; a user refused at the edge is asked back just past it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3000 }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1.5, max: 1.5, noNaN: true }), fc.double({ min: -1.5, max: 1.5, noNaN: true }), fc.nat(1), async (tol, f, g1, g2, first) => {
        const coordinator = memoryCoordinator()
        const clock = { now: START }
        const skews = [0, Math.round(f * tol)] // worker 0's clock is the test's
        const ws = skews.map((skew) => worker(coordinator, clock, skew, tol))
        const byMinute = new Map<number, number>() // on the test's clock
        // Two new users around the boundary, within 1.5 tolerances (+ 20 ms) of it, one at each worker: where the
        // clocks disagree on the minute. Each is alone in line when it arrives (the second behind the first if queued).
        const times = [g1, g2].map((g) => START + Math.round(g * (tol + 20))).sort((a, b) => a - b)
        for (const [k, at] of times.entries()) {
          const i = k === 0 ? first : 1 - first
          clock.now = at
          const answer = await ws[i]!()
          if (answer.admitted) byMinute.set(minuteOf(at), (byMinute.get(minuteOf(at)) ?? 0) + 1)
          const own = at + skews[i]!
          // The first, refused only for the edge (its minute's place is free): asked back just past it.
          if (k === 0 && atMinuteEdge(own, tol)) {
            expect(answer.admitted).toBe(false)
            expect(own + answer.refresh * 1000).toBeGreaterThan(pastMinuteEdge(own, tol))
            expect(own + answer.refresh * 1000).toBeLessThanOrEqual(pastMinuteEdge(own, tol) + 4000) // + 1 s and the 2 s spread
          }
          if (k === 0 && !atMinuteEdge(own, tol)) expect(answer.admitted).toBe(true)
        }
        for (const n of byMinute.values()) expect(n).toBeLessThanOrEqual(1)
      }),
      { numRuns: 200 },
    )
  })
})
