import { describe, expect, it } from 'vitest'
import { rampScenario, runSimulation, spikeScenario } from '../src/simulator/index.ts'
import { formatTable } from '../src/simulator/report.ts'

// A small ramp (per-request worker choice, so tickets are decrypted on other workers too) run twice.
const small = (seed: string) => rampScenario({ limit: 40, rampMinutes: 6 }, { seed })

describe('simulator: determinism', () => {
  it('gives the same table, users and figures for the same seed', async () => {
    const first = await runSimulation(small('same'))
    const second = await runSimulation(small('same'))
    expect(formatTable(second)).toBe(formatTable(first))
    expect(second.rows).toEqual(first.rows)
    expect(second.users).toEqual(first.users)
    expect(second.summary).toEqual(first.summary)
    expect(first.summary.queueOnset, 'the run must reach queueing to be a meaningful check').toBeDefined()
  }, 600_000)

  it('gives the same table when every request of a step runs concurrently (one worker per user, a spike)', async () => {
    const spike = () => spikeScenario({ limit: 30, spikeAtSecond: 100 })
    const first = await runSimulation(spike())
    const second = await runSimulation(spike())
    expect(second.rows).toEqual(first.rows)
    expect(second.users).toEqual(first.users)
  }, 600_000)

  it('gives the same run when the real clocks leap between calls (a loaded machine: pauses longer than any timeout)', async () => {
    const calm = await runSimulation(small('leap'))
    const real = { date: Date.now, performance: performance.now }
    let leaps = 0
    // Every read of a real clock is 5 s after the one before: a stall of each report, a GC pause between any two steps.
    Date.now = () => real.date() + 5_000 * ++leaps
    performance.now = () => real.performance.call(performance) + 5_000 * ++leaps
    try {
      const stalled = await runSimulation(small('leap'))
      expect(stalled.rows).toEqual(calm.rows)
      expect(stalled.users).toEqual(calm.users)
    } finally {
      Date.now = real.date
      performance.now = real.performance
    }
  }, 600_000)

  it('gives a different run for a different seed', async () => {
    const first = await runSimulation(small('one'))
    const second = await runSimulation(small('two'))
    expect(second.users.map((u) => u.arrivalMs)).not.toEqual(first.users.map((u) => u.arrivalMs))
  }, 600_000)
})
