import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runSimulate } from '../bin/simulate.ts'
import { planetScenario, runSimulation, scaleScenario } from '../src/simulator/index.ts'

// Issue 15, item 4: `planet` at CI size (scaled down with --users) runs and reports its measures, and the
// shared state's memory is bounded by time × locations × buckets, not by users.

describe('simulator: planet', () => {
  it('runs scaled down with --users and reports the five measures, in the summary and the JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sim-planet-'))
    try {
      const out: string[] = []
      const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t) }
      expect(await runSimulate(['--scenario', 'planet', '--users', '300', '--quiet', '--progress', '--out', dir], io)).toBe(0)
      const text = out.join('\n')
      expect(text, 'progress: one line per simulated minute').toMatch(/planet: minute 20\/20 done: \d+ admitted/)
      expect(text).toMatch(/300 locations \(Pareto shares\) × 4 workers/)
      expect(text).toMatch(/max overshoot \d+ \([\d.]+%\)/)
      expect(text).toMatch(/minutes over it: \d+/)
      expect(text).toMatch(/utilisation +while anyone waits: mean [\d.]+%, p5 [\d.]+%/)
      expect(text).toMatch(/≥ 1 min older [\d.]+%, ≥ 2 min older [\d.]+%/)
      expect(text).toMatch(/queue onset +[\d.]+% of totalActiveUsers/)
      const json = JSON.parse(await readFile(join(dir, 'planet.json'), 'utf8'))
      expect(json.users.arrivalMs).toHaveLength(300)
      expect(json.summary.utilisation.samples).toBeGreaterThan(0)
      expect(json.summary.queueOnset).toBeDefined()
      expect(json.footprint.stateFields).toBeGreaterThan(0)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 600_000)

  it('keeps the shared state bounded by time × locations × buckets as the population grows sixteenfold', async () => {
    // Few locations, so that each has traffic in most minutes at every size: the count of location-minutes with
    // fields is then nearly the same, and only state kept per user (a field per ticket, a counter per admission)
    // could make it grow with the population. A renewed session's count sits on a 3.75 s grid
    // (src/coordination/positions.ts): up to 16 positions a location-minute, filled as the population grows and
    // then no more — so the second fourfold step, not the first, shows whether anything grows with users.
    const shape = planetScenario({ locations: 6, workers: 2 })
    const s = await runSimulation(scaleScenario(shape, 400)) // one at a time: each run keeps its own fake clock
    const l = await runSimulation(scaleScenario(shape, 1600))
    const x = await runSimulation(scaleScenario(shape, 6400))
    const sizes = [s, l, x]
    expect(l.summary.users).toBe(4 * s.summary.users)
    expect(x.summary.users).toBe(4 * l.summary.users)
    for (const run of sizes) expect(run.summary.queuedUsers, 'every size must queue users, or buckets would not be exercised').toBeGreaterThan(0)
    expect(s.footprint.stateFields).toBeGreaterThan(0)
    // Fourfold users once the positions are filled: at most a quarter more fields (the odd location-minute with
    // no traffic at the smaller size); and never more than the grid's 16 positions could add over the smallest run.
    expect(x.footprint.stateFields).toBeLessThanOrEqual(Math.ceil(l.footprint.stateFields * 1.25))
    expect(x.footprint.stateFields).toBeLessThanOrEqual(s.footprint.stateFields * 16)
    expect(x.footprint.counters).toBeLessThanOrEqual(Math.ceil(l.footprint.counters * 1.25))
    // The harness's own records are per simulated time, not per user.
    expect(x.series.length).toBe(s.series.length)
    expect(x.rows.length).toBe(s.rows.length)
    console.log('state fields at 400 / 1,600 / 6,400 users:', sizes.map((r) => r.footprint.stateFields).join(' / '))
  }, 600_000)
})
