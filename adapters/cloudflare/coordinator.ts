/**
 * @module
 * `durableObjectCoordinator()`: the worker side of the Cloudflare adapter. Counters go to the object of
 * their (room, scope); reports go to the colo's location object, whose answer is shared with the colo's
 * other isolates through the Cache API. The middleware already runs reports in the background
 * (`ctx.waitUntil`), so no request waits on them except an isolate's very first.
 */
import { anywhereCounterRequest, type Coordinator, type CounterRequest, type CounterResult, type SlotRequest, type SlotResult } from '../../src/coordination/coordinator.ts'
import type { RoomState, WorkerReport } from '../../src/coordination/state.ts'
import { resolveCloudflareOptions, sameOptions, type DurableObjectCoordinatorOptions } from './options.ts'
import { counterObjectName, DRIVER_NAME, type CounterObjectRpc } from './protocol.ts'
import { defaultCache, SnapshotCache } from './snapshot-cache.ts'
import { StubPool } from './stub-pool.ts'

/** One coordinator per counters binding: bindings are the same objects for every request of an isolate. */
const built = new WeakMap<object, { options: DurableObjectCoordinatorOptions; coordinator: Coordinator }>()

const isEmpty = (deltas: Record<string, number>): boolean => {
  for (const _ in deltas) return false
  return true
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
  const shared = o.cache && o.cacheMaxAgeMs > 0 ? new SnapshotCache(o.cache, o.cacheMaxAgeMs) : undefined

  const increment = (request: CounterRequest): Promise<CounterResult> =>
    objects.call(counterObjectName(request.roomId, request.scope), 'increment', (stub) => stub.increment(request), route)

  return {
    name: DRIVER_NAME,
    increment,

    async takeSlot(request: SlotRequest): Promise<SlotResult> {
      const { roomId } = request
      if (request.localLimit > 0) {
        // The location object tries its own counter and, only if that is used up, the Anywhere object.
        return objects.call(counterObjectName(roomId, request.location), 'takeSlot', (stub) => stub.takeSlot(request, route), route)
      }
      if (request.anywhereLimit <= 0) return { admitted: false, roundTrips: 0 }
      // No allocation here (e.g. no traffic history yet): straight to the Anywhere object.
      const anywhere = await increment(anywhereCounterRequest(request))
      return anywhere.taken
        ? { admitted: true, via: 'anywhere', repeat: anywhere.repeat === true, roundTrips: 1 }
        : { admitted: false, roundTrips: 1 }
    },

    async sync(report: WorkerReport): Promise<RoomState> {
      // Nothing to merge: another isolate's recent answer is as good as the object's, and costs no call.
      if (shared && isEmpty(report.deltas)) {
        const cachedState = await shared.read(report.roomId, report.location, report.at)
        if (cachedState) return cachedState
      }
      const state = await objects.call(
        counterObjectName(report.roomId, report.location),
        'sync',
        (stub) => stub.sync(report, route),
        route,
      )
      await shared?.write(report.roomId, report.location, state, report.at)
      return state
    },
  }
}
