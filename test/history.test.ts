/**
 * The history model on its own: retention bounds memory over many simulated days (fake clock), a recorder
 * keeps a batch it could not write and resends it (applied once), and histogram percentiles add up across
 * workers — generated inputs, several seeds.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { binOf, percentilesOf, quantile, SESSION_BINS_SECONDS, WAIT_BINS_SECONDS } from '../src/history/bins.ts'
import { MemoryHistoryStore } from '../src/history/memory-store.ts'
import { DEFAULT_HISTORY_RETENTION_MINUTES, F, type HistoryBatch } from '../src/history/model.ts'
import { HistoryRecorder } from '../src/history/recorder.ts'
import { seriesOf } from '../src/history/series.ts'

const MINUTE = 60_000
const START_MINUTE = 29_405_520

describe('retention', () => {
  it('bounds memory by minutes × locations over 16 simulated days, whatever the traffic', async () => {
    const coordinator = memoryCoordinator()
    const locations = ['SJC', 'AMS', 'NRT']
    // Two workers per location, each writing once a minute: 16 days is 138 240 batches.
    const recorders = locations.flatMap((location) => [0, 1].map(() => ({ location, recorder: new HistoryRecorder({ roomId: 'r', retentionMinutes: DEFAULT_HISTORY_RETENTION_MINUTES, flushIntervalMs: 10_000 }) })))
    const sizes: number[] = []
    const days = 16
    for (let minute = 0; minute < days * 1440; minute++) {
      const now = (START_MINUTE + minute) * MINUTE + 30_000
      for (const { location, recorder } of recorders) {
        // Traffic grows with time (ten times more users on the last day): memory must not.
        for (let u = 0; u < 1 + Math.floor(minute / 1440 / 3); u++) recorder.admitted(now, location, START_MINUTE + minute - 1)
        recorder.gauges(now, location, { activeUsers: minute % 500, waitingUsers: 3, limit: 500, newUsersPerMinute: 100 })
        await recorder.flush(coordinator, now)
      }
      if ((minute + 1) % 1440 === 0) sizes.push(coordinator.history.size.rows)
    }
    const { minutes, rows, batchIds } = coordinator.history.size
    // Pruned in steps of an hour at most (src/history/memory-store.ts): the retention plus an hour, per location.
    expect(minutes).toBeLessThanOrEqual(DEFAULT_HISTORY_RETENTION_MINUTES + 61)
    expect(rows).toBeLessThanOrEqual((DEFAULT_HISTORY_RETENTION_MINUTES + 61) * locations.length)
    // Batch ids are remembered for an hour only: 6 workers × 1 a minute × 61 minutes at most.
    expect(batchIds).toBeLessThanOrEqual(6 * 61)
    // The plateau: from day 8 on, the size no longer grows (within the prune step).
    for (const size of sizes.slice(8)) expect(Math.abs(size - sizes[7]!)).toBeLessThanOrEqual(61 * locations.length)
    expect(sizes[0]).toBeLessThan(sizes[7]!)
    // What is kept is the last seven days, complete.
    const now = START_MINUTE + days * 1440
    const kept = await coordinator.readHistory({ roomId: 'r', fromMinute: now - DEFAULT_HISTORY_RETENTION_MINUTES, toMinute: now })
    expect(kept.length).toBe(DEFAULT_HISTORY_RETENTION_MINUTES * locations.length)
    expect(await coordinator.readHistory({ roomId: 'r', fromMinute: 0, toMinute: now - DEFAULT_HISTORY_RETENTION_MINUTES - 1 })).toEqual([])
  }, 120_000)

  it('a recorder holds a bounded number of rows while the backend is down', async () => {
    const recorder = new HistoryRecorder({ roomId: 'r', retentionMinutes: 60, flushIntervalMs: 0 })
    for (let minute = 0; minute < 5000; minute++) recorder.arrived(minute * MINUTE, `loc${minute % 3}`)
    expect(recorder.pendingRows).toBeLessThanOrEqual(2000)
  })
})

describe('recorder', () => {
  it('resends a batch that failed with the same id, so it is applied exactly once', async () => {
    const store = new MemoryHistoryStore()
    const sent: HistoryBatch[] = []
    let fail = true
    const flaky = {
      async recordHistory(batch: HistoryBatch) {
        sent.push(batch)
        store.record(batch)
        // The write happened but its reply was lost.
        if (fail) throw new Error('reply lost')
      },
    }
    const recorder = new HistoryRecorder({ roomId: 'r', retentionMinutes: 60, flushIntervalMs: 0 })
    recorder.arrived(START_MINUTE * MINUTE, 'SJC')
    await expect(recorder.flush(flaky, START_MINUTE * MINUTE)).rejects.toThrow(/reply lost/)
    fail = false
    recorder.arrived(START_MINUTE * MINUTE + 1000, 'SJC')
    await recorder.flush(flaky, START_MINUTE * MINUTE + 2000)
    expect(sent.map((b) => b.id)).toEqual([sent[0]!.id, sent[0]!.id, sent[2]!.id])
    expect(store.read({ roomId: 'r', fromMinute: START_MINUTE, toMinute: START_MINUTE + 1 })[0]!.fields).toEqual({ [F.arrivals]: 2 })
  })

  it('drops an unacknowledged batch older than the id memory instead of risking a double count', async () => {
    const store = new MemoryHistoryStore()
    let fail = true
    const flaky = {
      async recordHistory(batch: HistoryBatch) {
        store.record(batch)
        if (fail) throw new Error('reply lost')
      },
    }
    const recorder = new HistoryRecorder({ roomId: 'r', retentionMinutes: 600, flushIntervalMs: 0 })
    recorder.arrived(START_MINUTE * MINUTE, 'SJC')
    await expect(recorder.flush(flaky, START_MINUTE * MINUTE)).rejects.toThrow()
    fail = false
    await recorder.flush(flaky, (START_MINUTE + 61) * MINUTE)
    expect(store.read({ roomId: 'r', fromMinute: START_MINUTE, toMinute: START_MINUTE + 1 })[0]!.fields).toEqual({ [F.arrivals]: 1 })
  })

  it('a session renewed twice is one sample, at its last length and minute', () => {
    const recorder = new HistoryRecorder({ roomId: 'r', retentionMinutes: 60, flushIntervalMs: 0 })
    const t0 = START_MINUTE * MINUTE + 30_000
    recorder.admitted(t0, 'SJC', undefined)
    recorder.sessionRenewed(t0 + 60_000, 'SJC', t0, t0)
    recorder.sessionRenewed(t0 + 400_000, 'SJC', t0, t0 + 60_000)
    const store = new MemoryHistoryStore()
    return recorder.flush(store, t0 + 400_000).then(() => {
      const { totals, points } = seriesOf(store.read({ roomId: 'r', fromMinute: START_MINUTE, toMinute: START_MINUTE + 10 }), START_MINUTE, START_MINUTE + 10, 1)
      expect(totals.session.count).toBe(1)
      expect(points[Math.floor((t0 + 400_000) / MINUTE) - START_MINUTE]!.session.count).toBe(1)
      expect(totals.session.p50).toBeGreaterThanOrEqual(300)
      expect(totals.session.p50).toBeLessThan(420)
    })
  })
})

describe('histogram percentiles', () => {
  const samples = fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 300 })
  const histogram = (edges: readonly number[], values: number[]) => {
    const bins = edges.map(() => 0)
    for (const v of values) bins[binOf(edges, v)]!++
    return bins
  }
  const exact = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * values.length) - 1)]!

  for (const seed of [1, 2, 3]) {
    it(`bins of several workers add up to the bins of all their samples, and a percentile stays in its bin (seed ${seed})`, () => {
      fc.assert(
        fc.property(fc.array(samples, { minLength: 1, maxLength: 5 }), fc.constantFrom(0.5, 0.9, 0.99), (workers, q) => {
          const all = workers.flat()
          const summed = WAIT_BINS_SECONDS.map((_, i) => workers.reduce((s, w) => s + histogram(WAIT_BINS_SECONDS, w)[i]!, 0))
          expect(summed).toEqual(histogram(WAIT_BINS_SECONDS, all))
          const max = Math.max(...all)
          const estimate = quantile(WAIT_BINS_SECONDS, summed, q, max)!
          const truth = exact(all, q)
          const bin = binOf(WAIT_BINS_SECONDS, truth)
          expect(estimate).toBeGreaterThanOrEqual(WAIT_BINS_SECONDS[bin]!)
          expect(estimate).toBeLessThanOrEqual(Math.min(WAIT_BINS_SECONDS[bin + 1] ?? max, max))
        }),
        { seed, numRuns: 200 },
      )
    })
  }

  it('empty histograms give null, negative (unmatched) bins count as zero', () => {
    expect(percentilesOf(SESSION_BINS_SECONDS, SESSION_BINS_SECONDS.map(() => 0))).toEqual({ count: 0, p50: null, p90: null, p99: null })
    const bins = SESSION_BINS_SECONDS.map(() => 0)
    bins[0] = -1
    bins[3] = 2
    expect(percentilesOf(SESSION_BINS_SECONDS, bins).count).toBe(2)
  })
})
