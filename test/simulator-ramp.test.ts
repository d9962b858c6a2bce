import { beforeAll, describe, expect, it } from 'vitest'
import { rampScenario, runSimulation, type SimulationResult } from '../src/simulator/index.ts'
import { formatSummary } from '../src/simulator/report.ts'

// Issue 3 item 7: demand ramps to twice the limit over 5 locations × 4 workers with 2 s propagation lag.
describe('simulator: steady ramp to 2× the limit', () => {
  let result: SimulationResult

  beforeAll(async () => {
    result = await runSimulation(rampScenario())
    console.log(formatSummary(result))
  }, 600_000)

  it('queues nobody before active users reach 97% of totalActiveUsers', () => {
    const onset = result.summary.queueOnset
    expect(onset, 'demand reached twice the limit, so someone must have been queued').toBeDefined()
    expect(onset!.percentOfLimit).toBeGreaterThanOrEqual(97)
  })

  it('never lets active users exceed totalActiveUsers by more than 1%', () => {
    const limit = result.scenario.room.totalActiveUsers
    for (const row of result.rows) expect(row.active, `minute ${row.minute}`).toBeLessThanOrEqual(limit * 1.01)
    expect(result.summary.maxOvershootPercent).toBeLessThanOrEqual(1)
  })

  it('keeps every session and every place in the queue', () => {
    expect(result.anomalies).toEqual({ lostSessions: 0, tooEarly: 0, lostQueuePlaces: 0, unexpected: 0 })
  })
})
