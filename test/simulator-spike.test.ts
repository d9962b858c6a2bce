import { describe, expect, it } from 'vitest'
import { runSimulation, spikeScenario, type SimulationResult } from '../src/simulator/index.ts'
import { formatSummary } from '../src/simulator/report.ts'

function expectLimitsHeld(result: SimulationResult): void {
  const { totalActiveUsers, newUsersPerMinute } = result.scenario.room
  for (const row of result.rows) {
    expect(row.admitted, `admissions in minute ${row.minute}`).toBeLessThanOrEqual(newUsersPerMinute)
    expect(row.active, `active users in minute ${row.minute}`).toBeLessThanOrEqual(totalActiveUsers * 1.01)
  }
  expect(result.anomalies).toEqual({ lostSessions: 0, tooEarly: 0, lostQueuePlaces: 0, unexpected: 0 })
}

// Issue 3 item 7: from 10% utilisation to 10× the limit within one second, 5 locations × 4 workers, 2 s lag.
describe('simulator: spike from 10% utilisation to 10× the limit', () => {
  it('holds both limits when the spike lands mid-minute', async () => {
    const result = await runSimulation(spikeScenario({ spikeAtSecond: 140 }))
    console.log(formatSummary(result))
    expect(result.rows[1]!.activeStart).toBeLessThanOrEqual(result.scenario.room.totalActiveUsers * 0.15) // it starts near 10%
    expectLimitsHeld(result)
  }, 600_000)

  it('holds both limits when the spike lands in the last second of a minute', async () => {
    // The worst case for propagation: the next minute's slots are computed while the spike's admissions
    // at other locations are still on their way (2 s exchange lag, 1 s reports).
    const result = await runSimulation(spikeScenario({ spikeAtSecond: 179 }))
    console.log(formatSummary(result))
    expectLimitsHeld(result)
  }, 600_000)
})
