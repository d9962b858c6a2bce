/**
 * @module
 * Longer than 250 lines because the state's fields, the reports that change them and the helpers every adapter
 * applies alike are one definition.
 * The shared room state: additive per-minute counts, never per-user records (DESIGN "Counting active
 * and waiting users"). Every field is a count keyed by a short name, so merging two states is adding
 * numbers — which every backend can do natively (HINCRBY, Deno KV `sum`, SQL `UPDATE … + ?`, a Map).
 *
 * Fields (m = minute number, b = bucket id, also a minute number):
 * - `a{m}`   admitted users whose last check-in fell in minute m. An admission adds 1 to the current
 *            minute; a renewal moves 1 from the old minute to the new one. Active users = the sum over
 *            the session window, so a session leaves the count exactly when its ticket expires.
 * - `n{m}`   admissions made in minute m (the allocation counted "once", the admissions average).
 * - `y{m}`   those of them granted by the Anywhere counter (so each counter's reported use is known).
 * - `t{m}`   users seen in minute m (admitted check-ins, admissions and queue check-ins): the traffic
 *            history that location shares are computed from (seed 000: a completed past minute).
 * - `w{m}.{b}` queued users of bucket b whose last queue check-in fell in minute m.
 * - `x{m}.{ticketId}` a ticket revoked by the origin, m the minute of the revocation: the marker workers refuse
 *            the ticket by. It travels in the deltas of the revocation's `once` entry, whose key `x.{ticketId}`
 *            names the ticket only — the same across renewals, old cookies, workers and locations — so the
 *            decrement and the marker apply once per room (see {@link WorkerReport.once}).
 * - `R{m}`   a worker saw the room's state lost or replaced (a new epoch) in minute m: the room counts as
 *            full until every session admitted before the loss has expired. Adapters also keep the latest such
 *            m beside the state (written with the mark) for their grants to read (`refusesWhileRecovering`).
 */
import type { Move } from './move.ts'
import type { TrafficReference } from './reference.ts'
/** The counts one location holds, plus when they were last changed. */
export interface LocationState {
  counts: Record<string, number>
  /** ms of the last merge into this location. */
  updatedAt: number
}

/** What a worker sees after a sync: the state of every location of the room. */
export interface RoomState {
  locations: Record<string, LocationState>
  /** ms at which the answering aggregator produced this view. */
  at: number
  /** The room's epoch; every adapter answers it (optional only for older test doubles). */
  epoch?: RoomEpoch
  /**
   * The state's generation: advanced by every sync in the same atomic step as its report, so an older copy of
   * the state put back (a SQLite backup, a Redis restarted from an older RDB) answers a lower one than workers
   * and tickets have seen. Answered by adapters whose stored state can be restored that way (SQLite, Redis).
   */
  generation?: number
  /**
   * How an in-process coordinator made `locations`: `base` (a record it answers again, unchanged, until this
   * location's next exchange) with `location`'s own fresh state `own` in its place. A worker's snapshot follows
   * the changes since the last base it read instead of going over every location, and nobody copies a record
   * of every location on every sync (issue 15: 300 locations). `locations` holds the same, made on first read.
   */
  layers?: StateLayers
  /** Per ticket of the report's moves: the minute it is counted in after the sync (`MOVE_ENDED`: nowhere). */
  moved?: Record<string, number>
  /**
   * For each reference the report proposed ({@link WorkerReport.references}): the one stored for its minute — the
   * first proposal the room's authority saw (reference.ts). A minute left out: not fixed yet (an aggregator that
   * has not heard from the room's authority); the worker proposes it again with its next sync.
   */
  references?: TrafficReference[]
}

export interface StateLayers {
  base: Record<string, LocationState>
  location: string
  own: LocationState
  /**
   * The stage the bases come from (the memory coordinator's global stage): bases of one source list locations
   * in one order and differ by the locations stored between them, so a snapshot of one location's base is
   * derived from the latest made from any, reading only what changed since.
   */
  source: object
}

