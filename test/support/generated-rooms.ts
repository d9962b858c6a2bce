/**
 * Scenarios generated from a seed for issue 15's targets: the number of locations, their (uneven) shares,
 * workers per location, propagation lag, sync interval, session length, refresh interval and demand all drawn
 * from it, so no constant is tuned to a named scenario. `bursts` adds spike-like arrivals: a few times a
 * run, a crowd of a third to all of the limit within one second at a random second of a minute.
 */
import { expect } from 'vitest'
import { seededRandom } from '../../src/admission/plan.ts'
import { parseScenario, planetScenario, runSimulation, type Scenario, type SimulationResult } from '../../src/simulator/index.ts'
import { formatSummary } from '../../src/simulator/report.ts'

export interface GeneratedOptions {
  /** Mid-minute bursts at random seconds. Default false. */
  bursts?: boolean
}

/** A ramp to `peak`× the limit over `rampMinutes` on 2–6 locations, from a seed: everything else drawn from it too. */
/** A seed's draws: numbers in [0, 1), and whole numbers in [low, high]. */
function drawsOf(seed: string): { random: () => number; between: (low: number, high: number) => number } {
  const random = seededRandom(seed)
  return { random, between: (low, high) => low + Math.floor(random() * (high - low + 1)) }
}

/** Uneven shares: each location's weight is a Pareto draw, so one or two locations dominate. */
const paretoWeights = (random: () => number, count: number): number[] => Array.from({ length: count }, () => 1 / Math.pow(1 - random() * 0.95, 1 / 1.2))

export function generatedRoom(seed: string, options: GeneratedOptions = {}): Scenario {
  const { random, between } = drawsOf(seed)
  const count = between(2, 6)
  const weights = paretoWeights(random, count)
  const total = weights.reduce((sum, w) => sum + w, 0)
  const locations = weights.map((_, i) => ({ name: `loc${i}`, workers: between(1, 4) }))
  const limit = between(60, 120)
  const sessionDurationMinutes = between(1, 2)
  const refreshIntervalSeconds = between(10, 30)
  const visitSeconds = between(60, 150)
  const rampMinutes = between(6, 9)
  const peak = 1.5 + random() * 0.7
  const minutes = rampMinutes + 4
  // Users count for their visit plus the session after it; demand is that many minutes of arrivals.
  const perUserMinutes = visitSeconds / 60 + sessionDurationMinutes
  const peakRate = (peak * limit) / perUserMinutes
  const arrivals = locations.flatMap((location, i) =>
    Array.from({ length: minutes }, (_, m) => ({
      location: location.name,
      fromSecond: m * 60,
      toSecond: (m + 1) * 60,
      users: Math.round((weights[i]! / total) * peakRate * Math.min(1, (m + 0.5) / rampMinutes)),
    })).filter((phase) => phase.users > 0),
  )
  const lagMs = between(0, 5) * 1000
  const syncIntervalMs = between(1, 2) * 1000
  if (options.bursts) {
    for (let b = between(1, 3); b > 0; b--) {
      const at = between(60, (minutes - 3) * 60)
      const crowd = Math.round(limit * (0.33 + random() * 0.67))
      const where = locations[between(0, count - 1)]!.name
      arrivals.push({ location: where, fromSecond: at, toSecond: at + 1, users: crowd })
    }
  }
  return parseScenario({
    name: `generated-${seed}${options.bursts ? '-bursts' : ''}`,
    seed,
    minutes,
    locations,
    lagMs,
    syncIntervalMs,
    room: { totalActiveUsers: limit, newUsersPerMinute: limit, sessionDurationMinutes, refreshIntervalSeconds },
    visit: { seconds: visitSeconds, spreadSeconds: Math.floor(visitSeconds / 4), requestEverySeconds: between(10, 30) },
    workerChoice: 'per-user',
    client: 'json',
    arrivals,
  })
}

