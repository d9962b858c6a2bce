/**
 * @module
 * What a run records: one row per simulated minute, a time series for charts, and for every premature
 * queueing decision the reason the core had for it.
 */

export interface MinuteRow {
  /** Minutes from the start of the run. */
  minute: number
  /** Users whose first request fell in this minute. */
  arrivals: number
  /** Users admitted (given a session) in this minute. */
  admitted: number
  /** Queueing decisions (new users queued and queued users queued again; not too-early check-ins). */
  queued: number
  /** Users queued for the first time. */
  newlyQueued: number
  /** Queueing decisions while, even after every admission of the same step, active < limit and admitted < newUsersPerMinute. */
  premature: number
  /** Ground-truth active users as the minute began. */
  activeStart: number
  /** Most ground-truth active users during the minute (sessions only end on minute boundaries). */
  active: number
  limit: number
  /** `active − limit` when positive. */
  overshoot: number
  /** Users waiting in the queue as the minute ended. */
  queueLength: number
  /** Location-counter slots the minute's plans allowed but nobody took. */
  unusedLocationSlots: number
  /** Anywhere-counter slots the minute's plans allowed but nobody took. */
  unusedAnywhereSlots: number
  /**
   * Capacity left idle in a minute that queued someone: `min(limit − active, newUsersPerMinute − admitted)`
   * at the minute's end. Premature queueing that costs throughput shows here; queueing that only made a
   * user wait for a slot freed later in the same minute does not.
   */
  idleSlots: number
}

export const emptyRow = (minute: number, limit: number, activeStart: number): MinuteRow => ({
  minute,
  arrivals: 0,
  admitted: 0,
  queued: 0,
  newlyQueued: 0,
  premature: 0,
  activeStart,
  active: activeStart,
  limit,
  overshoot: 0,
  queueLength: 0,
  unusedLocationSlots: 0,
  unusedAnywhereSlots: 0,
  idleSlots: 0,
})

/** Ground truth sampled every few simulated seconds, for the charts. */
export interface SeriesPoint {
  /** ms from the start. */
  atMs: number
  active: number
  queue: number
}

/** Why the core queued a user while there was room (from the decision, the counters and the worker's view). */
export type PrematureCause =
  /** FIFO: an older bucket was still waiting, so this user's bucket was not eligible yet. */
  | 'not-eligible'
  /** The worker's snapshot left no slots this minute: it counted the room as fuller than it was. */
  | 'view-full'
  /** FIFO: slots were left, but reserved for queued buckets that had not checked in again yet. */
  | 'held-for-queue'
  /** Random: slots were left, but this part of the minute had not released them yet. */
  | 'random-release'
  /** The location's allocation and the Anywhere pool were used up (allocation shares, minute budget). */
  | 'counters-full'
  /** Anything else (no state yet, coordinator failure). */
  | 'other'

export const PREMATURE_CAUSES: readonly PrematureCause[] = [
  'not-eligible',
  'view-full',
  'held-for-queue',
  'random-release',
  'counters-full',
  'other',
]

/** One premature queueing decision, kept (the first few of a run) to explain the figures. */
export interface PrematureExample {
  atMs: number
  location: string
  worker: number
  reason: string
  cause: PrematureCause
  /** Ground truth after the step. */
  activeUsers: number
  admittedThisMinute: number
  /** What the worker's last synced state said (without its own unreported deltas). */
  viewActiveUsers: number | undefined
  viewAdmittedThisMinute: number | undefined
  /** Counter calls the decision made: scope, limit, sequence number. */
  counters: string
}

/** Responses a well-behaved client should never see; non-zero means the simulator or the core is wrong. */
export interface Anomalies {
  /** An admitted user with a live session was queued or re-admitted. */
  lostSessions: number
  /** A queued user came back after its Refresh interval and was told it was too early. */
  tooEarly: number
  /** A queued user came back with their ticket and was put in a different (later) bucket: their place was lost. */
  lostQueuePlaces: number
  /** Responses with no decision, or an outcome the scenario cannot produce. */
  unexpected: number
}

/** The coordinator's memory at the end of a run, in the units that bound it. */
export interface Footprint {
  /** Count fields in the largest room state a worker last synced (minutes × locations × buckets). */
  stateFields: number
  /** Per-minute counters the coordinator still holds (scopes × minutes kept). */
  counters: number
}
