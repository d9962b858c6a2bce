/**
 * @module
 * Turns the raw per-location counts into the snapshot a worker decides from. Pure: the clock is an argument.
 */
import { minuteOf } from '../clock.ts'
import { fieldMinute, type RoomState } from '../coordination/state.ts'

/** Minutes a queued user stays in the waiting count after their last check-in (current + previous). */
export const WAITING_WINDOW_MINUTES = 2

/**
 * Minutes a queued user must stay in the waiting count to cover one (jittered, +10%) refresh interval;
 * shorter, and users between two check-ins drop out of their bucket, so FIFO reserves too little for it.
 */
export const waitingWindowMinutes = (refreshIntervalSeconds: number): number =>
  Math.max(WAITING_WINDOW_MINUTES, Math.ceil((refreshIntervalSeconds * 1.1 + 1) / 60) + 1)
/** Traffic shares come from the minute before last: complete, so it no longer changes (seeds 000, 001). */
export const TRAFFIC_REFERENCE_AGE = 2
/** Admissions are averaged over this many completed minutes for wait estimates. */
export const ADMISSIONS_AVERAGE_MINUTES = 5

export interface Bucket {
  /** Minute number of first arrival (seed 001). */
  bucketId: number
  waiting: number
}

export interface LocationSummary {
  activeUsers: number
  waitingUsers: number
  admittedThisMinute: number
}

export interface Snapshot {
  /** The minute this snapshot was computed for. */
  minute: number
  /** Users with a live session, all locations. Includes this minute's admissions. */
  activeUsers: number
  /** Admissions already made in `minute` (so slot math counts them once, not again as active). */
  admittedThisMinute: number
  /** Slots seen taken in the minute before, per counter: each location's own, and the Anywhere pool's. */
  takenLastMinute: { locations: Record<string, number>; anywhere: number }
  /** The same for this minute so far. */
  takenThisMinute: { locations: Record<string, number>; anywhere: number }
  /** Queued buckets, oldest first, with positive waiting counts. */
  buckets: Bucket[]
  waitingUsers: number
  /** Users seen per location in the reference minute (minute − 2). */
  traffic: Record<string, number>
  /** Average admissions per completed minute over the last few minutes (0 when none were recorded). */
  admissionsPerMinute: number
  locations: Record<string, LocationSummary>
  /** Tickets the origin revoked within the session window. */
  revoked: Set<string>
  /**
   * The coordinator lost or replaced its state within the last session length (a worker saw a new epoch, or a
   * session older than it): sessions it no longer counts may still be active, so the room counts as full.
   */
  recovering: boolean
  /** ms at which the aggregated state was produced. */
  stateAt: number
}

/** Minutes an admitted user counts as active after the minute of their last check-in (inclusive). */
export const sessionWindowStart = (minute: number, sessionDurationMinutes: number): number =>
  minute - sessionDurationMinutes

export function buildSnapshot(
  state: RoomState,
  now: number,
  sessionDurationMinutes: number,
  waitingWindow = WAITING_WINDOW_MINUTES,
): Snapshot {
  const minute = minuteOf(now)
  const activeFrom = sessionWindowStart(minute, sessionDurationMinutes)
  const waitingFrom = minute - waitingWindow + 1
  const trafficMinute = minute - TRAFFIC_REFERENCE_AGE
  const averageFrom = minute - ADMISSIONS_AVERAGE_MINUTES

  let activeUsers = 0
  let admittedThisMinute = 0
  let waitingUsers = 0
  let oldestAdmissionMinute = minute
  let admissionsInAverage = 0
  const waitingByBucket = new Map<number, number>()
  const traffic: Record<string, number> = {}
  const locations: Record<string, LocationSummary> = {}
  const takenLastMinute = { locations: {} as Record<string, number>, anywhere: 0 }
  const takenThisMinute = { locations: {} as Record<string, number>, anywhere: 0 }
  /** Adds `value` to the counter use of `name` (or Anywhere) in the minute it belongs to, if one of the two. */
  const taken = (at: number, name: string, local: number, anywhere: number): void => {
    const into = at === minute ? takenThisMinute : at === minute - 1 ? takenLastMinute : undefined
    if (!into) return
    into.locations[name] = (into.locations[name] ?? 0) + local
    into.anywhere += anywhere
  }
  const revoked = new Set<string>()
  let recovering = false

  for (const name in state.locations) {
    const counts = state.locations[name]!.counts
    const summary: LocationSummary = { activeUsers: 0, waitingUsers: 0, admittedThisMinute: 0 }
    for (const field in counts) {
      const value = counts[field]!
      const at = fieldMinute(field)
      switch (field.charCodeAt(0)) {
        case 97: // a: active
          if (at >= activeFrom && at <= minute) summary.activeUsers += value
          break
        case 110: // n: admissions
          taken(at, name, value, 0)
          if (at === minute) summary.admittedThisMinute += value
          else if (at >= averageFrom && at < minute) {
            admissionsInAverage += value
            if (at < oldestAdmissionMinute) oldestAdmissionMinute = at
          }
          break
        case 121: // y: admissions through the Anywhere counter, which are not the location counter's
          taken(at, name, -value, value)
          break
        case 116: // t: traffic
          if (at === trafficMinute) traffic[name] = (traffic[name] ?? 0) + value
          break
        case 119: // w: waiting
          if (at >= waitingFrom && at <= minute) {
            const bucketId = Number(field.slice(field.indexOf('.') + 1))
            waitingByBucket.set(bucketId, (waitingByBucket.get(bucketId) ?? 0) + value)
            summary.waitingUsers += value
          }
          break
        case 120: // x: revoked ticket
          if (at >= activeFrom && value > 0) revoked.add(field.slice(field.indexOf('.') + 1))
          break
        case 82: // R: state lost in minute `at`; sessions counted before it last through at + sessionDuration
          if (at >= activeFrom - 1 && value > 0) recovering = true
          break
      }
    }
    activeUsers += summary.activeUsers
    admittedThisMinute += summary.admittedThisMinute
    waitingUsers += summary.waitingUsers
    locations[name] = summary
  }

  const buckets: Bucket[] = []
  for (const [bucketId, waiting] of waitingByBucket) if (waiting > 0) buckets.push({ bucketId, waiting })
  buckets.sort((x, y) => x.bucketId - y.bucketId)
  // Average over the minutes the room has existed, up to five: a young room is not diluted by empty history.
  const minutesAveraged = minute - oldestAdmissionMinute
  return {
    minute,
    activeUsers: Math.max(0, activeUsers),
    admittedThisMinute: Math.max(0, admittedThisMinute),
    takenLastMinute,
    takenThisMinute,
    buckets,
    waitingUsers: Math.max(0, waitingUsers),
    traffic,
    admissionsPerMinute: minutesAveraged > 0 ? admissionsInAverage / minutesAveraged : 0,
    locations,
    revoked,
    recovering,
    stateAt: state.at,
  }
}
