// Realistic room states for the per-decision and memory benchmarks, built from the core's own field names
// (src/coordination/state.ts), so they hold exactly what an aggregator holds: per-minute counts, never users.
import { dist } from './lib.mjs'

const { activeField, admittedField, trafficField, waitingField } = await dist('src/coordination/state.js')

/** A minute in the middle of a real day (2026-01-05 12:00 UTC), and a time 30 s into it. */
export const MINUTE = Math.floor(Date.UTC(2026, 0, 5, 12, 0, 0) / 60_000)
export const NOW = MINUTE * 60_000 + 30_000

/**
 * The counts of one location: `historyMinutes` minutes of active/admitted/traffic counts, and `waiting`
 * users spread evenly over `buckets` minute buckets and over the two minutes of the waiting window
 * (the minute of their last check-in: this one or the one before).
 */
export function locationCounts({ minute = MINUTE, historyMinutes = 11, buckets = 60, waiting = 0, activePerMinute = 40, admittedPerMinute = 30, trafficPerMinute = 80 }) {
  const counts = {}
  for (let m = minute - historyMinutes + 1; m <= minute; m++) {
    counts[activeField(m)] = activePerMinute
    counts[admittedField(m)] = admittedPerMinute
    counts[trafficField(m)] = trafficPerMinute
  }
  if (waiting > 0) {
    const cells = buckets * 2
    let left = waiting
    for (let b = 0; b < buckets; b++) {
      const bucketId = minute - buckets + b // buckets are the minutes of first arrival, oldest first
      for (const m of [minute - 1, minute]) {
        const share = Math.round(left / (cells - (b * 2 + (m === minute ? 1 : 0))))
        if (share > 0) counts[waitingField(m, bucketId)] = share
        left -= share
      }
    }
  }
  return counts
}

/** A RoomState of `locations` locations named `l0`, `l1`, …, sharing `waitingUsers` among them. */
export function roomState({ locations = 5, waitingUsers = 0, buckets = 60, minute = MINUTE, at = NOW, ...rest } = {}) {
  const state = { locations: {}, at }
  for (let i = 0; i < locations; i++) {
    const waiting = Math.floor(waitingUsers / locations) + (i < waitingUsers % locations ? 1 : 0)
    state.locations[`l${i}`] = { counts: locationCounts({ minute, buckets, waiting, ...rest }), updatedAt: at }
  }
  return state
}

/** Sum of the waiting fields of a state (to check a fixture holds the users it says). */
export function waitingIn(state) {
  let sum = 0
  for (const { counts } of Object.values(state.locations)) for (const field in counts) if (field[0] === 'w') sum += counts[field]
  return sum
}
