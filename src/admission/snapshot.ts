/**
 * @module
 * Turns the raw per-location counts into the snapshot a worker decides from. Pure: the clock is an argument.
 */
import { minuteOf, MINUTE_MS } from '../clock.ts'
import type { RoomState } from '../coordination/state.ts'
import { activeOf, locationPart, windowsOf, type ActiveWindow, type LocationPart } from './location-part.ts'
import { liveFrom, sessionSpanMinutes } from '../coordination/positions.ts'

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
  /**
   * Active users whose session ends with this minute unless they check in again: the places the next minute
   * frees at its start (known now, so the head of the line can be asked to come back then).
   */
  endingThisMinute: number
  /**
   * When the active sessions that end before the minute after next end (ms → sessions): the places that free
   * mid-minute, at known moments (coordination/positions.ts), for asking the head of the line back then.
   */
  endings: ReadonlyMap<number, number>
  /** Admissions already made in `minute` (so slot math counts them once, not again as active). */
  admittedThisMinute: number
  /** Slots seen taken in the minute before, per counter: each location's own, and the Anywhere pool's. */
  takenLastMinute: { locations: Record<string, number>; anywhere: number }
  /** The same for this minute so far. */
  takenThisMinute: { locations: Record<string, number>; anywhere: number }
  /**
   * Locations whose state last changed before this minute began: as far as this view shows, their counters may
   * have granted slots late in the previous minute that it does not contain yet (a grant joins its location's
   * state in the same step, so a state changed since the minute began holds all of them).
   */
  behind: string[]
  /**
   * Lookups and sums over the tables above that a decision needs. An incremental snapshot answers them from
   * what it shares with the other snapshots of the same state, without making the tables: a per-location
   * table per decision was, at 300 locations, most of the simulator's time and garbage (issue 15).
   */
  takenThisAt(location: string): number | undefined
  takenLastAt(location: string): number | undefined
  /** Σ over the locations seen taking this minute of what they took beyond `allocations` (whole numbers). */
  takenBeyond(allocations: Readonly<Record<string, number>>): number
  /** How many locations are behind, and Σ over them of their part of `allocations` not seen taken last minute. */
  untakenBehind(allocations: Readonly<Record<string, number>>): { behind: number; untaken: number }
  /** Queued buckets, oldest first, with positive waiting counts. */
  buckets: Bucket[]
  /** Bucket id → location → its waiting users there (positive counts only): where each bucket's users wait. */
  waitingAt: WaitingAt
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

/**
 * A state read after its making (`stateAt`) may miss a renewal's move reported since: the count it moved was
 * live when the user renewed, so a view that let it expire later than its state could hand its place out
 * twice. Counts expire at the state's time (never the worker's later clock), less this margin for a renewal made
 * in a count's last moment and reported after its end. Measured: with 0, one generated room's ≥ 1-minute FIFO
 * overtakes rose to 4.43% (`test/fair-full.test.ts` fair-4; 3% bound); 1 s keeps them within it.
 */
export const EXPIRY_MARGIN_MS = 1000

/** `map` without its entries of 0 or less, sorted by key (ascending). */
export const positiveEntries = (map: ReadonlyMap<number, number>): Map<number, number> =>
  new Map([...map].filter(([, count]) => count > 0).sort(([x], [y]) => x - y))

/** Which counts a snapshot at `now` of a state made at `stateAt` reads as active (coordination/positions.ts). */
export function activeWindow(now: number, stateAt: number, sessionDurationMinutes: number): ActiveWindow {
  const minute = minuteOf(now)
  const span = sessionSpanMinutes(sessionDurationMinutes)
  return {
    activeFrom: sessionWindowStart(minute, sessionDurationMinutes),
    liveFrom: liveFrom(Math.min(now, stateAt) - EXPIRY_MARGIN_MS, sessionDurationMinutes),
    endsBy: minute + 1 - span,
  }
}

/**
 * Where one bucket's users wait, by location in the state's order. Only looked up by bucket: a plan reads the
 * few buckets its slots reach, so an incremental snapshot makes just those tables (built-snapshot.ts).
 */
export interface WaitingAt {
  get(bucketId: number): ReadonlyMap<string, number> | undefined
}

type Lookups = Pick<Snapshot, 'takenThisAt' | 'takenLastAt' | 'takenBeyond' | 'untakenBehind'>

/** The snapshot's lookups and sums, read from its tables (the reference the incremental snapshot must equal). */
function lookups(takenThis: Record<string, number>, takenLast: Record<string, number>, behind: readonly string[]): Lookups {
  return {
    takenThisAt: (location) => takenThis[location],
    takenLastAt: (location) => takenLast[location],
    takenBeyond: (allocations) => {
      let beyond = 0
      for (const name in takenThis) beyond += Math.max(0, takenThis[name]! - (allocations[name] ?? 0))
      return beyond
    },
    untakenBehind: (allocations) => {
      let untaken = 0
      for (const name of behind) untaken += Math.max(0, (allocations[name] ?? 0) - (takenLast[name] ?? 0))
      return { behind: behind.length, untaken }
    },
  }
}

