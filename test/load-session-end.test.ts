/**
 * test/load's black-box reading of a ticket cookie (test/load/session-end.mjs): the session end a Max-Age pins to
 * the room's 3.75-s position grid, and the most sessions live in a minute. The load tests judge the room by these, so
 * they are checked against the room's own rule (src/coordination/positions.ts) and against a brute-force count.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { positionEndsAt, positionOf, SLICE_MINUTES } from '../src/coordination/positions.ts'
// @ts-expect-error -- a plain .mjs module of the load tests, without types
import { GRID_MS, liveAt, mostLiveByMinute, sessionEndOf } from './load/session-end.mjs'

const MINUTE = 60_000

describe('test/load session-end.mjs', () => {
  it('uses the room grid', () => expect(GRID_MS).toBe(SLICE_MINUTES * MINUTE))

  it('reads back the end and position the room gave, for any position, duration and latency under 2.75 s', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 28_000_000, max: 30_000_000 }), fc.integer({ min: 0, max: 15 }), fc.boolean(), fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 59_999 }), fc.integer({ min: 0, max: 2_749 }), fc.integer({ min: 0, max: 2_749 }),
        (minute, slice, grant, D, into, before, after) => {
          // A grant sits at its whole minute; a renewal at its slice of the minute it was made in.
          const madeAt = minute * MINUTE + (grant ? into : slice * GRID_MS + (into % GRID_MS))
          const position = grant ? minute : positionOf(madeAt)
          const end = positionEndsAt(position, D)
          const now = madeAt + 5 // the server's clock when it answered
          const sentAt = now - Math.min(before, 2_749 - after)
          const receivedAt = now + after
          const maxAge = Math.max(0, Math.ceil((end - now) / 1000)) // src/ticket/cookie.ts
          const read = sessionEndOf(sentAt, receivedAt, maxAge, D)
          expect(read).toEqual({ end, position: position * MINUTE, minute: Math.floor(position) })
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('never reads a wrong end: a window too wide for one grid point is ambiguous', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 1, max: 5 }), (g, latency, D) => {
        const end = (29_000_000 * 16 + g) * GRID_MS
        const now = end - 61_000 - (g % 7) * 997
        const maxAge = Math.ceil((end - now) / 1000)
        const read = sessionEndOf(now - latency, now, maxAge, D)
        if (read !== undefined) expect(read.end).toBe(end)
        if (latency < 2_750) expect(read).toBeDefined()
      }),
      { numRuns: 2000 },
    )
  })

  it('counts the most sessions live at any moment of each minute, as a millisecond sweep does', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ admittedAt: fc.integer({ min: 0, max: 5 * MINUTE }), length: fc.integer({ min: 1, max: 3 * MINUTE }) }), { minLength: 1, maxLength: 12 }), (raw) => {
        const sessions = raw.map((s) => ({ admittedAt: s.admittedAt, end: s.admittedAt + s.length }))
        const counts = mostLiveByMinute(sessions)
        for (let m = 0; m <= 8; m++) {
          let most = 0
          for (let t = m * MINUTE; t < (m + 1) * MINUTE; t += 250) most = Math.max(most, liveAt(sessions, t))
          for (const s of sessions) if (s.admittedAt >= m * MINUTE && s.admittedAt < (m + 1) * MINUTE) most = Math.max(most, liveAt(sessions, s.admittedAt))
          expect(counts[m] ?? 0).toBe(most)
        }
      }),
      { numRuns: 300 },
    )
  })
})
