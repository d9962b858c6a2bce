/**
 * Replay deduplication stays on at any rate (#14.9): exact up to EXACT_LIMIT ids a minute, then a fixed-size
 * filter; a replay is never counted twice, memory never grows past the filter, and genuine ids are missed
 * only rarely.
 */
import { describe, expect, it } from 'vitest'
import { EXACT_LIMIT, SeenSet } from '../src/coordination/seen-set.ts'
import { randomId } from '../src/ticket/ticket.ts'

describe('SeenSet', () => {
  it('is exact below its limit, and forgets a minute when the next begins', () => {
    const seen = new SeenSet()
    expect(seen.first('a', 1)).toBe(true)
    expect(seen.first('a', 1)).toBe(false)
    expect(seen.first('b', 1)).toBe(true)
    expect(seen.first('a', 2)).toBe(true)
  })

  it('past the exact limit, never counts a replay twice and misses under 0.1% of genuine ids (1M distinct a minute)', () => {
    for (const [seed, count] of [[1, 1_000_000], [2, 400_000]] as const) {
      const seen = new SeenSet()
      const minute = 100 + seed
      const ids: string[] = []
      let missed = 0
      for (let i = 0; i < count; i++) {
        const id = randomId()
        if (i % 997 === 0) ids.push(id)
        if (!seen.first(id, minute)) missed++
      }
      expect(missed / (count - EXACT_LIMIT)).toBeLessThan(0.001)
      // Every id seen, from the exact part and from the filter's, is a replay now.
      for (const id of ids) expect(seen.first(id, minute)).toBe(false)
      // A new minute starts clean, filter included.
      expect(ids.filter((id) => seen.first(id, minute + 1)).length).toBe(ids.length)
    }
  }, 60_000)
})
