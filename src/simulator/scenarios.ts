/**
 * @module
 * The built-in scenarios of issue 3: a steady ramp, a spike from low utilisation, traffic shifting between
 * regions, and seed 002's experiment under FIFO and random queueing. Each builder takes the few numbers
 * that set its size (so tests can scale a population down and keep the shape) and then plain scenario
 * overrides.
 */
import { minutesCounted, perMinute } from './arrivals.ts'
import { planetScenario } from './planet.ts'
import { parseScenario, type ArrivalPhase, type LocationSpec, type Scenario, type ScenarioInput } from './scenario.ts'

/** Five locations with unequal shares of the traffic (a CDN's view of one site). */
const FIVE_LOCATIONS: readonly { name: string; share: number }[] = [
  { name: 'sjc', share: 0.3 },
  { name: 'lhr', share: 0.25 },
  { name: 'fra', share: 0.2 },
  { name: 'sin', share: 0.15 },
  { name: 'gru', share: 0.1 },
]

const fiveLocations = (workers: number): LocationSpec[] => FIVE_LOCATIONS.map(({ name }) => ({ name, workers }))

export { minutesCounted }

type Overrides = Partial<ScenarioInput>

export interface RampShape {
  /** totalActiveUsers (and newUsersPerMinute, so that only the active limit binds). Default 200. */
  limit?: number
  /** Minutes over which demand grows to twice the limit. Default 16. */
  rampMinutes?: number
}

/**
 * Steady ramp: arrivals grow linearly until demand (arrival rate × minutes counted per user) is twice the
 * limit, over 5 locations × 4 workers with 2 s propagation lag. Queueing should begin at the limit.
 */
export function rampScenario(shape: RampShape = {}, overrides: Overrides = {}): Scenario {
  const limit = shape.limit ?? 200
  const rampMinutes = shape.rampMinutes ?? 16
  const visitSeconds = 120
  const peakRate = (2 * limit) / minutesCounted(visitSeconds, 1)
  const minutes = rampMinutes + 4
  return parseScenario({
    name: 'ramp',
    description: `demand ramps to 2× the limit over ${rampMinutes} min; 5 locations × 4 workers; 2 s lag`,
    seed: 'ramp',
    minutes,
    locations: fiveLocations(4),
    lagMs: 2000,
    room: { totalActiveUsers: limit, newUsersPerMinute: limit, sessionDurationMinutes: 1, refreshIntervalSeconds: 20 },
    visit: { seconds: visitSeconds, spreadSeconds: 30, requestEverySeconds: 30 },
    arrivals: FIVE_LOCATIONS.flatMap(({ name, share }) =>
      perMinute(name, 0, minutes, (m) => share * peakRate * Math.min(1, (m + 0.5) / rampMinutes)),
    ),
    ...overrides,
  })
}

export interface SpikeShape {
  /** totalActiveUsers; newUsersPerMinute is half of it, so both limits bind. Default 100. */
  limit?: number
  /**
   * Second of the run at which 10× the limit arrive, within one second. Default 179: the last second of a
   * minute, the worst case — the next minute's slots are computed while those admissions still propagate.
   */
  spikeAtSecond?: number
}

/**
 * Spike: traffic that keeps 10% of the limit active, then 10× the limit arriving within one second
 * (spread over the locations by share). Admissions must stay within `newUsersPerMinute` and active users
 * within the limit.
 */
export function spikeScenario(shape: SpikeShape = {}, overrides: Overrides = {}): Scenario {
  const limit = shape.limit ?? 100
  const spikeAt = shape.spikeAtSecond ?? 179
  const visitSeconds = 120
  const baseRate = (0.1 * limit) / minutesCounted(visitSeconds, 1)
  const minutes = Math.ceil(spikeAt / 60) + 5
  const arrivals: ArrivalPhase[] = FIVE_LOCATIONS.flatMap(({ name, share }) => [
    ...perMinute(name, 0, minutes, () => share * baseRate),
    { location: name, fromSecond: spikeAt, toSecond: spikeAt + 1, users: Math.round(share * 10 * limit), spacing: 'random' as const },
  ])
  return parseScenario({
    name: 'spike',
    description: `10% utilisation, then 10× the limit within one second at ${Math.floor(spikeAt / 60)}:${String(spikeAt % 60).padStart(2, '0')}; 5 locations × 4 workers; 2 s lag`,
    seed: 'spike',
    minutes,
    locations: fiveLocations(4),
    lagMs: 2000,
    room: { totalActiveUsers: limit, newUsersPerMinute: Math.max(1, Math.round(limit / 2)), sessionDurationMinutes: 1, refreshIntervalSeconds: 20 },
    visit: { seconds: visitSeconds, spreadSeconds: 30, requestEverySeconds: 30 },
    // A thousand queued users re-checking every 20 s: keeping each on one worker spares a decryption per
    // check-in, and worker-level effects are not what this scenario is about.
    workerChoice: 'per-user',
    arrivals,
    ...overrides,
  })
}

