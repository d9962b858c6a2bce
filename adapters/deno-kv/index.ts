/**
 * @module
 * The Deno KV coordinator: minute counters with versionstamp-checked `atomic()` commits, room state as
 * `sum`med KvU64 fields. For Deno and Deno Deploy (where every region shares the project's KV).
 *
 * @example
 * ```ts
 * import { waitingRoom } from 'hono-waiting-room'
 * import { denoKvCoordinator } from 'hono-waiting-room/deno-kv'
 *
 * app.use(waitingRoom({ coordinator: denoKvCoordinator(await Deno.openKv()) }))
 * ```
 */
export { denoKvCoordinator, type DenoKvCoordinatorOptions } from './coordinator.ts'
export { DRIVER_NAME, openDenoKv, type KvLike, type KvKey, type KvKeyPart, type KvConsistency } from './kv.ts'
