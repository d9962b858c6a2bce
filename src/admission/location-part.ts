/**
 * @module
 * What one location's counts add to a snapshot, computed once per counts object and moment: a location whose
 * state did not change since the last snapshot (most of them, at 300 locations) costs a lookup, not a pass
 * over its fields. Counts handed out by an aggregator are never changed in place (copy on write), so an
 * object and its `updatedAt` name one content.
 */
import { fieldMinute } from '../coordination/state.ts'

/** Minutes past the session window a revocation marker still refuses its ticket (the link keeps 6 of history). */
const REVOKED_MARGIN_MINUTES = 5

/** The moment and windows a snapshot reads the fields in. */
export interface Windows {
  minute: number
  /** The first minute of the session window (revocation markers and lost-state marks are read by it). */
  activeFrom: number
  /** The last position whose count ends before the next minute starts. */
  endsBy: number
  waitingFrom: number
  trafficMinute: number
  averageFrom: number
}

/** Counter use in one minute; `seen` when the location had any admission field in it. */
export interface Taken {
  local: number
  anywhere: number
  seen: boolean
}

export interface LocationPart {
  /**
   * Active counts live all minute long and not ending before the minute after next: positions after
   * `endsBy + 1` (every `liveFrom` of the minute is at most `endsBy`: {@link ActiveWindow}).
   */
  steadyActive: number
  /**
   * The other active counts, flat: position, count, position, count… Which of them are live depends on the
   * moment and the state's time (`liveFrom`, a 3.75 s step), so a snapshot reads them ({@link activeOf},
   * totals.ts `activeTotals`) and the part stays one per counts object and minute. Made per `liveFrom`, the
   * parts of every location were made again every 3.75 s and per state time: ~300,000 held at once in planet,
   * most of its heap (issue 15).
   */
  edge: readonly number[]
  waitingUsers: number
  admittedThisMinute: number
  /**
   * Waiting users by bucket, flat: bucket id, users, bucket id, users… (one entry per bucket, in the order first
   * seen; read with {@link waitingIn}). A Map per part was a sixth of planet's heap (issue 15): the idle workers'
   * views keep tens of thousands of parts, most with one or two buckets.
   */
  waiting: readonly number[]
  /** Users seen in the reference minute; undefined when the location has no such field. */
  traffic: number | undefined
  /** Slots taken from this location's own counter and from Anywhere, this minute and the one before. */
  takenThis: Taken
  takenLast: Taken
  revoked: readonly string[]
  recovering: boolean
  admissionsInAverage: number
  oldestAdmissionMinute: number
}

/** A part as cached: with the windows and state time it was made for. */
interface CachedPart {
  w: Windows
  updatedAt: number
  part: LocationPart
}

/**
 * Counts object → its parts in the last two windows read. Two: a worker's plan for the minute before
 * (coordination/worker-link.ts `snapshotBefore`) reads the previous minute's windows while the others read the
 * current one; with one entry each read evicted the other's part and every location's was made again.
 */
const cache = new WeakMap<Record<string, number>, [CachedPart, CachedPart | undefined]>()

/**
 * Which counts are active: by position from `liveFrom` (coordination/positions.ts; never after `endsBy`), and
 * (`activeFrom`) by minute for what is kept a session long.
 */
export type ActiveWindow = Pick<Windows, 'activeFrom' | 'endsBy'> & { liveFrom: number }

/** No edge counts, no one waiting, no revocation (shared by the parts that have none). */
const NO_EDGE: readonly number[] = Object.freeze([])
const NO_WAITING: readonly number[] = NO_EDGE
const NO_REVOKED: readonly string[] = Object.freeze([])
/** A minute without admission fields (shared: never written, a part gets its own on its first such field). */
const NOT_TAKEN: Taken = Object.freeze({ local: 0, anywhere: 0, seen: false }) as Taken

/** A part's active users when counts from `liveFrom` are live. */
export function activeOf(part: LocationPart, liveFrom: number): number {
  let active = part.steadyActive
  const edge = part.edge
  for (let i = 0; i < edge.length; i += 2) if (edge[i]! >= liveFrom) active += edge[i + 1]!
  return active
}

/** The users waiting in `part` in bucket `bucketId` (undefined: no field of that bucket). */
export function waitingIn(part: LocationPart, bucketId: number): number | undefined {
  const waiting = part.waiting
  for (let i = 0; i < waiting.length; i += 2) if (waiting[i] === bucketId) return waiting[i + 1]
  return undefined
}

/** Windows in use, one object per distinct set (a few per minute), so a cached part is found by identity. */
const interned = new Map<string, Windows>()
const INTERNED_KEPT = 64