export interface ShiftShape {
  /** totalActiveUsers (and newUsersPerMinute). Default 200. */
  limit?: number
}

/**
 * Shifting traffic: the busiest region changes every minute (70% of arrivals in one of three regions, 15%
 * in each other), while total demand ramps to 1.5× the limit. Location shares come from the minute before
 * last, so they are always wrong here; the Anywhere pool has to make up for it.
 */
export function shiftScenario(shape: ShiftShape = {}, overrides: Overrides = {}): Scenario {
  const limit = shape.limit ?? 200
  const visitSeconds = 90
  const rampMinutes = 12
  const minutes = rampMinutes + 4
  const regions = ['us', 'eu', 'ap']
  const peakRate = (1.5 * limit) / minutesCounted(visitSeconds, 1)
  const total = (m: number) => peakRate * Math.min(1, (m + 0.5) / rampMinutes)
  return parseScenario({
    name: 'shift',
    description: 'the busiest of 3 regions changes every minute while demand ramps to 1.5× the limit; 3 × 4 workers; 2 s lag',
    seed: 'shift',
    minutes,
    locations: regions.map((name) => ({ name, workers: 4 })),
    lagMs: 2000,
    room: { totalActiveUsers: limit, newUsersPerMinute: limit, sessionDurationMinutes: 1, refreshIntervalSeconds: 20 },
    visit: { seconds: visitSeconds, spreadSeconds: 20, requestEverySeconds: 30 },
    arrivals: regions.flatMap((name, r) =>
      perMinute(name, 0, minutes, (m) => total(m) * (m % regions.length === r ? 0.7 : 0.15)),
    ),
    ...overrides,
  })
}

export interface Seed002Shape {
  /** Users, arriving evenly over `arrivalMinutes`. Default 10,000. */
  users?: number
  /** Default 30. */
  arrivalMinutes?: number
  /**
   * Admissions the room sustains per minute, as a share of the arrival rate. Default 0.25: a queue that
   * grows through the arrival window and drains long after it. (The share matters for what ρ an ideal
   * random queue shows: its queue grows while users arrive, so a later arrival faces more competitors —
   * at 0.25 an ideal random queue gives ρ ≈ 0.2, at 0.7 about 0.5.)
   */
  capacityShare?: number
  /** Seconds between a queued user's check-ins. Default 30 (seed 002's example). */
  refreshIntervalSeconds?: number
}

/**
 * Seed 002's experiment: users joining evenly over 30 minutes, each spending about a minute on the origin;
 * FIFO should make wait time rise with arrival order, random queueing should not.
 */
export function seed002Scenario(queueingMethod: 'fifo' | 'random', shape: Seed002Shape = {}, overrides: Overrides = {}): Scenario {
  const users = shape.users ?? 10_000
  const arrivalMinutes = shape.arrivalMinutes ?? 30
  const capacityShare = shape.capacityShare ?? 0.25
  const visitSeconds = 60
  const admissionsPerMinute = (capacityShare * users) / arrivalMinutes
  const limit = Math.max(1, Math.round(admissionsPerMinute * minutesCounted(visitSeconds, 1)))
  // The queue drains at the admission rate once arrivals stop; a tenth more for the random tail.
  const minutes = Math.ceil((1.1 * users) / admissionsPerMinute) + 2
  const regions = [
    { name: 'us', share: 0.5 },
    { name: 'eu', share: 0.3 },
    { name: 'ap', share: 0.2 },
  ]
  return parseScenario({
    name: `seed002-${queueingMethod}`,
    description: `${users} users evenly over ${arrivalMinutes} min, about a minute each on the origin; capacity ${Math.round(capacityShare * 100)}% of arrivals; ${queueingMethod}`,
    seed: 'seed002',
    minutes,
    tickMs: 1000,
    locations: regions.map(({ name }) => ({ name, workers: 2 })),
    lagMs: 2000,
    room: {
      totalActiveUsers: limit,
      newUsersPerMinute: limit,
      sessionDurationMinutes: 1,
      refreshIntervalSeconds: shape.refreshIntervalSeconds ?? 30,
      queueingMethod,
    },
    visit: { seconds: visitSeconds, spreadSeconds: 15, requestEverySeconds: 30 },
    workerChoice: 'per-user',
    client: 'json',
    arrivals: regions.map(({ name, share }) => ({
      location: name,
      fromSecond: 0,
      toSecond: arrivalMinutes * 60,
      users: Math.round(share * users),
      spacing: 'even' as const,
    })),
    ...overrides,
  })
}

export const SCENARIOS = {
  ramp: () => rampScenario(),
  planet: () => planetScenario(),
  spike: () => spikeScenario(),
  shift: () => shiftScenario(),
  'seed002-fifo': () => seed002Scenario('fifo'),
  'seed002-random': () => seed002Scenario('random'),
} as const satisfies Record<string, () => Scenario>

export type ScenarioName = keyof typeof SCENARIOS
