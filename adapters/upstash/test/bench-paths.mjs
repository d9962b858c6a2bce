/**
 * @module
 * The decision paths the Redis benches measure (`bench.mjs`: Redis µs per EVALSHA; `bench-instructions.mjs`:
 * instructions per EVALSHA under callgrind), shared so both measure the same calls.
 */
import { createClient } from 'redis'

/** A session length: the core's recovery window under `failMode: 'closed'` is one more minute. */
const SESSION_MINUTES = 30

/**
 * One decision as the core asks for it (src/room/pipeline/decide.ts): both previous-reported values set, the
 * recovery window of `failMode: 'closed'`, and the state the worker knows (`seen`: epoch id and generation,
 * checked by every grant) when given.
 */
export const slot = (minute, roomId, token, localLimit, anywhereLimit, seen = {}) => ({
  roomId, location: 'local', minute, localLimit, anywhereLimit, localPreviousReported: 0, anywherePreviousReported: 0, token,
  recoveryMinutes: SESSION_MINUTES + 1, ...seen,
})

/**
 * The paths of a decision in minute `minute`, each in rooms of its own (`room` numbers them), so every call
 * takes the path it is named for. `warmRoom` prepares a room first.
 */
export const decisionPaths = (minute) => ({
  'location grant': (room, i, seen) => slot(minute, `path-location-${room}`, `t${i}`, 1e9, 1e9, seen),
  // The location's one slot goes to the warm-up; every call after it falls through to the Anywhere counter.
  'Anywhere grant': (room, i, seen) => slot(minute, `path-anywhere-${room}`, `t${i}`, 1, 1e9, seen),
  'no slot': (room, i, seen) => slot(minute, `path-full-${room}`, `t${i}`, 1, 1, seen),
  // A ticket asking again (a replayed cookie): answered from its first answer, nothing counted.
  repeat: (room, i, seen) => slot(minute, `path-repeat-${room}`, `warm-up-${i % 2}`, 1e9, 1e9, seen),
})

let reports = 0
/**
 * A room as a worker finds it: one sync (which creates the room's epoch; its answer is what the worker then
 * knows), then the tickets `warm-up-0` and `warm-up-1` decided. Returns the worker's view for later calls.
 */
export async function warmRoom(coordinator, path, room, minute) {
  const { roomId } = path(room, 0, {})
  const state = await coordinator.sync({ id: `bench-${process.pid}-${++reports}`, roomId, location: 'local', at: minute * 60_000, keepMinutes: SESSION_MINUTES, deltas: {} })
  const seen = { epoch: state.epoch.id, generation: state.generation }
  await coordinator.takeSlot(path(room, 'warm-up-0', seen))
  await coordinator.takeSlot(path(room, 'warm-up-1', seen))
  return seen
}

/** A client of the server once it answers (valgrind takes seconds to start it on a busy machine). */
export async function connect(port) {
  for (let tries = 0; ; tries++) {
    const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } })
    client.on('error', () => {})
    try {
      return await client.connect()
    } catch (error) {
      if (tries > 300) throw error
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
}
