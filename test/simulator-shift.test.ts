import { beforeAll, describe, expect, it } from 'vitest'
import { runSimulation, shiftScenario, type SimulationResult } from '../src/simulator/index.ts'
import { formatSummary } from '../src/simulator/report.ts'

// Issue 3 item 7: the busiest region changes every minute, so the location shares (from the minute before
// last) are always stale; the Anywhere pool must keep queueing from starting early.
describe('simulator: traffic shifting between regions minute to minute', () => {
  let result: SimulationResult

  beforeAll(async () => {
    result = await runSimulation(shiftScenario())
    console.log(formatSummary(result))
  }, 600_000)

  it('queues nobody before active users reach 90% of totalActiveUsers', () => {
    const onset = result.summary.queueOnset
    expect(onset, 'demand reached 1.5× the limit, so someone must have been queued').toBeDefined()
    expect(onset!.percentOfLimit).toBeGreaterThanOrEqual(90)
  })

  it('never lets active users exceed totalActiveUsers by more than 1%', () => {
    expect(result.summary.maxOvershootPercent).toBeLessThanOrEqual(1)
  })

  it('keeps every session and every place in the queue', () => {
    expect(result.anomalies).toEqual({ lostSessions: 0, tooEarly: 0, lostQueuePlaces: 0, unexpected: 0 })
  })
})
