/**
 * @module
 * What a simulation run is: locations × workers, the room's limits, how users arrive and behave, how
 * slow propagation between locations is. Built-in scenarios are made in `scenarios.ts`; a JSON file
 * (`--config`) goes through {@link parseScenario}, which fills defaults and names a bad field.
 */
import { z } from 'zod'

export interface LocationSpec {
  /** Location name, as `location(c)` returns it. */
  name: string
  /** Workers (middleware instances) in this location. */
  workers: number
}

export interface ArrivalPhase {
  location: string
  /** Seconds from the start of the run. */
  fromSecond: number
  /** Seconds from the start of the run (exclusive). */
  toSecond: number
  /** New users arriving at this location within the phase. */
  users: number
  /** `random` (default): uniformly at random in the phase, seeded; `even`: equally spaced. */
  spacing: 'even' | 'random'
}

export interface VisitSpec {
  /** Time an admitted user spends on the origin, from admission to their last request. */
  seconds: number
  /** Each visit lasts `seconds ± spreadSeconds`, uniformly at random. */
  spreadSeconds: number
  /** An admitted user makes a request this often while visiting. */
  requestEverySeconds: number
}

export interface RoomSpec {
  totalActiveUsers: number
  newUsersPerMinute: number
  sessionDurationMinutes: number
  refreshIntervalSeconds: number
  queueingMethod: 'fifo' | 'random'
}

export interface Scenario {
  name: string
  description: string
  /** Seeds every random choice: same seed, same run. */
  seed: string
  /** Simulated minutes. */
  minutes: number
  /** Simulated time step; every request of one step is decided at the step's time. */
  tickMs: number
  locations: LocationSpec[]
  /** Location → global propagation lag (the memory coordinator's `exchangeIntervalMs`). */
  lagMs: number
  /** The middleware's `syncIntervalMs`: how often a worker reports and refreshes its snapshot. */
  syncIntervalMs: number
  room: RoomSpec
  visit: VisitSpec
  /**
   * `per-request` (default): each request lands on a random worker of the user's location, as on an edge
   * network. `per-user`: a user keeps the worker of their first request (cheaper to simulate: no ticket
   * is decrypted twice).
   */
  workerChoice: 'per-request' | 'per-user'
  /**
   * `html` (default): users are browsers that get the queue page. `json`: an app that asks for JSON
   * (seed 002's JSON mode; the room sets `jsonResponseEnabled`). Same decisions, cheaper to simulate.
   */
  client: 'html' | 'json'
  arrivals: ArrivalPhase[]
}

const positive = z.number().positive()
const count = z.number().int().min(0)

const scenarioSchema = z.strictObject({
  name: z.string().min(1).default('custom'),
  description: z.string().default(''),
  seed: z.string().default('hono-waiting-room'),
  minutes: z.number().int().min(1).max(24 * 60),
  tickMs: z.number().int().min(10).max(60_000).default(100),
  locations: z.array(z.strictObject({ name: z.string().min(1), workers: z.number().int().min(1).max(1000) })).min(1),
  lagMs: z.number().int().min(0).default(2000),
  syncIntervalMs: z.number().int().min(0).max(60_000).default(1000),
  room: z.strictObject({
    totalActiveUsers: z.number().int().min(1),
    newUsersPerMinute: z.number().int().min(1),
    sessionDurationMinutes: z.number().int().min(1).max(30).default(1),
    refreshIntervalSeconds: z.number().int().min(5).max(300).default(20),
    queueingMethod: z.enum(['fifo', 'random']).default('fifo'),
  }),
  visit: z
    .strictObject({
      seconds: positive.default(60),
      spreadSeconds: z.number().min(0).default(0),
      requestEverySeconds: positive.default(15),
    })
    .default({ seconds: 60, spreadSeconds: 0, requestEverySeconds: 15 }),
  workerChoice: z.enum(['per-request', 'per-user']).default('per-request'),
  client: z.enum(['html', 'json']).default('html'),
  arrivals: z.array(
    z.strictObject({
      location: z.string().min(1),
      fromSecond: z.number().min(0),
      toSecond: z.number().min(0),
      users: count,
      spacing: z.enum(['even', 'random']).default('random'),
    }),
  ),
})

/** The JSON form of a scenario: every field with a default may be left out. */
export type ScenarioInput = z.input<typeof scenarioSchema>

/** Validates a scenario (from JSON or code), fills defaults; throws naming the first bad field. */
export function parseScenario(input: unknown): Scenario {
  const result = scenarioSchema.safeParse(input)
  if (!result.success) {
    const issue = result.error.issues[0]!
    throw new Error(`invalid scenario: ${issue.path.join('.') || '(root)'}: ${issue.message}`)
  }
  const scenario = result.data
  const names = new Set(scenario.locations.map((l) => l.name))
  scenario.arrivals.forEach((phase, i) => {
    if (!names.has(phase.location)) throw new Error(`invalid scenario: arrivals.${i}.location: no location named ${phase.location}`)
    if (phase.toSecond <= phase.fromSecond) throw new Error(`invalid scenario: arrivals.${i}.toSecond: must be after fromSecond`)
  })
  if (scenario.visit.spreadSeconds >= scenario.visit.seconds) {
    throw new Error('invalid scenario: visit.spreadSeconds: must be less than visit.seconds')
  }
  return scenario
}
