/// <reference types="./cloudflare-workers.d.ts" />
/**
 * @module
 * `WaitingRoomCounter`: the Durable Object of one (room, location) — seed 001's data-center object. It
 * holds the location's minute counters (SQLite, so a restart never reopens a slot) and hosts the
 * location stage that merges the colo's worker reports and exchanges them with `WaitingRoomGlobal`.
 * The object named `room:*` is the room's Anywhere counter; it only ever counts.
 *
 * A grant is counted where it was asked for: the location's object adds `admissionDeltas` to its stage in
 * the same call that takes the slot — in the same synchronous step for its own counter, and right after
 * `room:*` answers for an Anywhere slot (a slot `room:*` gave that never reached the stage was answered to
 * nobody: the location object's call failed, and the user's retry with the same token is a repeat).
 */
import { DurableObject } from 'cloudflare:workers'
import { MINUTE_MS, minuteOf } from '../../src/clock.ts'
import {
  admissionDeltas,
  anywhereCounterRequest,
  COUNTER_TTL_MINUTES,
  locationCounterRequest,
  type CounterRequest,
  type CounterResult,
  type SlotRequest,
  type SlotResult,
} from '../../src/coordination/coordinator.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import { newEpoch, type RoomState, type WorkerReport } from '../../src/coordination/state.ts'
import { LocationStage } from './location-stage.ts'
import { MinuteCounters } from './minute-counters.ts'
import {
  counterObjectName,
  DRIVER_NAME,
  globalObjectName,
  type CounterObjectRpc,
  type DurableObjectNamespaceLike,
  type GlobalObjectRpc,
  type ObjectRoute,
} from './protocol.ts'
import { StubPool } from './stub-pool.ts'

/** Cleanup runs this long after the newest slot: every counter is past its TTL by then. */
const CLEANUP_DELAY_MS = (COUNTER_TTL_MINUTES + 1) * MINUTE_MS

export class WaitingRoomCounter extends DurableObject<Record<string, unknown>> implements CounterObjectRpc {
  #counters: MinuteCounters | undefined
  #stage: LocationStage | undefined
  #peers = new Map<string, StubPool<unknown>>()
  #cleanupArmed = false

  /**
   * Conditional increment of a scope's counter for `request.minute`: this object's own (no `location`, or
   * `location` = `scope`), or — from the location's object — another scope's, asked of its object. A fresh
   * grant with a `location` is counted in this object's stage before the answer leaves.
   */
  async increment(request: CounterRequest, route?: ObjectRoute): Promise<CounterResult> {
    const { location, scope } = request
    if (location === undefined || location === scope) return this.#take(request)
    if (!route) throw new WaitingRoomError('ERR_WR_COORDINATOR', `${DRIVER_NAME}: increment of scope ${scope} from location ${location} needs the route`)
    return this.#takeElsewhere({ ...request, location }, route)
  }

  /**
   * The fused decision: this location's counter, and only when it is used up the room's Anywhere object —
   * so one Durable Object call in the common case and never more than two. A location with no allocation
   * (`localLimit` 0) still comes here, so its Anywhere grants are counted in its own stage.
   */
  async takeSlot(request: SlotRequest, route: ObjectRoute): Promise<SlotResult> {
    if (request.localLimit > 0) {
      const local = await this.#take(locationCounterRequest(request))
      if (local.taken) return { admitted: true, via: 'location', repeat: local.repeat === true, roundTrips: 1 }
    }
    if (request.anywhereLimit <= 0) return { admitted: false, roundTrips: 1 }
    const anywhere = await this.#takeElsewhere({ ...anywhereCounterRequest(request), location: request.location }, route)
    return anywhere.taken
      ? { admitted: true, via: 'anywhere', repeat: anywhere.repeat === true, roundTrips: 2 }
      : { admitted: false, roundTrips: 2 }
  }

