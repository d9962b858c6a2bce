/**
 * @module
 * The `planet` scenario (issue 15: Cloudflare's scale) and `--users N`: any built-in scenario scaled to
 * another population with the same shape.
 */
import { seededRandom } from '../admission/plan.ts'
import { minutesCounted, perMinute } from './arrivals.ts'
import { parseScenario, type Scenario, type ScenarioInput } from './scenario.ts'

type Overrides = Partial<ScenarioInput>

export interface PlanetShape {
  /** Locations, with Pareto-distributed shares of the traffic. Default 300. */
  locations?: number
  /** Workers per location. Default 4. */
  workers?: number
  /** totalActiveUsers (and newUsersPerMinute). Default 5,000. */
  limit?: number
  /** Pareto shape α of the shares (1.16: 80% of the traffic in 20% of the locations). Default 1.16. */
  alpha?: number
}

/** Shares of `count` locations drawn from a Pareto distribution (seeded), summing to 1. */
export function paretoShares(count: number, alpha: number, random: () => number): number[] {
  const weights = Array.from({ length: count }, () => (1 - random()) ** (-1 / alpha))
  const total = weights.reduce((sum, w) => sum + w, 0)
  return weights.map((w) => w / total)
}

/**
 * Cloudflare's scale (issue 15): 300 locations with Pareto-distributed shares, 4 workers each, 5 s propagation
 * lag, 2 s reports, demand ramping to twice a limit of 5,000 over 16 minutes.
 */
export function planetScenario(shape: PlanetShape = {}, overrides: Overrides = {}): Scenario {
  const count = shape.locations ?? 300
  const limit = shape.limit ?? 5000
  const seed = typeof overrides.seed === 'string' ? overrides.seed : 'planet'
  const shares = paretoShares(count, shape.alpha ?? 1.16, seededRandom(`${seed}\nshares`))
  const names = shares.map((_, i) => `L${String(i).padStart(3, '0')}`)
  const rampMinutes = 16
  const visitSeconds = 120
  const peakRate = (2 * limit) / minutesCounted(visitSeconds, 1)
  const minutes = rampMinutes + 4
  // The description names the lag and sync the run will have, overridden or not.
  const lagMs = overrides.lagMs ?? 5000
  const syncIntervalMs = overrides.syncIntervalMs ?? 2000
  return parseScenario({
    name: 'planet',
    description: `${count} locations (Pareto shares) × ${shape.workers ?? 4} workers; ${lagMs / 1000} s lag, ${syncIntervalMs / 1000} s sync; demand ramps to 2× the limit ${limit}`,
    seed,
    minutes,
    tickMs: 250,
    locations: names.map((name) => ({ name, workers: shape.workers ?? 4 })),
    lagMs,
    syncIntervalMs,
    room: { totalActiveUsers: limit, newUsersPerMinute: limit, sessionDurationMinutes: 1, refreshIntervalSeconds: 20 },
    visit: { seconds: visitSeconds, spreadSeconds: 30, requestEverySeconds: 30 },
    arrivals: names.flatMap((name, i) => perMinute(name, 0, minutes, (m) => shares[i]! * peakRate * Math.min(1, (m + 0.5) / rampMinutes))),
    ...overrides,
  })
}

/**
 * The scenario with `users` users instead of its own number: every arrival phase and both limits scaled by the
 * same factor, so the shape (demand against the limit, shares, timing) stays.
 */
export function scaleScenario(scenario: Scenario, users: number): Scenario {
  const total = scenario.arrivals.reduce((sum, phase) => sum + phase.users, 0)
  if (total === 0 || users === total) return scenario
  const factor = users / total
  const scale = (n: number) => Math.max(1, Math.round(n * factor))
  return {
    ...scenario,
    description: `${scenario.description} (scaled to ${users} users)`,
    room: { ...scenario.room, totalActiveUsers: scale(scenario.room.totalActiveUsers), newUsersPerMinute: scale(scenario.room.newUsersPerMinute) },
    arrivals: scaledCounts(scenario.arrivals, factor),
  }
}

/** Each phase's users × factor, rounded cumulatively: the total is exact however many phases round to zero. */
function scaledCounts(phases: Scenario['arrivals'], factor: number): Scenario['arrivals'] {
  let before = 0
  let given = 0
  return phases.map((phase) => {
    before += phase.users
    const users = Math.round(before * factor) - given
    given += users
    return { ...phase, users }
  })
}
