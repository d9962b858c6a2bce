/**
 * @module
 * `durableObjectCoordinator()`: the worker side of the Cloudflare adapter. Counter requests go to the
 * asking location's object (which counts the grant, and asks the Anywhere object itself when the scope is
 * `*`), or to the scope's object when no location is given; reports go to the colo's location object,
 * whose answer is shared with the colo's other isolates through the Cache API. The middleware already runs
 * reports in the background (`ctx.waitUntil`), so no request waits on them except an isolate's very first.
 */
import type { Coordinator, CounterRequest, CounterResult, SlotRequest, SlotResult } from '../../src/coordination/coordinator.ts'
import type { RoomState, WorkerReport } from '../../src/coordination/state.ts'
import { resolveCloudflareOptions, sameOptions, type DurableObjectCoordinatorOptions } from './options.ts'
import { counterObjectName, DRIVER_NAME, globalObjectName, type CounterObjectRpc, type GlobalObjectRpc } from './protocol.ts'
import type { HistoryBatch, HistoryQuery, HistoryRow } from '../../src/history/model.ts'
import { defaultCache, SnapshotCache } from './snapshot-cache.ts'
import { StubPool } from './stub-pool.ts'

/** One coordinator per counters binding: bindings are the same objects for every request of an isolate. */
const built = new WeakMap<object, { options: DurableObjectCoordinatorOptions; coordinator: Coordinator }>()

const isEmpty = (record: object | undefined): boolean => {
  for (const _ in record) return false
  return true
}

/**
 * A report with neither deltas, once entries, moves nor proposed references: answering it from the colo cache loses
 * nothing. A proposal goes to the location object, which asks the room's global object (stage-references.ts).
 */
const carriesNothing = (report: WorkerReport): boolean => isEmpty(report.deltas) && isEmpty(report.once) && !report.moves?.length && !report.references?.length

/** An answer as the colo cache keeps it: without the references it answered, which were another report's proposals. */
function cacheable(state: RoomState): RoomState {
  if (!state.references) return state
  const { references: _answered, ...rest } = state
  return rest
}

/**
 * The coordinator over Durable Objects. Cheap to call per request: the coordinator is built once per
 * binding object (and options) and reused.
 *
 * @example
 * ```ts
 * import { durableObjectCoordinator } from 'hono-waiting-room/cloudflare'
 * export { WaitingRoomCounter, WaitingRoomGlobal } from 'hono-waiting-room/cloudflare'
 *
 * app.use(waitingRoom({
 *   coordinator: (c) => durableObjectCoordinator({ counters: c.env.WR_COUNTER, global: c.env.WR_GLOBAL }),
 * }))
 * ```
 */
export function durableObjectCoordinator(options: DurableObjectCoordinatorOptions): Coordinator {
  const cached = options?.counters ? built.get(options.counters) : undefined
  if (cached && sameOptions(cached.options, options)) return cached.coordinator
  const coordinator = buildCoordinator(options)
  built.set(options.counters, { options: { ...options, bindingNames: options.bindingNames && { ...options.bindingNames } }, coordinator })
  return coordinator
}

function buildCoordinator(options: DurableObjectCoordinatorOptions): Coordinator {
  const o = resolveCloudflareOptions(options, defaultCache())
  const { route } = o
  const objects = new StubPool<CounterObjectRpc>(o.counters, route.counters)
  // History goes to the room's global object (history.ts): one writer per worker every few seconds, not per request.
  const globals = new StubPool<GlobalObjectRpc>(o.global, route.global)
  const shared = o.cache && o.cacheMaxAgeMs > 0 ? new SnapshotCache(o.cache, o.cacheMaxAgeMs) : undefined

  return {
    name: DRIVER_NAME,
    fixesReferences: true,

    increment(request: CounterRequest): Promise<CounterResult> {
      // The grant is counted in the asking location's object, so that object takes it (or asks `room:*`).
      const object = counterObjectName(request.roomId, request.location ?? request.scope)
      return objects.call(object, 'increment', (stub) => stub.increment(request, route), route)
    },

    async takeSlot(request: SlotRequest): Promise<SlotResult> {
      if (request.localLimit <= 0 && request.anywhereLimit <= 0) return { admitted: false, roundTrips: 0 }
      // The location object tries its own counter and, only if that is used up (or there is none), the
      // Anywhere object — and counts the grant in its stage either way.
      return objects.call(counterObjectName(request.roomId, request.location), 'takeSlot', (stub) => stub.takeSlot(request, route), route)
    },

    async sync(report: WorkerReport): Promise<RoomState> {
      // Nothing to merge: another isolate's recent answer is as good as the object's, and costs no call.
      if (shared && carriesNothing(report)) {
        const cachedState = await shared.read(report.roomId, report.location, report.at)
        if (cachedState) return cachedState
      }
      const state = await objects.call(
        counterObjectName(report.roomId, report.location),
        'sync',
        (stub) => stub.sync(report, route),
        route,
      )
      await shared?.write(report.roomId, report.location, cacheable(state), report.at)
      return state
    },

    recordHistory(batch: HistoryBatch): Promise<void> {
      return globals.call(globalObjectName(batch.roomId), 'recordHistory', (stub) => stub.recordHistory(batch), route)
    },

    readHistory(query: HistoryQuery): Promise<HistoryRow[]> {
      return globals.call(globalObjectName(query.roomId), 'readHistory', (stub) => stub.readHistory(query), route)
    },
  }
}
