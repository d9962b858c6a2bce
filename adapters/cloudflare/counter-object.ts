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
 *
 * The grant is also logged in the object's SQLite storage in that same step ({@link SqlGrantLog}), so a
 * restart or an eviction loses no admitted user, and every change arms an alarm that exchanges with the
 * global object within the exchange interval — so other locations learn of it even if no worker of this
 * location ever reports again. What the alarm needs (room, location, route) is kept in storage too.
 *
 * A re-entry's grant (`request.reentry`) also sets the ticket's register, which lives in the room's global object
 * (with every register, so a move from any colo meets it): the location object asks it ({@link GlobalObjectRpc.enter})
 * after the slot is taken and before the answer leaves — on a repeat too. Two objects, so not one atomic step: a
 * failure between them fails the call, the worker keeps the renewal pending, and its retry (the same token: a
 * repeat in that minute) sets the register; only a retry in a later minute takes that minute's slot as well (the
 * over-count this step removes elsewhere, after a failure).
 *
 * The room's latest loss mark (`R{m}`) this object knows — from its own reports at once, from other colos' in the
 * global view of its syncs — is kept in storage too, and every grant it makes or asks `room:*` for is refused
 * while the room recovers (`refusesWhileRecovering`).
 */
import { DurableObject } from 'cloudflare:workers'
import { MINUTE_MS, minuteOf } from '../../src/clock.ts'
import {
  admissionDeltas,
  anywhereCounterRequest,
  COUNTER_TTL_MINUTES,
  locationCounterRequest,
  refusesWhileRecovering,
  type CounterRequest,
  type CounterResult,
  type SlotRequest,
  type SlotResult,
} from '../../src/coordination/coordinator.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import { lostMinuteIn, lostMinuteInState, lostStateField, newEpoch, type RoomEpoch, type RoomState, type WorkerReport } from '../../src/coordination/state.ts'
import { lossAtGrant } from '../../src/coordination/grant-loss.ts'
import { SqlGrantLog } from './grant-log.ts'
import { LocationStage, type Claim, type Exchange, type MoveAt } from './location-stage.ts'
import { MinuteCounters } from './minute-counters.ts'
import type { FixReferences } from './stage-references.ts'
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
/** Storage key of {@link StageMeta}. */
const STAGE_KEY = 'stage'
/** Storage key of the latest minute a loss mark reached this object (its reports' or the global view's). */
const LOST_KEY = 'lost'

/** What an alarm needs to exchange for this object's location with no caller to say it. */
interface StageMeta {
  roomId: string
  location: string
  route: ObjectRoute
  /** The room's history in minutes (from reports; 0 until one came): older logged grants are pruned. */
  keepMinutes: number
}

export class WaitingRoomCounter extends DurableObject<Record<string, unknown>> implements CounterObjectRpc {
  #counters: MinuteCounters | undefined
  #stage: LocationStage | undefined
  #peers = new Map<string, StubPool<unknown>>()
  /** When the alarm is set (Infinity: none); undefined until read after a (re)start. */
  #alarmAt: number | undefined
  #meta: StageMeta | undefined
  /** Wall-clock time of the next cleanup; undefined after a (re)start until the first alarm. */
  #cleanupDueAt: number | undefined
  /** The room's latest loss mark known here (null: not read from storage since the (re)start). */
  #lost: number | undefined | null = null

