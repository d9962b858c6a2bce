/**
 * When the room ends a session, read from the ticket cookie alone, as a black-box client can. The room ends a
 * session's count at E = position + (sessionDurationMinutes + 1) minutes, a position sitting on a grid of 3.75 s (a
 * grant's at its whole minute, a renewal's at the start of its 3.75-s slice: DESIGN, issue 15), so E is on that grid
 * too; the cookie's Max-Age is ⌈(E − now) / 1 s⌉ for the server's `now` in [sent, received]. So E lies in
 * (sent + (Max-Age − 1) s, received + Max-Age s]: a window the latency + 1 s wide, which holds exactly one grid point
 * while the latency is under 2.75 s.
 */
export const GRID_MS = 3750
const MINUTE_MS = 60_000

/**
 * `{ end, position, minute }` (ms, ms, the minute the store keeps the count under) of the session a cookie with
 * this Max-Age ends; undefined when the window holds no grid point or more than one (the caller reports it).
 */
export function sessionEndOf(sentAt, receivedAt, maxAge, sessionMinutes) {
  const low = sentAt + (maxAge - 1) * 1000 // exclusive
  const high = receivedAt + maxAge * 1000 // inclusive
  const end = Math.floor(low / GRID_MS) * GRID_MS + GRID_MS // the first grid point past `low`
  if (end > high || end + GRID_MS <= high) return undefined
  const position = end - (sessionMinutes + 1) * MINUTE_MS
  return { end, position, minute: Math.floor(position / MINUTE_MS) }
}

/** How many of `sessions` ({ admittedAt, end }, ms) are live at `t`: admitted by then and not yet ended. */
export const liveAt = (sessions, t) => sessions.reduce((n, s) => n + (s.admittedAt <= t && t < s.end ? 1 : 0), 0)

/**
 * Per minute, the most sessions live at any moment of it: the count only rises at an admission, so the minute's
 * start and its admissions are the moments to look at.
 */
export function mostLiveByMinute(sessions) {
  const counts = {}
  if (sessions.length === 0) return counts
  const first = Math.min(...sessions.map((s) => Math.floor(s.admittedAt / MINUTE_MS)))
  const last = Math.max(...sessions.map((s) => Math.floor((s.end - 1) / MINUTE_MS)))
  for (let m = first; m <= last; m++) {
    const start = m * MINUTE_MS
    const moments = [start, ...sessions.map((s) => s.admittedAt).filter((t) => t >= start && t < start + MINUTE_MS)]
    counts[m] = Math.max(...moments.map((t) => liveAt(sessions, t)))
  }
  return counts
}
