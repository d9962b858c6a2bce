/**
 * @module
 * The decision paths the Redis benches measure (`bench.mjs`: Redis µs per EVALSHA; `bench-instructions.mjs`:
 * instructions per EVALSHA under callgrind), shared so both measure the same calls.
 */

/** One decision as the core asks for it (src/room/pipeline/decide.ts): both previous-reported values set. */
export const slot = (minute, roomId, token, localLimit, anywhereLimit) => ({
  roomId, location: 'local', minute, localLimit, anywhereLimit, localPreviousReported: 0, anywherePreviousReported: 0, token,
})

/**
 * The paths of a decision in minute `minute`, each in rooms of its own (`room` numbers them), so every call
 * takes the path it is named for. Every room is warmed with the tickets `warm-up-0` and `warm-up-1` first.
 */
export const decisionPaths = (minute) => ({
  'location grant': (room, i) => slot(minute, `path-location-${room}`, `t${i}`, 1e9, 1e9),
  // The location's one slot goes to the warm-up; every call after it falls through to the Anywhere counter.
  'Anywhere grant': (room, i) => slot(minute, `path-anywhere-${room}`, `t${i}`, 1, 1e9),
  'no slot': (room, i) => slot(minute, `path-full-${room}`, `t${i}`, 1, 1),
  // A ticket asking again (a replayed cookie): answered from its first answer, nothing counted.
  repeat: (room, i) => slot(minute, `path-repeat-${room}`, `warm-up-${i % 2}`, 1e9, 1e9),
})