  /**
   * Conditional increment of a scope's counter for `request.minute`: this object's own (no `location`, or
   * `location` = `scope`), or — from the location's object — another scope's, asked of its object. A fresh
   * grant with a `location` is counted in this object's stage before the answer leaves.
   */
  async increment(request: CounterRequest, route?: ObjectRoute): Promise<CounterResult> {
    const { location, scope } = request
    if (location === undefined || location === scope) return this.#take(request, route)
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
      const local = await this.#take(locationCounterRequest(request), route)
      if (local.taken) return { admitted: true, via: 'location', repeat: local.repeat === true, roundTrips: 1, seq: local.seq }
      if (local.recovering) return { admitted: false, recovering: true, roundTrips: 1 }
    }
    if (request.anywhereLimit <= 0) return { admitted: false, roundTrips: 1 }
    const anywhere = await this.#takeElsewhere({ ...anywhereCounterRequest(request), location: request.location }, route)
    if (anywhere.recovering) return { admitted: false, recovering: true, roundTrips: 1 }
    return anywhere.taken
      ? { admitted: true, via: 'anywhere', repeat: anywhere.repeat === true, roundTrips: 2, seq: anywhere.seq }
      : { admitted: false, roundTrips: 2 }
  }

  /** Merges a worker's report into this location; answers with every location (see {@link LocationStage}). */
  async sync(report: WorkerReport, route: ObjectRoute): Promise<RoomState> {
    this.#remember(report.roomId, report.location, route, report.keepMinutes)
    const stage = this.#stageFor(report.location)
    // If the room has no epoch yet (new, or its storage deleted), this report names it.
    const exchange = this.#exchangeFor(report.roomId, report.location, route, newEpoch(report.id, report.at))
    const state = await stage.sync(report, route, exchange, this.#claimFor(report.roomId, route), this.#movesFor(report.roomId, route), this.#fixFor(report.roomId, route))
    // A loss marked by this report, or by another location (in the global view): this colo's grants refuse.
    this.#noteLost(lostMinuteIn(report.deltas))
    this.#noteLost(lostMinuteInState(state))
    if (stage.unsent) await this.#armAt(Date.now() + stage.intervalMs(route))
    return state
  }

  /** The alarm: see {@link runAlarm}. */
  async alarm(): Promise<void> {
    await this.runAlarm(false)
  }

  /**
   * Exchanges what the global object lacks (with no report: the alarm is how a grant gets out when no worker
   * of this location reports again), prunes counters and logged grants once the cleanup is due (`force`: now),
   * and re-arms while anything is left. Safe to run twice.
   */
  protected async runAlarm(force: boolean): Promise<void> {
    this.#alarmAt = Number.POSITIVE_INFINITY
    let next = Number.POSITIVE_INFINITY
    const meta = this.#storedMeta()
    const stage = meta && this.#stageFor(meta.location)
    if (meta && stage) {
      const retryInMs = await stage.flush(meta.route, this.#exchangeFor(meta.roomId, meta.location, meta.route))
      if (retryInMs !== undefined) next = Date.now() + retryInMs
    }
    // Due a delay after the newest slot (after a restart: after the first alarm), never on an exchange alarm
    // right after a grant — whose minute may be far from the wall clock (a test's fake clock).
    const due = (this.#cleanupDueAt ??= Date.now() + CLEANUP_DELAY_MS)
    const counters = this.#minuteCounters()
    if (force || Date.now() >= due) {
      counters.prune(Math.max(counters.newestMinute, minuteOf(Date.now())))
      if (meta && stage && meta.keepMinutes > 0) stage.grants.prune(minuteOf(stage.knownAt) - meta.keepMinutes)
      this.#cleanupDueAt = Date.now() + CLEANUP_DELAY_MS
    }
    if (!counters.empty || stage?.grants.unacknowledged) next = Math.min(next, this.#cleanupDueAt)
    if (next !== Number.POSITIVE_INFINITY) await this.#armAt(next)
  }

  /**
   * Takes a slot of this object's counter; a fresh grant with a `location` is added to the stage and its log in
   * the same synchronous step (no `await` between the row and the counts).
   */
  async #take(request: CounterRequest, route: ObjectRoute | undefined): Promise<CounterResult> {
    // The stage first: a misrouted request fails before it takes anything.
    const stage = request.location === undefined ? undefined : this.#stageFor(request.location)
    const marked = this.#markLossAtGrant(request)
    const recovering = request.location !== undefined && refusesWhileRecovering(request, this.#lostMinute())
    const result = this.#minuteCounters().take(request.minute, request.limit, request.token, request.previousReported, recovering)
    if (marked) await this.#granted(request, route) // the alarm that takes the mark to the global object
    if (!result.taken || result.repeat) return this.#entered(result, request, route)
    stage?.grant(request.minute, admissionDeltas(request))
    await this.#granted(request, route)
    return this.#entered(result, request, route)
  }

  /**
   * Takes a slot of another scope's counter (the Anywhere pool) from its object — asked without the
   * location: the grant is counted here, in this location's stage and log, as soon as it answers.
   */
  async #takeElsewhere(request: CounterRequest & { location: string }, route: ObjectRoute): Promise<CounterResult> {
    const { location, reentry: _, ...bare } = request // the register is set from here, after the answer
    // Refused here, before asking: `room:*` knows of no loss (a retry of an Anywhere slot held from before the
    // mark is refused too — its slot stays counted, an over-count).
    if (this.#markLossAtGrant(request)) await this.#granted(request, route)
    if (refusesWhileRecovering(request, this.#lostMinute())) return { taken: false, seq: 0, recovering: true }
    const result = await this.#peer<CounterObjectRpc>(route.counters, route).call(
      counterObjectName(request.roomId, request.scope),
      'increment',
      (stub) => stub.increment(bare),
      route,
    )
    if (!result.taken || result.repeat) return this.#entered(result, request, route)
    this.#stageFor(location).grant(request.minute, admissionDeltas(request))
    await this.#granted(request, route)
    return this.#entered(result, request, route)
  }

  /** After a fresh grant: the alarm that gets it to the global object (with a location) or cleans up. */
  async #granted(request: CounterRequest, route: ObjectRoute | undefined): Promise<void> {
    this.#cleanupDueAt = Date.now() + CLEANUP_DELAY_MS
    if (request.location === undefined || !route) return this.#armAt(Date.now() + CLEANUP_DELAY_MS)
    this.#remember(request.roomId, request.location, route)
    await this.#armAt(Date.now() + this.#stageFor(request.location).intervalMs(route))
  }

  #exchangeFor(roomId: string, location: string, route: ObjectRoute, epoch?: RoomEpoch): Exchange {
    const global = this.#peer<GlobalObjectRpc>(route.global, route)
    const name = globalObjectName(roomId)
    return (state, grants, now) => global.call(name, 'exchange', (stub) => stub.exchange(location, state, now, epoch, grants), route)
  }

  /** The room's move registers, at the room's global object. */
  #movesFor(roomId: string, route: ObjectRoute): MoveAt {
    const global = this.#peer<GlobalObjectRpc>(route.global, route)
    const name = globalObjectName(roomId)
    return (moves, now) => global.call(name, 'move', (stub) => stub.move(moves, now), route)
  }

  /** The room's reference traffic tables, at the room's global object. */
  #fixFor(roomId: string, route: ObjectRoute): FixReferences {
    const global = this.#peer<GlobalObjectRpc>(route.global, route)
    const name = globalObjectName(roomId)
    return (proposals, now) => global.call(name, 'fix', (stub) => stub.fix(proposals, now), route)
  }

  /** `result`, once a re-entry's slot (fresh or repeat) has set the ticket's register at the room's global object (see the module's comment). */
  async #entered(result: CounterResult, request: CounterRequest, route: ObjectRoute | undefined): Promise<CounterResult> {
    const { reentry } = request
    if (!result.taken || !reentry || !route) return result
    const global = this.#peer<GlobalObjectRpc>(route.global, route)
    await global.call(globalObjectName(request.roomId), 'enter', (stub) => stub.enter(reentry, request.minute), route)
    return result
  }

  /** The room-wide once registry, at the room's global object. */
  #claimFor(roomId: string, route: ObjectRoute): Claim {
    const global = this.#peer<GlobalObjectRpc>(route.global, route)
    const name = globalObjectName(roomId)
    return (keys, reportId, now, retention) => global.call(name, 'claim', (stub) => stub.claim(keys, reportId, now, retention), route)
  }

  /**
   * A worker that knew another epoch than this colo's last exchange answered (`lossAtGrant`): the room's state was
   * replaced since that worker's last sync. Marked here as a report's `R{m}` is — in the stage (and its log) and
   * the lost minute — so this colo's grants refuse at once and the others at their next exchange. Only what the
   * object holds is compared: the epoch of its last exchange (none since a (re)start until one: nothing checked;
   * the global object is not asked per grant), and no generation (Durable Objects keep none). True when marked.
   */
  #markLossAtGrant(request: CounterRequest): boolean {
    const epoch = this.#stage?.epoch?.id
    if (epoch === undefined || !lossAtGrant(request, { epoch, lostMinute: this.#lostMinute() })) return false
    this.#stageFor(request.location!).grant(request.minute, { [lostStateField(request.minute)]: 1 })
    this.#noteLost(request.minute)
    return true
  }

  #lostMinute(): number | undefined {
    if (this.#lost === null) this.#lost = this.ctx.storage.kv.get<number>(LOST_KEY) ?? undefined
    return this.#lost
  }

  /** Keeps the latest loss mark (in storage too: a restarted object still refuses). */
  #noteLost(minute: number | undefined): void {
    const held = this.#lostMinute()
    if (minute === undefined || (held !== undefined && held >= minute)) return
    this.ctx.storage.kv.put(LOST_KEY, (this.#lost = minute))
  }

  /** Keeps what an alarm needs; written only when it changes (the route is the same on every call). */
  #remember(roomId: string, location: string, route: ObjectRoute, keepMinutes = 0): void {
    const known = this.#storedMeta()
    const meta: StageMeta = { roomId, location, route, keepMinutes: Math.max(keepMinutes, known?.keepMinutes ?? 0) }
    if (known && JSON.stringify(known) === JSON.stringify(meta)) return
    this.ctx.storage.kv.put(STAGE_KEY, (this.#meta = meta))
  }

  #storedMeta(): StageMeta | undefined {
    return (this.#meta ??= this.ctx.storage.kv.get<StageMeta>(STAGE_KEY))
  }

  /** Sets the alarm for `at` unless it is already set no later. */
  async #armAt(at: number): Promise<void> {
    this.#alarmAt ??= (await this.ctx.storage.getAlarm()) ?? Number.POSITIVE_INFINITY
    if (this.#alarmAt <= at) return
    this.#alarmAt = at
    await this.ctx.storage.setAlarm(at)
  }

  /** This object's location stage; one object serves one location, so another name is a routing bug. */
  #stageFor(location: string): LocationStage {
    this.#stage ??= new LocationStage(location, new SqlGrantLog(this.ctx.storage))
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