  /** Merges a worker's report into this location; answers with every location (see {@link LocationStage}). */
  async sync(report: WorkerReport, route: ObjectRoute): Promise<RoomState> {
    const global = this.#peer<GlobalObjectRpc>(route.global, route)
    const name = globalObjectName(report.roomId)
    // If the room has no epoch yet (new, or its storage deleted), this report names it.
    const epoch = newEpoch(report.id, report.at)
    return this.#stageFor(report.location).sync(report, route, (state) =>
      global.call(name, 'exchange', (stub) => stub.exchange(report.location, state, report.at, epoch), route),
    )
  }

  /** Deletes counters past their TTL; re-arms while any are left. Safe to run twice. */
  async alarm(): Promise<void> {
    this.#cleanupArmed = false
    const counters = this.#minuteCounters()
    counters.prune(Math.max(counters.newestMinute, minuteOf(Date.now())))
    if (!counters.empty) await this.#armCleanup()
  }

  /**
   * Takes a slot of this object's counter; a fresh grant with a `location` is added to the stage in the same
   * synchronous step (no `await` between the row and the counts).
   */
  async #take(request: CounterRequest): Promise<CounterResult> {
    // The stage first: a misrouted request fails before it takes anything.
    const stage = request.location === undefined ? undefined : this.#stageFor(request.location)
    const result = this.#minuteCounters().take(request.minute, request.limit, request.token, request.previousReported)
    if (!result.taken || result.repeat) return result
    stage?.aggregator.add(admissionDeltas(request))
    await this.#armCleanup()
    return result
  }

  /**
   * Takes a slot of another scope's counter (the Anywhere pool) from its object — asked without the
   * location: the grant is counted here, in this location's stage, as soon as it answers.
   */
  async #takeElsewhere(request: CounterRequest & { location: string }, route: ObjectRoute): Promise<CounterResult> {
    const { location, ...bare } = request
    const result = await this.#peer<CounterObjectRpc>(route.counters, route).call(
      counterObjectName(request.roomId, request.scope),
      'increment',
      (stub) => stub.increment(bare),
      route,
    )
    if (result.taken && !result.repeat) this.#stageFor(location).aggregator.add(admissionDeltas(request))
    return result
  }

  /** This object's location stage; one object serves one location, so another name is a routing bug. */
  #stageFor(location: string): LocationStage {
    this.#stage ??= new LocationStage(location)
    if (this.#stage.aggregator.location !== location) {
      throw new WaitingRoomError(
        'ERR_WR_COORDINATOR',
        `${DRIVER_NAME}: the object of location ${this.#stage.aggregator.location} was asked to count for ${location}`,
      )
    }
    return this.#stage
  }

  #minuteCounters(): MinuteCounters {
    return (this.#counters ??= new MinuteCounters(this.ctx.storage.sql))
  }

  async #armCleanup(): Promise<void> {
    if (this.#cleanupArmed) return
    this.#cleanupArmed = true
    await this.ctx.storage.setAlarm(Date.now() + CLEANUP_DELAY_MS)
  }

  /** A stub pool for a peer namespace, found in this object's env by binding name. */
  #peer<Stub>(binding: string, route: ObjectRoute): StubPool<Stub> {
    let pool = this.#peers.get(binding)
    if (!pool) {
      const namespace = this.env[binding] as DurableObjectNamespaceLike | undefined
      if (typeof namespace?.idFromName !== 'function') {
        throw new WaitingRoomError(
          'ERR_WR_OPTIONS',
          `${DRIVER_NAME}: the Durable Object's env has no namespace binding "${binding}" (route: ${route.counters}, ${route.global}). ` +
            'Bind WaitingRoomCounter and WaitingRoomGlobal in wrangler.jsonc under the names given to durableObjectCoordinator({ bindingNames }).',
        )
      }
      this.#peers.set(binding, (pool = new StubPool<unknown>(namespace, binding, { reuseStubs: true })))
    }
    return pool as StubPool<Stub>
  }
}