/** Adds to `endings` (ms → count) the live counts of `part` that end before the minute after next; returns those ending this minute. */
function addEndings(part: LocationPart, active: ActiveWindow, minute: number, endings: Map<number, number>): number {
  let ending = 0
  const edge = part.edge
  for (let i = 0; i < edge.length; i += 2) {
    const position = edge[i]!
    const count = edge[i + 1]!
    if (position < active.liveFrom) continue
    if (position <= active.endsBy) ending += count
    if (position > active.endsBy + 1) continue
    // span = minute + 1 − endsBy (positions.ts); whole ms: positions are multiples of 3.75 s
    const at = Math.round((position + minute + 1 - active.endsBy) * MINUTE_MS)
    endings.set(at, (endings.get(at) ?? 0) + count)
  }
  return ending
}

export function buildSnapshot(
  state: RoomState,
  now: number,
  sessionDurationMinutes: number,
  waitingWindow = WAITING_WINDOW_MINUTES,
): Snapshot {
  const minute = minuteOf(now)
  const active = activeWindow(now, state.at, sessionDurationMinutes)
  const w = windowsOf(minute, active, minute - waitingWindow + 1, TRAFFIC_REFERENCE_AGE, ADMISSIONS_AVERAGE_MINUTES)
  let activeUsers = 0
  let endingThisMinute = 0
  const endings = new Map<number, number>()
  let admittedThisMinute = 0
  let waitingUsers = 0
  let admissionsInAverage = 0
  let oldestAdmissionMinute = minute
  let recovering = false
  const locations: Record<string, LocationSummary> = {}
  const traffic: Record<string, number> = {}
  const takenLastMinute = { locations: {} as Record<string, number>, anywhere: 0 }
  const takenThisMinute = { locations: {} as Record<string, number>, anywhere: 0 }
  const waitingByBucket = new Map<number, number>()
  const waitingAt = new Map<number, Map<string, number>>()
  const revoked = new Set<string>()
  const behind: string[] = []
  // A layered state's base, its own state in place: `locations` would make (and keep) a 300-entry record (issue 15)
  const layers = state.layers
  const record = layers && Object.hasOwn(layers.base, layers.location) ? layers.base : state.locations
  for (const name in record) {
    const location = name === layers?.location && record === layers.base ? layers.own : record[name]!
    if (location.updatedAt < minute * MINUTE_MS) behind.push(name)
    const part = locationPart(location.counts, location.updatedAt, w)
    const partActive = activeOf(part, active.liveFrom)
    activeUsers += partActive
    endingThisMinute += addEndings(part, active, minute, endings)
    admittedThisMinute += part.admittedThisMinute
    waitingUsers += part.waitingUsers
    locations[name] = { activeUsers: partActive, waitingUsers: part.waitingUsers, admittedThisMinute: part.admittedThisMinute }
    if (part.traffic !== undefined) traffic[name] = part.traffic
    if (part.takenThis.seen) takenThisMinute.locations[name] = part.takenThis.local
    takenThisMinute.anywhere += part.takenThis.anywhere
    if (part.takenLast.seen) takenLastMinute.locations[name] = part.takenLast.local
    takenLastMinute.anywhere += part.takenLast.anywhere
    for (let i = 0; i < part.waiting.length; i += 2) {
      const [bucketId, waiting] = [part.waiting[i]!, part.waiting[i + 1]!]
      waitingByBucket.set(bucketId, (waitingByBucket.get(bucketId) ?? 0) + waiting)
      if (waiting <= 0) continue
      let at = waitingAt.get(bucketId)
      if (!at) waitingAt.set(bucketId, (at = new Map()))
      at.set(name, waiting)
    }
    for (const id of part.revoked) revoked.add(id)
    recovering ||= part.recovering
    admissionsInAverage += part.admissionsInAverage
    oldestAdmissionMinute = Math.min(oldestAdmissionMinute, part.oldestAdmissionMinute)
  }
  const buckets: Bucket[] = []
  for (const [bucketId, waiting] of waitingByBucket) if (waiting > 0) buckets.push({ bucketId, waiting })
  buckets.sort((x, y) => x.bucketId - y.bucketId)
  // Average over the minutes the room has existed, up to five: a young room is not diluted by empty history.
  const minutesAveraged = minute - oldestAdmissionMinute
  return {
    minute,
    ...lookups(takenThisMinute.locations, takenLastMinute.locations, behind),
    activeUsers: Math.max(0, activeUsers),
    endingThisMinute: Math.max(0, endingThisMinute),
    endings: positiveEntries(endings),
    admittedThisMinute: Math.max(0, admittedThisMinute),
    takenLastMinute,
    takenThisMinute,
    behind,
    buckets,
    waitingAt,
    waitingUsers: Math.max(0, waitingUsers),
    traffic,
    admissionsPerMinute: minutesAveraged > 0 ? admissionsInAverage / minutesAveraged : 0,
    locations,
    revoked,
    recovering,
    stateAt: state.at,
  }
}
