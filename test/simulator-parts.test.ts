import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { arrivalsOf, perMinute } from '../src/simulator/arrivals.ts'
import { seededRandom } from '../src/admission/plan.ts'
import { parseScenario } from '../src/simulator/scenario.ts'
import { SCENARIOS } from '../src/simulator/scenarios.ts'
import { pearson, quantile, ranks, spearman } from '../src/simulator/stats.ts'
import { niceTicks, renderChart } from '../src/simulator/svg.ts'
import { grantPosition, renewedPosition, sessionEnd } from '../src/simulator/users.ts'
import { VirtualTimers } from '../src/simulator/virtual-timers.ts'

describe('simulator stats', () => {
  it('ranks ties by their average rank', () => {
    expect(ranks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1])
  })

  it('computes Spearman ρ: 1 for any increasing relation, −1 for decreasing, undefined without variance', () => {
    expect(spearman([1, 2, 3, 4], [1, 8, 27, 64])).toBeCloseTo(1)
    expect(spearman([1, 2, 3, 4], [9, 4, 1, 0])).toBeCloseTo(-1)
    expect(spearman([1, 2, 3], [5, 5, 5])).toBeUndefined()
    expect(pearson([1, 2, 3], [1, 2, 4])).toBeCloseTo(0.982, 3)
  })

  it('interpolates quantiles', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5)
    expect(quantile([], 0.5)).toBeUndefined()
  })
})

describe('simulator arrivals', () => {
  it('spaces "even" arrivals equally and keeps them in time order', () => {
    const arrivals = arrivalsOf([{ location: 'a', fromSecond: 0, toSecond: 60, users: 4, spacing: 'even' }], seededRandom('x'))
    expect(arrivals.map((a) => a.atMs)).toEqual([0, 15_000, 30_000, 45_000])
  })

  it('draws "random" arrivals from the seed: same seed, same times', () => {
    const phases = perMinute('a', 0, 3, (m) => 10 * (m + 1))
    expect(phases.map((p) => p.users)).toEqual([10, 20, 30])
    const one = arrivalsOf(phases, seededRandom('s'))
    const two = arrivalsOf(phases, seededRandom('s'))
    expect(one).toEqual(two)
    expect(one).toHaveLength(60)
    expect(one.every((a, i) => i === 0 || a.atMs >= one[i - 1]!.atMs)).toBe(true)
  })
})

describe('simulator ground truth', () => {
  it('ends a session sessionDurationMinutes + 1 after its position, renewed once a minute old', () => {
    expect(sessionEnd(grantPosition(61_000), 1)).toBe(180_000)
    expect(sessionEnd(grantPosition(119_999), 5)).toBe(420_000)
    // Renewed at 2:05.5 (due: the grant's minute 1 is a minute old): slice 2:03.75, ends 2 minutes later.
    expect(sessionEnd(renewedPosition(1, 125_500), 1)).toBe(243_750)
    // Not due within the minute after its position: the count stays.
    expect(renewedPosition(2 + 1 / 16, 180_000)).toBe(2 + 1 / 16)
  })
})

describe('simulator scenarios', () => {
  it('builds every named scenario', () => {
    for (const make of Object.values(SCENARIOS)) expect(make().arrivals.length).toBeGreaterThan(0)
  })

  it('names the field of a bad scenario', () => {
    expect(() => parseScenario({ minutes: 5, locations: [], room: { totalActiveUsers: 1, newUsersPerMinute: 1 }, arrivals: [] })).toThrow(/locations/)
    expect(() =>
      parseScenario({
        minutes: 5,
        locations: [{ name: 'a', workers: 1 }],
        room: { totalActiveUsers: 1, newUsersPerMinute: 1 },
        arrivals: [{ location: 'b', fromSecond: 0, toSecond: 1, users: 1 }],
      }),
    ).toThrow(/arrivals\.0\.location/)
  })

  it('fills defaults', () => {
    const scenario = parseScenario({
      minutes: 5,
      locations: [{ name: 'a', workers: 2 }],
      room: { totalActiveUsers: 10, newUsersPerMinute: 5 },
      arrivals: [{ location: 'a', fromSecond: 0, toSecond: 60, users: 3 }],
    })
    expect(scenario).toMatchObject({ tickMs: 100, lagMs: 2000, syncIntervalMs: 1000, workerChoice: 'per-request', client: 'html' })
    expect(scenario.room).toMatchObject({ sessionDurationMinutes: 1, refreshIntervalSeconds: 20, queueingMethod: 'fifo' })
  })
})

