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
/** Minutes past the session window a revocation marker still refuses its ticket (the link keeps 6 of history). */
const REVOKED_MARGIN_MINUTES = 5
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

/** The minutes a snapshot reads each kind of field in. */
interface Windows {
  minute: number
  activeFrom: number
  waitingFrom: number
  trafficMinute: number
  averageFrom: number
}

/** What the fields of every location add up to while a snapshot is built. */
class Totals {
  admissionsInAverage = 0
  oldestAdmissionMinute: number
  readonly waitingByBucket = new Map<number, number>()
  readonly traffic: Record<string, number> = {}
  readonly takenLastMinute = { locations: {} as Record<string, number>, anywhere: 0 }
  readonly takenThisMinute = { locations: {} as Record<string, number>, anywhere: 0 }
  readonly revoked = new Set<string>()
  recovering = false
  readonly w: Windows

  constructor(w: Windows) {
    this.w = w
    this.oldestAdmissionMinute = w.minute
  }

  /** Adds `value` to the counter use of `name` (or Anywhere) in the minute it belongs to, if one of the two. */
  taken(at: number, name: string, local: number, anywhere: number): void {
    const into = at === this.w.minute ? this.takenThisMinute : at === this.w.minute - 1 ? this.takenLastMinute : undefined
    if (!into) return
    into.locations[name] = (into.locations[name] ?? 0) + local
    into.anywhere += anywhere
  }

  /** One field of location `name` (see state.ts for the fields). */
  add(name: string, summary: LocationSummary, field: string, value: number): void {
    const { w } = this
    const at = fieldMinute(field)
    switch (field.charCodeAt(0)) {
      case 97: // a: active
        if (at >= w.activeFrom && at <= w.minute) summary.activeUsers += value
        break
      case 110: // n: admissions
        this.taken(at, name, value, 0)
        if (at === w.minute) summary.admittedThisMinute += value
        else if (at >= w.averageFrom && at < w.minute) {
          this.admissionsInAverage += value
          if (at < this.oldestAdmissionMinute) this.oldestAdmissionMinute = at
        }
        break
      case 121: // y: admissions through the Anywhere counter, which are not the location counter's
        this.taken(at, name, -value, value)
        break
      case 116: // t: traffic
        if (at === w.trafficMinute) this.traffic[name] = (this.traffic[name] ?? 0) + value
        break
      case 119: // w: waiting
        if (at >= w.waitingFrom && at <= w.minute) {
          const bucketId = Number(field.slice(field.indexOf('.') + 1))
          this.waitingByBucket.set(bucketId, (this.waitingByBucket.get(bucketId) ?? 0) + value)
          summary.waitingUsers += value
        }
        break
      case 120: // x: revoked ticket, marked in the minute of its revocation; kept a little past the session, so a
        // cookie a stale worker renewed after the revocation is still refused (pruning bounds the set)
        if (at >= w.activeFrom - REVOKED_MARGIN_MINUTES && value > 0) this.revoked.add(field.slice(field.indexOf('.') + 1))
        break
      case 82: // R: state lost in minute `at`; sessions counted before it last through at + sessionDuration
        if (at >= w.activeFrom - 1 && value > 0) this.recovering = true
        break
    }
  }
}

export function buildSnapshot(
  state: RoomState,
  now: number,
  sessionDurationMinutes: number,
  waitingWindow = WAITING_WINDOW_MINUTES,
): Snapshot {
  const minute = minuteOf(now)
  const totals = new Totals({
    minute,
    activeFrom: sessionWindowStart(minute, sessionDurationMinutes),
    waitingFrom: minute - waitingWindow + 1,
    trafficMinute: minute - TRAFFIC_REFERENCE_AGE,
    averageFrom: minute - ADMISSIONS_AVERAGE_MINUTES,
  })
  let activeUsers = 0
  let admittedThisMinute = 0
  let waitingUsers = 0
  const locations: Record<string, LocationSummary> = {}
  for (const name in state.locations) {
    const counts = state.locations[name]!.counts
    const summary: LocationSummary = { activeUsers: 0, waitingUsers: 0, admittedThisMinute: 0 }
    for (const field in counts) totals.add(name, summary, field, counts[field]!)
    activeUsers += summary.activeUsers
    admittedThisMinute += summary.admittedThisMinute
    waitingUsers += summary.waitingUsers
    locations[name] = summary
  }

  const buckets: Bucket[] = []
  for (const [bucketId, waiting] of totals.waitingByBucket) if (waiting > 0) buckets.push({ bucketId, waiting })
  buckets.sort((x, y) => x.bucketId - y.bucketId)
  // Average over the minutes the room has existed, up to five: a young room is not diluted by empty history.
  const minutesAveraged = minute - totals.oldestAdmissionMinute
  return {
    minute,
    activeUsers: Math.max(0, activeUsers),
    admittedThisMinute: Math.max(0, admittedThisMinute),
    takenLastMinute: totals.takenLastMinute,
    takenThisMinute: totals.takenThisMinute,
    buckets,
    waitingUsers: Math.max(0, waitingUsers),
    traffic: totals.traffic,
    admissionsPerMinute: minutesAveraged > 0 ? totals.admissionsInAverage / minutesAveraged : 0,
    locations,
    revoked: totals.revoked,
    recovering: totals.recovering,
    stateAt: state.at,
  }
}
