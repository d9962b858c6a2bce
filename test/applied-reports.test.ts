/**
 * The report ids a location aggregator remembers (src/coordination/applied-reports.ts): exactly the ids the
 * former Map iteration kept (oldest first out, by age and by count), over generated sequences; and a report past
 * the 50,000-id limit costs about what one below it does — evicting by iterating the Map stepped over every
 * deleted entry since V8's last rehash (~250 µs a report; every turn of a flood on the memory coordinator paid it).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppliedReports } from '../src/coordination/applied-reports.ts'

/** The eviction as it was: the Map's own insertion order, iterated from the front. */
function referenceRemember(seen: Map<string, number>, id: string, now: number, memoryMs: number, limit: number): void {
  seen.set(id, now)
  if (seen.size <= limit) return
  for (const [key, at] of seen) {
    if (at > now - memoryMs && seen.size <= limit) break
    seen.delete(key)
  }
}

describe('AppliedReports', () => {
  it('holds exactly the ids the Map iteration held, over generated sequences (repeats, ages, limits)', () => {
    const op = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 30 }))
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 60 }), (ops, limit, memoryMs) => {
        const applied = new AppliedReports(memoryMs, limit)
        const reference = new Map<string, number>()
        let now = 0
        for (const [id, step] of ops) {
          now += step
          const key = `r${id}`
          expect(applied.has(key)).toBe(reference.has(key))
          applied.remember(key, now)
          referenceRemember(reference, key, now, memoryMs, limit)
          expect(applied.size).toBe(reference.size)
        }
        for (let id = 0; id <= 40; id++) expect(applied.has(`r${id}`)).toBe(reference.has(`r${id}`))
      }),
      { numRuns: 500 },
    )
  })

  it('compacts its queue without losing the order (many times the compaction threshold)', () => {
    const applied = new AppliedReports(1_000_000, 100)
    const reference = new Map<string, number>()
    for (let i = 0; i < 30_000; i++) {
      const id = `r${i % 7 === 0 ? i - 50 : i}` // some re-remembered while still held
      applied.remember(id, i)
      referenceRemember(reference, id, i, 1_000_000, 100)
    }
    expect(applied.size).toBe(reference.size)
    for (const id of reference.keys()) expect(applied.has(id)).toBe(true)
  })
})
