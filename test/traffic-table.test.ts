/**
 * A proposal's traffic table read from a layered state (the base record with the worker's own location replaced,
 * held-references.ts) equals the one read from the materialized `locations` record — values and key order — for
 * generated records, own states and unreported deltas, a base record read again (its cached table) included.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { trafficField, type LocationState } from '../src/coordination/state.ts'
import { trafficTable } from '../src/coordination/held-references.ts'

const MINUTE = 7
const names = ['a', 'b', 'c', 'loc-1', 'loc-2', '3', '10']
const counts = fc.dictionary(fc.constantFrom(trafficField(MINUTE), trafficField(MINUTE + 1), 'x'), fc.integer({ min: -2, max: 4 }))
const stateOf = (c: Record<string, number>): LocationState => ({ counts: c, updatedAt: 0 })
const base = fc.dictionary(fc.constantFrom(...names), counts.map(stateOf))
const own = fc.array(fc.record({ location: fc.constantFrom(...names), deltas: counts }), { maxLength: 4 })

describe('trafficTable over a layered state', () => {
  it('equals the table of the materialized record, key order included, read once or twice', () => {
    fc.assert(
      fc.property(base, fc.constantFrom(...names), counts, own, fc.constantFrom(MINUTE, MINUTE + 1), (record, location, ownCounts, deltas, minute) => {
        const replaced = { location, state: stateOf(ownCounts) }
        const materialized = { ...record, [location]: replaced.state }
        const expected = trafficTable({ locations: materialized, own: deltas }, minute)
        for (let read = 0; read < 2; read++) {
          const layered = trafficTable({ locations: record, replaced, own: deltas }, minute)
          expect(Object.entries(layered)).toEqual(Object.entries(expected))
        }
      }),
      { numRuns: 3000 },
    )
  })

  it('a cached base record serves other own locations and own states alike', () => {
    fc.assert(
      fc.property(base, fc.array(fc.tuple(fc.constantFrom(...names), counts), { minLength: 2, maxLength: 6 }), (record, owners) => {
        for (const [location, ownCounts] of owners) {
          const replaced = { location, state: stateOf(ownCounts) }
          const expected = trafficTable({ locations: { ...record, [location]: replaced.state }, own: [] }, MINUTE)
          expect(Object.entries(trafficTable({ locations: record, replaced, own: [] }, MINUTE))).toEqual(Object.entries(expected))
        }
      }),
      { numRuns: 2000 },
    )
  })
})