describe('simulator virtual timers', () => {
  it('fires timers made inside `within` at simulated times, in order, and leaves the real ones alone', async () => {
    let now = 0
    const timers = new VirtualTimers(() => now)
    const realSetTimeout = globalThis.setTimeout
    const fired: string[] = []
    await timers.within(async () => {
      setTimeout(() => fired.push('b'), 2000)
      setTimeout(() => fired.push('a'), 1000)
      const cancelled = setTimeout(() => fired.push('never'), 1500)
      clearTimeout(cancelled)
    })
    expect(globalThis.setTimeout).toBe(realSetTimeout)
    expect(timers.pending).toBe(2)
    now = 1500
    await timers.fireDue()
    expect(fired).toEqual(['a'])
    now = 5000
    await timers.fireDue()
    expect(fired).toEqual(['a', 'b'])
    expect(timers.pending).toBe(0)
  })

  it('fires any schedule earliest first, ties in creation order, skipping cleared timers (as a sort would)', async () => {
    const schedule = fc.array(fc.record({ ms: fc.integer({ min: 0, max: 50 }), cleared: fc.boolean() }), { maxLength: 60 })
    await fc.assert(
      fc.asyncProperty(schedule, fc.integer({ min: 0, max: 60 }), async (entries, until) => {
        let now = 0
        const timers = new VirtualTimers(() => now)
        const fired: number[] = []
        await timers.within(async () => {
          const ids = entries.map((e, i) => setTimeout(() => fired.push(i), e.ms))
          entries.forEach((e, i) => e.cleared && clearTimeout(ids[i]))
        })
        now = until
        await timers.fireDue()
        const expected = entries
          .map((e, i) => ({ ...e, i }))
          .filter((e) => !e.cleared && e.ms <= until)
          .sort((a, b) => a.ms - b.ms || a.i - b.i)
          .map((e) => e.i)
        expect(fired).toEqual(expected)
        expect(timers.pending).toBe(entries.filter((e) => !e.cleared).length - expected.length)
      }),
      { seed: 15, numRuns: 200 },
    )
  })

  it('shows simulated time through Date.now inside `within` only', async () => {
    const timers = new VirtualTimers(() => 42_000)
    const realNow = Date.now
    const seen = await timers.within(async () => Date.now())
    expect(seen).toBe(42_000)
    expect(Date.now).toBe(realNow)
  })
})

describe('simulator charts', () => {
  it('picks round ticks', () => {
    expect(niceTicks(95)).toEqual([0, 20, 40, 60, 80, 100])
    expect(niceTicks(0)).toEqual([0, 1])
  })

  it('renders lines, a dashed limit and dots as one SVG document', () => {
    const svg = renderChart({
      title: 'a <title>',
      xLabel: 'x',
      yLabel: 'y',
      series: [
        { name: 'line', color: 'blue', kind: 'line', points: [[0, 1], [1, 2]] },
        { name: 'limit', color: 'red', kind: 'dashed', points: [[0, 2], [1, 2]] },
        { name: 'dots', color: 'green', kind: 'dots', points: [[0.5, 1.5]] },
      ],
    })
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
    expect(svg.endsWith('</svg>')).toBe(true)
    expect(svg).toContain('a &lt;title&gt;')
    expect(svg).toContain('stroke-dasharray')
    expect(svg.match(/<circle /g)).toHaveLength(1)
  })
})
