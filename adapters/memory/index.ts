/**
 * @module
 * `hono-waiting-room/memory`: the in-process coordinator. It lives in the core (`src/coordination/memory.ts`)
 * because it is the room's default; this path stays the public one.
 *
 * @example
 * ```ts
 * import { memoryCoordinator } from 'hono-waiting-room/memory'
 * app.use(waitingRoom({ coordinator: memoryCoordinator() }))
 * ```
 */
export { DRIVER_NAME, memoryCoordinator, type MemoryCoordinator, type MemoryCoordinatorOptions } from '../../src/coordination/memory.ts'