/** 100–300 locations with Pareto shares, 1–4 workers each, 2–6 s lag, 1–2 s reports (issue 15 at Cloudflare's shape). */
export function generatedPlanet(seed: string): Scenario {
  const random = seededRandom(seed)
  const between = (low: number, high: number): number => low + Math.floor(random() * (high - low + 1))
  const locations = between(100, 300)
  const workers = between(1, 4)
  const limit = between(100, 300)
  const lagMs = between(2, 6) * 1000
  const syncIntervalMs = between(1, 2) * 1000
  return planetScenario({ locations, workers, limit, alpha: 1 + random() * 0.5 }, { seed, lagMs, syncIntervalMs, name: `many-${seed}` })
}

/** The shape of a generated scenario, for a failing test's message. */
export const shapeOf = (scenario: Scenario): string =>
  `${scenario.locations.length} locations (${[...new Set(scenario.locations.map((l) => l.workers))].join('/')} workers), lag ${scenario.lagMs} ms, sync ${scenario.syncIntervalMs} ms, session ${scenario.room.sessionDurationMinutes} min, refresh ${scenario.room.refreshIntervalSeconds} s`

/** Runs `scenario` and checks what every generated room must hold: users queue, overshoot ≤ 1%, no minute over `newUsersPerMinute`. */
export async function runWithinLimits(scenario: Scenario): Promise<{ result: SimulationResult; context: string }> {
  const result = await runSimulation(scenario)
  const { summary } = result
  const context = `${shapeOf(scenario)}\n${formatSummary(result)}`
  expect(summary.queuedUsers, `demand exceeds the limit, so users queue\n${context}`).toBeGreaterThan(0)
  expect(summary.maxOvershootPercent, context).toBeLessThanOrEqual(1)
  expect(summary.minutesOverNewUsersPerMinute, context).toBe(0)
  return { result, context }
}

/**
 * A queue across many locations (issue 15's FIFO targets): 3–40 locations with Pareto shares whose busiest changes
 * from minute to minute (so a completed minute's traffic says little about where the line's head waits), 1–4
 * workers each, 1–5 s lag, 1–2 s reports, demand ramping to 1.5–3× the limit. All drawn from the seed.
 */
export function generatedQueue(seed: string): Scenario {
  const { random, between } = drawsOf(seed)
  const weights = paretoWeights(random, between(3, 40))
  const workers = between(1, 4)
  const locations = weights.map((_, i) => ({ name: `loc${i}`, workers }))
  const limit = between(60, 100)
  const sessionDurationMinutes = between(1, 2)
  const refreshIntervalSeconds = between(10, 30)
  const visitSeconds = between(45, 90)
  const rampMinutes = between(5, 7)
  const peak = 1.5 + random() * 1.5
  const minutes = rampMinutes + 4
  const peakRate = (peak * limit) / (visitSeconds / 60 + sessionDurationMinutes)
  // Each minute the shares are drawn afresh around the Pareto weights: the busiest location moves.
  const arrivals = Array.from({ length: minutes }, (_, m) => {
    const drawn = weights.map((w) => w * (0.25 + 1.5 * random()))
    const total = drawn.reduce((sum, w) => sum + w, 0)
    return drawn.map((w, i) => ({
      location: `loc${i}`,
      fromSecond: m * 60,
      toSecond: (m + 1) * 60,
      users: Math.round((w / total) * peakRate * Math.min(1, (m + 0.5) / rampMinutes)),
    }))
  })
    .flat()
    .filter((phase) => phase.users > 0)
  return parseScenario({
    name: `queue-${seed}`,
    seed,
    minutes,
    locations,
    lagMs: between(1, 5) * 1000,
    syncIntervalMs: between(1, 2) * 1000,
    room: { totalActiveUsers: limit, newUsersPerMinute: limit, sessionDurationMinutes, refreshIntervalSeconds },
    visit: { seconds: visitSeconds, spreadSeconds: Math.floor(visitSeconds / 4), requestEverySeconds: between(10, 30) },
    workerChoice: 'per-user',
    client: 'json',
    arrivals,
  })
}
