/**
 * Every bounded whole-number option of `waitingRoom()` rejects a bad value at build time with a message that names
 * the field and the whole allowed range (break19: `clockSkewToleranceMs: '500'` said "expected number, received
 * string", `-1` only ">=0"). Generated bad values of every kind, for every such option.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { waitingRoom } from '../src/index.ts'

const bounded: Record<string, [number, number]> = {
  totalActiveUsers: [1, 10_000_000],
  newUsersPerMinute: [1, 10_000_000],
  sessionDurationMinutes: [1, 30],
  refreshIntervalSeconds: [5, 300],
  queuePlaceKeptSeconds: [60, 86_400],
  analyticsRetentionDays: [1, 90],
  coordinatorTimeoutMs: [1, 60_000],
  clockSkewToleranceMs: [0, 10_000],
  syncIntervalMs: [0, 60_000],
}

const badValue = (min: number, max: number) =>
  fc.oneof(
    fc.integer({ min: -1e9, max: min - 1 }),
    fc.integer({ min: max + 1, max: max + 1e9 }),
    fc.double({ min, max, noNaN: true }).filter((v) => !Number.isInteger(v)),
    fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, null, '500', String(min), {}, [], true),
  )

describe('bounded whole-number options', () => {
  for (const [field, [min, max]] of Object.entries(bounded)) {
    it(`${field}: a bad value throws naming the field and ${min} to ${max}`, () => {
      fc.assert(
        fc.property(badValue(min, max), (value) => {
          expect(() => waitingRoom({ [field]: value } as never)).toThrow(`invalid option ${field}: expected an integer from ${min} to ${max}`)
        }),
        { numRuns: 60 },
      )
    })
    it(`${field}: both ends are accepted`, () => {
      expect(() => waitingRoom({ [field]: min } as never)).not.toThrow()
      expect(() => waitingRoom({ [field]: max } as never)).not.toThrow()
    })
  }
})