/** A worker's deltas for its location, sent in the background. */
export interface WorkerReport {
  /** Unique per report: an aggregator applies a report id once, so a retried report is not counted twice. */
  id: string
  roomId: string
  location: string
  /** ms at which the worker sent it (worker clock). */
  at: number
  /** How many minutes of history the room needs; older fields are pruned. */
  keepMinutes: number
  /**
   * How many minutes back active counts (`a{position}`) are read, margin included ({@link activeKeepMinutes}):
   * older ones are dead to every reader and may be pruned before `keepMinutes`. Absent: `keepMinutes`. Applied by
   * the memory coordinator (its states are the simulator's); a backend that keeps them to `keepMinutes` only
   * holds more dead fields.
   */
  activeMinutes?: number
  /** Field → amount to add. */
  deltas: Record<string, number>
  /**
   * Deltas applied at most once per key in the whole ROOM, whatever the concurrency, the number of workers,
   * processes and locations: each key is claimed in a room-wide registry (not a location's counts) in one
   * atomic step with the rest of the report; a key claimed earlier by another report is skipped, and the
   * claimant's deltas go to the reporting location. A claim is kept at least {@link onceRetentionMinutes} from
   * the moment it was made, whatever minute the key's deltas name. Keys are not count fields (`x.{ticketId}`).
   */
  once?: Record<string, Record<string, number>>
  /**
   * The highest generation of the room's epoch `epoch` (an id) this worker has seen, in answers and in the tickets
   * it served. A sync finding its state of that epoch at a lower generation — an older copy put back — marks the
   * room recovering in the report's minute and moves the generation past the one seen, in the same atomic step
   * ({@link nextGeneration}).
   */
  seen?: { epoch: string; generation: number }
  moves?: Move[] // renewals' moves (moves.ts), applied atomically with the report (a retry too): answered in `moved`
  /**
   * Reference traffic tables proposed for minutes this worker holds none for yet (reference.ts): each is stored
   * if its minute has none (first writer wins, room-wide) and answered in {@link RoomState.references}.
   */
  references?: TrafficReference[]
}

/**
 * The generation a sync stores. It is the version of the state's content: a sync that changes it (`changed`: a
 * report applied for the first time, with deltas or once keys) advances it by one; one that only reads (a cold
 * worker's first sync, a refresh, a retry) leaves it, so reading never hides an older copy. The state's
 * `current` is below the report's `seen` of the same epoch only in an older copy put back: `restored`, and the
 * generation jumps past what was seen, so the other workers' lower sightings do not mark it again. A sighting of
 * another epoch is `restored` too (a lost state: the room recovers), with no jump. Every
 * adapter that answers generations applies exactly this.
 */
export function nextGeneration(current: number, report: Pick<WorkerReport, 'seen'>, epochId: string, changed: boolean): { generation: number; restored: boolean } {
  const seen = report.seen
  const restored = seen !== undefined && seen.epoch === epochId && seen.generation > current
  // A sighting of another epoch: the reporting worker knew a state this one replaced (on a shared backend every
  // other epoch was lost — or, to a worker behind, replaced by this one). Marked here, in the step that creates
  // or reads the new state, rather than one report later by the worker: no other worker can grant from the new
  // state before it counts as recovering. The mark changes the state, so the generation advances.
  const otherEpoch = seen !== undefined && seen.epoch !== epochId
  return { generation: restored ? seen.generation + 1 : changed || otherEpoch ? current + 1 : current, restored: restored || otherEpoch }
}

/**
 * The latest minute of a loss mark (`R{m}`, positive) among `deltas`, undefined for none: an adapter keeps the
 * room's latest one beside the state, written with the mark, for its grants to read (`refusesWhileRecovering`).
 */
export function lostMinuteIn(deltas: Record<string, number>): number | undefined {
  let latest: number | undefined
  for (const field in deltas) {
    if (field.charCodeAt(0) !== 82 || !(deltas[field]! > 0)) continue
    const minute = fieldMinute(field)
    if (Number.isInteger(minute) && (latest === undefined || minute > latest)) latest = minute
  }
  return latest
}

/** Whether a report, applied, changes the state (the generation then advances). */
export const changesState = (r: WorkerReport): boolean => Object.keys(r.deltas).length > 0 || Object.keys(r.once ?? {}).length > 0 || (r.moves?.length ?? 0) > 0

/** The latest minute of a loss mark in any location of `state` (see {@link lostMinuteIn}). */
export function lostMinuteInState(state: RoomState): number | undefined {
  let latest: number | undefined
  for (const name in state.locations) {
    const minute = lostMinuteIn(state.locations[name]!.counts)
    if (minute !== undefined && (latest === undefined || minute > latest)) latest = minute
  }
  return latest
}

/**
 * The identity of a room's stored state. Written set-if-absent when a room's state is created; a backend that
 * loses its state (a Redis restarted without persistence, a SQLite file replaced) creates a new one, which
 * is how workers learn that the active count they see is not the whole truth.
 */
export interface RoomEpoch {
  /** Unique per creation (the creating report's id). */
  id: string
  /** ms at which this state was created, by the clock of the worker whose sync created it. */
  startedAt: number
  /**
   * True for a state that lives in one process (the memory coordinator): other processes hold states of their
   * own, so a session of another epoch may belong to one of those rather than to a lost state. Left out for a
   * shared backend, where every other epoch was this room's state before (or, to a worker behind, after) a loss.
   */
  local?: boolean
}

