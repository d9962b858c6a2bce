/// <reference types="./cloudflare-workers.d.ts" />
/**
 * @module
 * `WaitingRoomCounter`: the Durable Object of one (room, location) — seed 001's data-center object. It
 * holds the location's minute counters (SQLite, so a restart never reopens a slot) and hosts the
 * location stage that merges the colo's worker reports and exchanges them with `WaitingRoomGlobal`.
 * The object named `room:*` is the room's Anywhere counter; it only ever counts.
 */
import { DurableObject } from 'cloudflare:workers'
import { MINUTE_MS, minuteOf } from '../../src/clock.ts'
import { ANYWHERE, anywhereCounterRequest, COUNTER_TTL_MINUTES, type CounterRequest, type CounterResult, type SlotRequest, type SlotResult } from '../../src/coordination/coordinator.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import type { RoomState, WorkerReport } from '../../src/coordination/state.ts'
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

  /** Conditional increment of this scope's counter for `request.minute`. */
  async increment(request: CounterRequest): Promise<CounterResult> {
    return this.#take(request.minute, request.limit, request.token, request.previousReported)
  }

  /**
   * The fused decision: this location's counter, and only when it is used up the room's Anywhere object —
   * so one Durable Object call in the common case and never more than two.
   */
  async takeSlot(request: SlotRequest, route: ObjectRoute): Promise<SlotResult> {
    const { roomId, minute, token } = request
    if (request.localLimit > 0) {
      const local = await this.#take(minute, request.localLimit, token, request.localPreviousReported)
      if (local.taken) return { admitted: true, via: 'location', repeat: local.repeat === true, roundTrips: 1 }
    }
    if (request.anywhereLimit <= 0) return { admitted: false, roundTrips: 1 }
    const anywhereRequest = anywhereCounterRequest(request)
    const anywhere = await this.#peer<CounterObjectRpc>(route.counters, route).call(
      counterObjectName(roomId, ANYWHERE),
      'increment',
      (stub) => stub.increment(anywhereRequest),
      route,
    )
    return anywhere.taken
      ? { admitted: true, via: 'anywhere', repeat: anywhere.repeat === true, roundTrips: 2 }
      : { admitted: false, roundTrips: 2 }
  }

  /** Merges a worker's report into this location; answers with every location (see {@link LocationStage}). */
  async sync(report: WorkerReport, route: ObjectRoute): Promise<RoomState> {
    this.#stage ??= new LocationStage(report.location)
    const global = this.#peer<GlobalObjectRpc>(route.global, route)
    const name = globalObjectName(report.roomId)
    return this.#stage.sync(report, route, (state) =>
      global.call(name, 'exchange', (stub) => stub.exchange(report.location, state, report.at), route),
    )
  }

  /** Deletes counters past their TTL; re-arms while any are left. Safe to run twice. */
  async alarm(): Promise<void> {
    this.#cleanupArmed = false
    const counters = this.#minuteCounters()
    counters.prune(Math.max(counters.newestMinute, minuteOf(Date.now())))
    if (!counters.empty) await this.#armCleanup()
  }

  async #take(minute: number, limit: number, token: string, previousReported: number | undefined): Promise<CounterResult> {
    const result = this.#minuteCounters().take(minute, limit, token, previousReported)
    if (result.taken && !result.repeat) await this.#armCleanup()
    return result
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
