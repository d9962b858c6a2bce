/**
 * The aggregation stages share what did not change instead of copying it (issue 15: at 300 locations a record
 * per exchange and a counts copy per report were a large part of the simulator's allocation). Sharing must not
 * change what anyone reads: generated sequences compare every answer and every state with the copying form.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../src/clock.ts'
import { GlobalAggregator, LocationAggregator } from '../src/coordination/aggregator.ts'
import { addCounts, pruneCounts, type LocationState } from '../src/coordination/state.ts'

const START = 29_000_000 * MINUTE_MS

describe('GlobalAggregator.exchangeOwnOverlaid', () => {
  it('answers as exchange does for every location but the asker, in the same order, forgetting the same ones', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.record({ location: fc.nat(), step: fc.integer({ min: 0, max: 40_000 }), exchange: fc.boolean(), stale: fc.boolean() }), { maxLength: 60 }),
        (locations, events) => {
          const overlaid = new GlobalAggregator(60_000)
          const full = new GlobalAggregator(60_000)
          let now = START
          for (const { location, step, exchange, stale } of events) {
            now += step
            const name = `L${location % locations}`
            const state: LocationState = { counts: { a: step }, updatedAt: stale ? now - 61_000 : now }
            if (!exchange) {
              overlaid.store(name, state)
              full.store(name, state)
              continue
            }
            const got = overlaid.exchangeOwnOverlaid(name, state, now)
            const want = full.exchange(name, state, now)
            expect(Object.keys(got.locations)).toEqual(Object.keys(want.locations))
            for (const other of Object.keys(want.locations)) if (other !== name) expect(got.locations[other]).toBe(want.locations[other])
            expect(got.at).toBe(now)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('gives the last answer again when only the asker was stored since, and a new one when another was', () => {
    const global = new GlobalAggregator()
    const state = (at: number): LocationState => ({ counts: { a: 1 }, updatedAt: at })
    const first = global.exchangeOwnOverlaid('A', state(START), START)
    global.exchangeOwnOverlaid('B', state(START), START)
    const third = global.exchangeOwnOverlaid('A', state(START + 1), START + 1)
    expect(global.exchangeOwnOverlaid('A', state(START + 2), START + 2).locations).toBe(third.locations)
    expect(third.locations).not.toBe(first.locations)
    global.store('B', state(START + 3))
    expect(global.exchangeOwnOverlaid('A', state(START + 3), START + 3).locations).not.toBe(third.locations)
  })
})

describe('LocationAggregator: copy on write', () => {
  it('a report that adds nothing shares the counts; every state handed out keeps its content; counts as if copied', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0, 2, 6),
        fc.array(
          fc.record({
            step: fc.integer({ min: 0, max: 90_000 }),
            fields: fc.array(fc.record({ back: fc.integer({ min: 0, max: 8 }), by: fc.integer({ min: -2, max: 3 }) }), { maxLength: 3 }),
            grant: fc.boolean(),
          }),
          { maxLength: 40 },
        ),
        (keepMinutes, reports) => {
          const aggregator = new LocationAggregator('L')
          const expected: Record<string, number> = {}
          const handedOut: [LocationState, string][] = []
          let now = START
          reports.forEach(({ step, fields, grant }, i) => {
            now += step
            const minute = Math.floor(now / MINUTE_MS)
            const deltas: Record<string, number> = {}
            for (const { back, by } of fields) addCounts(deltas, { [`A${minute - back}`]: by })
            if (grant) {
              aggregator.add({ [`A${minute - 1}`]: 1 })
              addCounts(expected, { [`A${minute - 1}`]: 1 })
            }
            const before = aggregator.state()
            aggregator.apply({ id: `r${i}`, roomId: 'room', location: 'L', at: now, keepMinutes, deltas }, now, () => true)
            addCounts(expected, deltas)
            if (keepMinutes > 0) pruneCounts(expected, minute - keepMinutes)
            const state = aggregator.state()
            expect(state.updatedAt).toBe(now)
            expect(state).not.toBe(before)
            expect(state.counts).toEqual(expected)
            if (Object.keys(deltas).length === 0 && !grant && handedOut.length > 0 && keepMinutes === 0) expect(state.counts).toBe(before.counts)
            handedOut.push([state, JSON.stringify(state.counts)])
          })
          for (const [state, content] of handedOut) expect(JSON.stringify(state.counts)).toBe(content)
        },
      ),
      { numRuns: 300 },
    )
  })
})