export const activeField = (minute: number): string => `a${minute}`
export const admittedField = (minute: number): string => `n${minute}`
export const anywhereAdmittedField = (minute: number): string => `y${minute}`
export const trafficField = (minute: number): string => `t${minute}`
export const waitingField = (minute: number, bucketId: number): string => `w${minute}.${bucketId}`

/** The marker of a ticket revoked in minute m (a count field, pruned with its minute). */
export const revokedField = (minute: number, ticketId: string): string => `x${minute}.${ticketId}`
/** The room-wide `once` key of a ticket's revocation: the ticket only, so every cookie of it has the same key. */
export const revocationKey = (ticketId: string): string => `x.${ticketId}`
/** The revocation key of a marker field (`x{m}.{id}` → `x.{id}`), undefined for other fields. */
export const revocationKeyOfField = (field: string): string | undefined =>
  field.charCodeAt(0) === 120 && field.charCodeAt(1) !== 46 ? `x${field.slice(field.indexOf('.'))}` : undefined
/**
 * How long a room-wide once claim is kept after it was made: the report's `keepMinutes` (session + history),
 * plus two. A revoked ticket's cookie outlives its revocation by at most a session plus the staleness of the
 * worker that last renewed it, so a second claim of the same key finds the first one as long as no worker
 * decided from a snapshot older than the extra history (six minutes) — see the README's Known limits.
 */
export const onceRetentionMinutes = (keepMinutes: number): number => keepMinutes + 2
export const lostStateField = (minute: number): string => `R${minute}`

/** The minute a field belongs to (`w123.120` → 123). */
export function fieldMinute(field: string): number {
  const dot = field.indexOf('.')
  return Number(dot === -1 ? field.slice(1) : field.slice(1, dot))
}

/** Adds `deltas` into `counts` in place, dropping fields that reach zero. */
export function addCounts(counts: Record<string, number>, deltas: Record<string, number>): void {
  for (const field in deltas) {
    const value = (counts[field] ?? 0) + deltas[field]!
    if (value === 0) delete counts[field]
    else counts[field] = value
  }
}

/**
 * Applies a report's `once` entries to `counts` in place, each whose key `claim` grants (true: this report is
 * the first in the room to claim it, or the same report again). The in-process form of the rule every
 * adapter follows atomically; `claim` is the room-wide registry.
 */
export function applyOnce(counts: Record<string, number>, once: WorkerReport['once'], claim: (key: string) => boolean): void {
  if (!once) return
  for (const key in once) if (claim(key)) addCounts(counts, once[key]!)
}

/**
 * A room's once registry in memory: key → [claiming report id, minute claimed]. A key is granted to the first
 * report that claims it and to that report again (a retry), until it is pruned `retention` minutes after.
 */
export class OnceRegistry {
  readonly #claims = new Map<string, { report: string; minute: number }>()
  #prunedMinute = Number.NEGATIVE_INFINITY

  claim(key: string, reportId: string, minute: number): boolean {
    const held = this.#claims.get(key)
    if (held) return held.report === reportId
    this.#claims.set(key, { report: reportId, minute })
    return true
  }

  /** Drops claims made before `oldestMinute` (insertion order is claim order, so it stops at the first kept one). */
  prune(oldestMinute: number): void {
    if (oldestMinute <= this.#prunedMinute) return
    this.#prunedMinute = oldestMinute
    for (const [key, held] of this.#claims) {
      if (held.minute >= oldestMinute) break
      this.#claims.delete(key)
    }
  }

  get size(): number {
    return this.#claims.size
  }
}

/** A new epoch for a state being created now (`local`: a state of this process only, see {@link RoomEpoch.local}). */
export const newEpoch = (id: string, at: number, local?: boolean): RoomEpoch => (local ? { id, startedAt: at, local } : { id, startedAt: at })

/**
 * Minutes back a room with sessions of `sessionDurationMinutes` reads active counts: a count lasts its span past
 * its position (positions.ts) and is read from `liveFrom`, which a worker whose clock or state is behind puts
 * earlier; two minutes more cover such a worker up to a minute behind. Positions fill up to 16 fields a minute,
 * so keeping them the whole history (session + 6 minutes) held most of a location's fields, all dead (issue 15).
 */
export const activeKeepMinutes = (sessionDurationMinutes: number): number => sessionDurationMinutes + 1 + 2

/** Deletes fields older than `oldestMinute`, and active counts older than `oldestActiveMinute`, in place. */
export function pruneCounts(counts: Record<string, number>, oldestMinute: number, oldestActiveMinute = oldestMinute): void {
  for (const field in counts) {
    const minute = fieldMinute(field)
    if (minute < oldestMinute || (minute < oldestActiveMinute && field.charCodeAt(0) === 97)) delete counts[field]
  }
}

/** An empty room state. */
export const emptyRoomState = (at = 0): RoomState => ({ locations: {}, at })