/** The windows of `minute` (one object for equal windows: parts are cached by it). */
export function windowsOf(minute: number, active: Pick<Windows, 'activeFrom' | 'endsBy'>, waitingFrom: number, trafficAge: number, averageMinutes: number): Windows {
  const { activeFrom, endsBy } = active
  const key = `${minute}|${activeFrom}|${endsBy}|${waitingFrom}|${trafficAge}|${averageMinutes}`
  let w = interned.get(key)
  if (!w) {
    if (interned.size >= INTERNED_KEPT) interned.clear()
    interned.set(key, (w = { minute, activeFrom, endsBy, waitingFrom, trafficMinute: minute - trafficAge, averageFrom: minute - averageMinutes }))
  }
  return w
}

/** The part of `counts` (last changed at `updatedAt`) in windows `w` (from {@link windowsOf}), cached per counts object. */
export function locationPart(counts: Record<string, number>, updatedAt: number, w: Windows): LocationPart {
  const hit = cache.get(counts)
  if (hit) {
    const [last, before] = hit
    if (last.w === w && last.updatedAt === updatedAt) return last.part
    if (before && before.w === w && before.updatedAt === updatedAt) {
      hit[0] = before
      hit[1] = last
      return before.part
    }
  }
  const part = computePart(counts, w)
  const made = { w, updatedAt, part }
  if (!hit) cache.set(counts, [made, undefined])
  else if (hit[0].w === w) hit[0] = made
  else [hit[1], hit[0]] = [hit[0], made]
  return part
}

const EDGE_SCRATCH: number[] = []
const WAITING_SCRATCH: number[] = []

function computePart(counts: Record<string, number>, w: Windows): LocationPart {
  const part: LocationPart = {
    steadyActive: 0,
    edge: NO_EDGE,
    waitingUsers: 0,
    admittedThisMinute: 0,
    waiting: NO_WAITING,
    traffic: undefined,
    takenThis: NOT_TAKEN,
    takenLast: NOT_TAKEN,
    revoked: NO_REVOKED,
    recovering: false,
    admissionsInAverage: 0,
    oldestAdmissionMinute: w.minute,
  }
  const taken = (at: number, local: number, anywhere: number): void => {
    const which = at === w.minute ? 'takenThis' : at === w.minute - 1 ? 'takenLast' : undefined
    if (!which) return
    let into = part[which]
    if (into === NOT_TAKEN) into = part[which] = { local: 0, anywhere: 0, seen: false }
    into.local += local
    into.anywhere += anywhere
    into.seen = true
  }
  // Gathered in shared scratch arrays and copied at their length: an array grown by push keeps room for 16 more
  // elements, and tens of thousands of parts stay held (issue 15).
  const edge = EDGE_SCRATCH
  const waiting = WAITING_SCRATCH
  edge.length = 0
  waiting.length = 0
  let revoked: string[] | undefined
  for (const field in counts) {
    const value = counts[field]!
    const at = fieldMinute(field)
    switch (field.charCodeAt(0)) {
      case 97: {
        // a: active, at a position (positions.ts). One after now is a worker whose clock runs ahead: its sessions
        // are live too, so a worker behind it must not hand their places out again (no upper bound)
        const position = Number(field.slice(1))
        if (position > w.endsBy + 1) part.steadyActive += value
        else edge.push(position, value)
        break
      }
      case 110: // n: admissions
        taken(at, value, 0)
        if (at === w.minute) part.admittedThisMinute += value
        else if (at >= w.averageFrom && at < w.minute) {
          part.admissionsInAverage += value
          if (at < part.oldestAdmissionMinute) part.oldestAdmissionMinute = at
        }
        break
      case 121: // y: admissions through the Anywhere counter, which are not the location counter's
        taken(at, -value, value)
        break
      case 116: // t: traffic
        if (at === w.trafficMinute) part.traffic = (part.traffic ?? 0) + value
        break
      case 119: // w: waiting
        if (at >= w.waitingFrom && at <= w.minute) {
          const bucketId = Number(field.slice(field.indexOf('.') + 1))
          let i = 0
          while (i < waiting.length && waiting[i] !== bucketId) i += 2
          if (i < waiting.length) waiting[i + 1] = waiting[i + 1]! + value
          else waiting.push(bucketId, value)
          part.waitingUsers += value
        }
        break
      case 120: // x: revoked ticket, marked in the minute of its revocation; kept a little past the session, so a
        // cookie a stale worker renewed after the revocation is still refused (pruning bounds the set)
        if (at >= w.activeFrom - REVOKED_MARGIN_MINUTES && value > 0) (revoked ??= []).push(field.slice(field.indexOf('.') + 1))
        break
      case 82: // R: state lost in minute `at`; sessions counted before it last through at + sessionDuration
        if (at >= w.activeFrom - 1 && value > 0) part.recovering = true
        break
    }
  }
  if (edge.length > 0) part.edge = edge.slice()
  if (waiting.length > 0) part.waiting = waiting.slice()
  if (revoked) part.revoked = revoked
  return part
}
