/**
 * The recorder's counters reach the backend exactly: for generated sequences of counts over minutes and
 * locations with writes in between, every (minute, location, field) written sums to what was counted — the
 * row remembered for the next count (src/history/recorder.ts) never outlives a write.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HistoryRecorder } from '../src/history/recorder.ts'
import type { HistoryBatch } from '../src/history/model.ts'

describe('HistoryRecorder counters', () => {
  it('writes every count once, into its own minute and location', async () => {
    const count = fc.record({ minute: fc.integer({ min: 0, max: 2 }), location: fc.constantFrom('a', 'b'), field: fc.constantFrom('x.one', 'x.two'), delta: fc.integer({ min: -2, max: 3 }) })
    const step = fc.oneof({ arbitrary: count, weight: 5 }, { arbitrary: fc.constant('flush' as const), weight: 1 })
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const written = new Map<string, number>()
        const counted = new Map<string, number>()
        const backend = {
          recordHistory: async (batch: HistoryBatch) => {
            for (const row of batch.rows) for (const [field, value] of Object.entries(row.fields)) written.set(`${row.minute} ${row.location} ${field}`, (written.get(`${row.minute} ${row.location} ${field}`) ?? 0) + value)
          },
        }
        const recorder = new HistoryRecorder({ roomId: 'r', retentionMinutes: 60, flushIntervalMs: 0, clock: () => 0 })
        for (const s of steps) {
          if (s === 'flush') await recorder.flush(backend, 0)
          else {
            recorder.add(s.minute, s.location, `e.${s.field}`, s.delta)
            const key = `${s.minute} ${s.location} e.${s.field}`
            counted.set(key, (counted.get(key) ?? 0) + s.delta)
          }
        }
        await recorder.flush(backend, 0)
        const nonZero = (m: Map<string, number>) => new Map([...m].filter(([, v]) => v !== 0))
        expect(nonZero(written)).toEqual(nonZero(counted))
      }),
      { numRuns: 300 },
    )
  })
})
