/**
 * @module
 * The simulated deployment: L locations × W workers, each worker its own `waitingRoom()` in its own Hono
 * app, all sharing one memory coordinator whose exchange interval models the location → global lag.
 * Requests go through `app.request()`, so the real core decides every one of them.
 */
import { Hono } from 'hono'
import { memoryCoordinator, type MemoryCoordinator } from '../coordination/memory.ts'
import { waitingRoom, type WaitingRoomDecision, type WaitingRoomEnv } from '../room/middleware.ts'
import { seededRandom } from '../admission/plan.ts'
import type { LocationState, RoomState } from '../coordination/state.ts'
import { CounterLog, watchedCoordinator } from './counter-log.ts'
import type { Footprint } from './metrics.ts'
import type { Scenario } from './scenario.ts'

/** A fixed key, so tickets (and the run) do not depend on the process. Never use it for a real room. */
export const SIMULATOR_SECRET = 'hono-waiting-room simulator key: not for production use'
const COOKIE_NAME = '__wroom'

export interface Worker {
  index: number
  location: string
  app: Hono<WaitingRoomEnv>
  /** The last room state this worker's syncs brought back (its snapshot minus its own unreported deltas). */
  view: { state: RoomState | undefined }
  /** Tickets this worker's sealer has remembered so far (see `ticketRemembered` in users.ts). */
  remembered: number
}

export interface Fleet {
  workers: Worker[]
  /** Worker indexes per location name. */
  byLocation: Map<string, number[]>
  counters: CounterLog
  /** The shared coordinator (unwatched), for its footprint at the end of a run. */
  coordinator: MemoryCoordinator
  /** The users' Accept header. */
  accept: string
}

export interface VisitResult {
  decision: WaitingRoomDecision | undefined
  /** The ticket cookie the response set, if any. */
  cookie: string | undefined
  /** Seconds of the response's `Refresh` header, if any. */
  refreshSeconds: number | undefined
}

/** Builds the workers around one shared coordinator; `clock` is the simulation's. */
export function buildFleet(scenario: Scenario, clock: () => number): Fleet {
  const coordinator = memoryCoordinator({ exchangeIntervalMs: scenario.lagMs })
  const counters = new CounterLog()
  const workers: Worker[] = []
  const byLocation = new Map<string, number[]>()
  for (const { name, workers: count } of scenario.locations) {
    const indexes: number[] = []
    for (let i = 0; i < count; i++) {
      const index = workers.length
      const view: Worker['view'] = { state: undefined }
      const app = new Hono<WaitingRoomEnv>()
      // Outermost: sees the decision after the waiting room (and the origin, if admitted) answered.
      app.use('*', async (c, next) => {
        await next()
        ;(c.req.raw as DecidedRequest)[DECISION] = c.get('waitingRoom')
      })
      app.use(
        '*',
        waitingRoom({
          ...scenario.room,
          secret: SIMULATOR_SECRET,
          location: () => name,
          coordinator: watchedCoordinator(coordinator, counters, view),
          syncIntervalMs: scenario.syncIntervalMs,
          jsonResponseEnabled: scenario.client === 'json',
          clock,
          // Refresh jitter must come from the run's seed, or two runs would differ.
          random: seededRandom(`${scenario.seed}\nworker ${index}`),
        }),
      )
      // No body: nobody reads it, and a body made undici build a ReadableStream per admitted request (issue 15).
      app.get('*', (c) => c.body(null))
      workers.push({ index, location: name, app, view, remembered: 0 })
      indexes.push(index)
    }
    byLocation.set(name, indexes)
  }
  return { workers, byLocation, counters, coordinator, accept: scenario.client === 'json' ? 'application/json' : 'text/html' }
}

/**
 * What the shared state holds at the end of a run: it must be bounded by time × locations × buckets, never
 * by users (issue 15), and a test runs one scenario at two populations to hold that.
 */
