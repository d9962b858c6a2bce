/**
 * @module
 * The Cloudflare Workers adapter (seed 001 on Durable Objects): one `WaitingRoomCounter` per (room, colo)
 * holding that colo's minute counters and location aggregator, one per room for the Anywhere counter,
 * and one `WaitingRoomGlobal` per room merging every colo. Workers share the colo's view through the
 * Cache API. Export both classes from your Worker and bind them (see examples/cloudflare-workers).
 *
 * @example
 * ```ts
 * import { waitingRoom } from 'hono-waiting-room'
 * import { durableObjectCoordinator } from 'hono-waiting-room/cloudflare'
 * export { WaitingRoomCounter, WaitingRoomGlobal } from 'hono-waiting-room/cloudflare'
 *
 * app.use(waitingRoom({
 *   coordinator: (c) => durableObjectCoordinator({ counters: c.env.WR_COUNTER, global: c.env.WR_GLOBAL }),
 * }))
 * ```
 */
export { durableObjectCoordinator } from './coordinator.ts'
export type { DurableObjectCoordinatorOptions } from './options.ts'
export type { DurableObjectNamespaceLike, DurableObjectIdLike } from './protocol.ts'
export type { CacheLike } from './snapshot-cache.ts'
export { WaitingRoomCounter } from './counter-object.ts'
export { WaitingRoomGlobal } from './global-object.ts'
