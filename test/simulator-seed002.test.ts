import { beforeAll, describe, expect, it } from 'vitest'
import { runSimulation, seed002Scenario, type SimulationResult } from '../src/simulator/index.ts'
import { formatSummary } from '../src/simulator/report.ts'

/**
 * Seed 002's experiment, scaled: 1,000 users evenly over 10 minutes (10,000 over 30 takes minutes of CPU
 * in a test; `hono-waiting-room simulate --scenario seed002-fifo` runs the full size), each about a minute
 * on the origin, the room sustaining a quarter of the arrival rate, queued users checking in every 30 s
 * (seed 002's example). Same shape, same capacity share, so the same ρ an ideal queue would show.
 */
const shape = { users: 1000, arrivalMinutes: 10, capacityShare: 0.25, refreshIntervalSeconds: 30 }

describe('simulator: seed 002, FIFO against random queueing', () => {
  let fifo: SimulationResult
  let random: SimulationResult

  beforeAll(async () => {
    fifo = await runSimulation(seed002Scenario('fifo', shape))
    console.log(formatSummary(fifo))
    random = await runSimulation(seed002Scenario('random', shape))
    console.log(formatSummary(random))
  }, 900_000)

  it('admits everyone by the end of the run, keeping sessions and places', () => {
    for (const result of [fifo, random]) {
      expect(result.summary.neverAdmitted, result.scenario.name).toBe(0)
      expect(result.anomalies, result.scenario.name).toEqual({ lostSessions: 0, tooEarly: 0, lostQueuePlaces: 0, unexpected: 0 })
    }
  })

  it('FIFO: wait time rises with arrival order (Spearman ρ ≥ 0.9)', () => {
    expect(fifo.summary.wait.spearman).toBeGreaterThanOrEqual(0.9)
  })

  it('random: wait time does not follow arrival order (|ρ| ≤ 0.3)', () => {
    expect(random.summary.wait.spearman).toBeDefined()
    expect(Math.abs(random.summary.wait.spearman!)).toBeLessThanOrEqual(0.3)
  })

  it('random: waits of users who arrived in the same minute spread wider than under FIFO', () => {
    expect(random.summary.wait.spreadWithinArrivalMinute).toBeGreaterThan(fifo.summary.wait.spreadWithinArrivalMinute)
  })

  it('counts far more admissions overtaking an older user under random queueing than under FIFO (issue 15 measure)', () => {
    expect(random.summary.overtakes.oneMinutePercent).toBeGreaterThan(20)
    expect(random.summary.overtakes.oneMinutePercent).toBeGreaterThan(3 * fifo.summary.overtakes.oneMinutePercent)
    // Users wait throughout both runs: utilisation is measured while they do.
    expect(fifo.summary.utilisation.samples).toBeGreaterThan(0)
  })
})
