/**
 * Issue 15 with spike-like crowds: the generated rooms of fair-full.test.ts, plus one to three crowds of a third
 * to all of the limit arriving within one second, at a random second of a minute, at one location. The limits
 * must hold exactly, and FIFO must hold among the users of one location: a location's counter never admits a
 * newer user while one who arrived there a minute earlier is left waiting (before, the users of a crowd
 * elsewhere made the whole next bucket ineligible while a location's newcomers took its counter).
 *
 * Across locations the order still follows the counters' shares (a completed minute's traffic, seed 000): a
 * crowd drains at its location's share while others admit their own, newer users — README "Accuracy".
 */
import { describe, expect, it } from 'vitest'
import { overtakes } from '../src/simulator/fairness.ts'
import type { SimulationResult } from '../src/simulator/index.ts'
import { generatedRoom, runWithinLimits } from './support/generated-rooms.ts'

/** Share (%) of admissions that overtook a user ≥ 1 minute older waiting at the same location. */
function sameLocationOvertakes(result: SimulationResult): number {
  const { scenario, users } = result
  let overtaking = 0
  let admitted = 0
  for (const { name } of scenario.locations) {
    const here = users.filter((user) => user.location === name)
    const count = here.filter((user) => user.admittedMs !== undefined).length
    overtaking += (overtakes(here, scenario.room.refreshIntervalSeconds * 1000).oneMinutePercent * count) / 100
    admitted += count
  }
  return admitted === 0 ? 0 : (100 * overtaking) / admitted
}

const SEEDS = Array.from({ length: 8 }, (_, i) => `b-${i + 1}`)

describe('generated rooms with mid-minute crowds: exact limits, FIFO within each location', () => {
  it.each(SEEDS)('seed %s', async (seed) => {
    const { result, context } = await runWithinLimits(generatedRoom(seed, { bursts: true }))
    expect(sameLocationOvertakes(result), context).toBeLessThanOrEqual(0.5)
  }, 120_000)
})