export function footprintOf(fleet: Fleet): Footprint {
  let stateFields = 0
  // Field by field without making each worker's whole record (a layered state makes it when read): at 1,200
  // workers × 300 locations that record per worker was the end of a run's largest allocation (issue 15). The
  // workers share base records and location counts (the coordinator answers one record to many), so each is
  // counted once: walking every worker's 300 locations was 4% of planet's CPU.
  const counted = new Map<object, number>()
  const fieldsIn = (counts: Record<string, number>): number => {
    let fields = counted.get(counts)
    if (fields === undefined) {
      fields = 0
      for (const _ in counts) fields++
      counted.set(counts, fields)
    }
    return fields
  }
  const baseFields = (base: Record<string, LocationState>): number => {
    let fields = counted.get(base)
    if (fields === undefined) {
      fields = 0
      for (const name in base) fields += fieldsIn(base[name]!.counts)
      counted.set(base, fields)
    }
    return fields
  }
  for (const worker of fleet.workers) {
    const state = worker.view.state
    if (!state) continue
    let fields = 0
    const layers = state.layers
    if (layers) {
      const replaced = Object.hasOwn(layers.base, layers.location) ? fieldsIn(layers.base[layers.location]!.counts) : 0
      fields = baseFields(layers.base) - replaced + fieldsIn(layers.own.counts)
    } else for (const name in state.locations) fields += fieldsIn(state.locations[name]!.counts)
    stateFields = Math.max(stateFields, fields)
  }
  return { stateFields, counters: fleet.coordinator.counterCount }
}

/**
 * Each request's decision, put on the Request object `app.request()` hands to the app as `c.req.raw`. A property,
 * not a WeakMap entry: a WeakMap of every request made the garbage collector trace one ephemeron per request.
 */
const DECISION = Symbol('simulator decision')
type DecidedRequest = Request & { [DECISION]?: WaitingRoomDecision | undefined }

/**
 * What the room reads of a request (Hono's `c.req` reads `url`, `method` and `headers`), without a fetch Request:
 * undici's made an AbortSignal and ran WebIDL conversions per request, a twentieth of planet's CPU (issue 15).
 * `app.fetch` is what `app.request` calls with a Request, in the same turn, so the decisions' order is unchanged.
 */
interface SimRequest {
  url: string
  method: 'GET'
  headers: Headers
  [DECISION]?: WaitingRoomDecision | undefined
}

/**
 * A request's two headers, read as a fetch `Headers` is (case-insensitive names, null when absent): undici's ran
 * WebIDL conversions and kept a sorted list per request, for the two headers a simulated browser sends (issue 15).
 */
class SimHeaders {
  constructor(
    readonly accept: string,
    readonly cookie: string | null,
  ) {}

  get(name: string): string | null {
    const lower = name.toLowerCase()
    return lower === 'accept' ? this.accept : lower === 'cookie' ? this.cookie : null
  }

  has(name: string): boolean {
    return this.get(name) !== null
  }

  *entries(): IterableIterator<[string, string]> {
    yield ['accept', this.accept]
    if (this.cookie !== null) yield ['cookie', this.cookie]
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries()
  }

  forEach(callback: (value: string, name: string, headers: SimHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this)
  }
}

/** One request, as a browser (or an app) makes it: with the ticket cookie if it holds one. */
export async function visit(fleet: Fleet, worker: Worker, cookie: string | undefined): Promise<VisitResult> {
  const headers = new SimHeaders(fleet.accept, cookie ? `${COOKIE_NAME}=${cookie}` : null)
  const request: SimRequest = { url: 'http://simulator.local/', method: 'GET', headers: headers as unknown as Headers }
  const response = await worker.app.fetch(request as unknown as Request)
  let next: string | undefined
  for (const line of response.headers.getSetCookie()) {
    if (line.startsWith(`${COOKIE_NAME}=`)) next = line.slice(COOKIE_NAME.length + 1, line.indexOf(';'))
  }
  const refresh = response.headers.get('refresh')
  return { decision: request[DECISION], cookie: next, refreshSeconds: refresh === null ? undefined : Number(refresh) }
}
