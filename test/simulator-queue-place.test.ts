import { describe, expect, it } from 'vitest'
import { runSimulation, seed002Scenario } from '../src/simulator/index.ts'
import { formatSummary } from '../src/simulator/report.ts'

// FIFO must keep a queued user's place however the two settings combine: here queued users check in
// every 60 s (±10% jitter) and sessions last 1 minute, both valid options.
describe('simulator: a queued user keeps their place in a FIFO queue', () => {
  it('when the refresh interval is longer than the rest of the session window', async () => {
    const result = await runSimulation(
      seed002Scenario('fifo', { users: 500, arrivalMinutes: 10, capacityShare: 0.25, refreshIntervalSeconds: 60 }),
    )
    console.log(formatSummary(result))
    // A queued user's ticket carries their bucket (the minute they arrived); a check-in that comes back in
    // a later bucket was sent to the back of the queue.
    expect(result.anomalies.lostQueuePlaces, 'check-ins that came back in a later bucket').toBe(0)
  }, 600_000)
})
