/**
 * @module
 * Batching of new users' slot requests (#16): when a crowd arrives, one worker receives many new users in the
 * same turn of its event loop. With a coordinator that offers `takeSlots`, the requests of one room made in a
 * turn go out as one call — decided in arrival order, each as a call of its own would be, in one atomic step —
 * so the backend's fixed cost per call (a script start, the room's shared reads and writes) and the round trip
 * are shared by the batch. A coordinator without `takeSlots` (the memory coordinator, SQLite, Durable Objects,
 * Deno KV) is asked once per request, at once, exactly as before: no turn is waited for.
 *
 * Admission logic stays where it was: each request keeps its own token, limits and view, the limits stay exact
 * (the batch is decided in order inside one atomic step), a resent batch grants nothing twice (each request's
 * token is its key, as for a single call), and a failed call rejects every request of it, so each follows the
 * room's `failMode` exactly as a failed single call does.
 */
import { takeSlot, type Coordinator, type SlotRequest, type SlotResult } from './coordinator.ts'
import { WaitingRoomError } from '../errors.ts'

/** Most requests one batched call carries; a batch that fills up goes out at once and a new one starts. */
export const MAX_SLOT_BATCH = 64

interface Waiting {
  request: SlotRequest
  resolve(result: SlotResult): void
  reject(error: unknown): void
}

type Later = (run: () => void) => void

/**
 * The end of the current turn: `setImmediate` where the runtime has it (Node, Bun: after the I/O callbacks of this
 * loop iteration, so every request read in it is collected), else a `setTimeout(0)` (Deno, Workers). Taken when
 * this module loads, so fake timers installed later by a test do not hold a batch back.
 */
const endOfTurn: Later = (() => {
  const immediate = (globalThis as { setImmediate?: (run: () => void) => unknown }).setImmediate
  if (typeof immediate === 'function') return (run) => void immediate(run)
  const timeout = globalThis.setTimeout
  return (run) => void timeout(run, 0)
})()

/** Per coordinator, per room: the requests waiting for the end of the turn. */
const waiting = new WeakMap<Coordinator, Map<string, Waiting[]>>()

/** Sends one batch and settles each of its requests with its own answer, or all with the call's failure. */
function send(coordinator: Coordinator, batch: Waiting[]): void {
  const fail = (error: unknown): void => batch.forEach((w) => w.reject(error))
  let answered: Promise<SlotResult[]>
  try {
    answered = coordinator.takeSlots!(batch.map((w) => w.request))
  } catch (error) {
    return fail(error)
  }
  answered.then((results) => {
    if (results.length !== batch.length) {
      return fail(new WaitingRoomError('ERR_WR_COORDINATOR', `${coordinator.name}: takeSlots answered ${results.length} results for ${batch.length} requests`))
    }
    batch.forEach((w, i) => w.resolve(results[i]!))
  }, fail)
}

/**
 * A new user's slot: batched with the other requests of its room made in this turn when the coordinator has
 * `takeSlots`, else `takeSlot` (the adapter's fused one, or the core's two calls) at once.
 */
export function takeSlotBatched(coordinator: Coordinator, request: SlotRequest): Promise<SlotResult> {
  if (!coordinator.takeSlots) return takeSlot(coordinator, request)
  let rooms = waiting.get(coordinator)
  if (!rooms) waiting.set(coordinator, (rooms = new Map()))
  const open = rooms
  return new Promise<SlotResult>((resolve, reject) => {
    let batch = open.get(request.roomId)
    if (!batch) {
      const started: Waiting[] = (batch = [])
      open.set(request.roomId, started)
      endOfTurn(() => {
        // Sent unless it filled up and went out already (a later batch of the room may be waiting: not this one).
        if (open.get(request.roomId) !== started) return
        open.delete(request.roomId)
        send(coordinator, started)
      })
    }
    batch.push({ request, resolve, reject })
    if (batch.length >= MAX_SLOT_BATCH) {
      open.delete(request.roomId)
      send(coordinator, batch)
    }
  })
}
