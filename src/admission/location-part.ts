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
  activeFrom: number
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
  activeUsers: number
  /** Of them, the sessions whose window ends with this minute (last check-in in the window's first minute). */
  endingThisMinute: number
  waitingUsers: number
  admittedThisMinute: number
  /** Bucket id → waiting users. */
  waitingByBucket: Map<number, number>
  /** Users seen in the reference minute; undefined when the location has no such field. */
  traffic: number | undefined
  /** Slots taken from this location's own counter and from Anywhere, this minute and the one before. */
  takenThis: Taken
  takenLast: Taken
  revoked: string[]
  recovering: boolean
  admissionsInAverage: number
  oldestAdmissionMinute: number
}

const cache = new WeakMap<Record<string, number>, { w: Windows; updatedAt: number; part: LocationPart }>()

/** Windows in use, one object per distinct set (a few per minute), so a cached part is found by identity. */
const interned = new Map<string, Windows>()
const INTERNED_KEPT = 64

/** The windows of `minute` (one object for equal windows: parts are cached by it). */
export function windowsOf(minute: number, activeFrom: number, waitingFrom: number, trafficAge: number, averageMinutes: number): Windows {
  const key = `${minute}|${activeFrom}|${waitingFrom}|${trafficAge}|${averageMinutes}`
  let w = interned.get(key)
  if (!w) {
    if (interned.size >= INTERNED_KEPT) interned.clear()
    interned.set(key, (w = { minute, activeFrom, waitingFrom, trafficMinute: minute - trafficAge, averageFrom: minute - averageMinutes }))
  }
  return w
}

/** The part of `counts` (last changed at `updatedAt`) in windows `w` (from {@link windowsOf}), cached per counts object. */
export function locationPart(counts: Record<string, number>, updatedAt: number, w: Windows): LocationPart {
  const hit = cache.get(counts)
  if (hit && hit.w === w && hit.updatedAt === updatedAt) return hit.part
  const part = computePart(counts, w)
  cache.set(counts, { w, updatedAt, part })
  return part
}

function computePart(counts: Record<string, number>, w: Windows): LocationPart {
  const part: LocationPart = {
    activeUsers: 0,
    endingThisMinute: 0,
    waitingUsers: 0,
    admittedThisMinute: 0,
    waitingByBucket: new Map(),
    traffic: undefined,
    takenThis: { local: 0, anywhere: 0, seen: false },
    takenLast: { local: 0, anywhere: 0, seen: false },
    revoked: [],
    recovering: false,
    admissionsInAverage: 0,
    oldestAdmissionMinute: w.minute,
  }
  const taken = (at: number, local: number, anywhere: number): void => {
    const into = at === w.minute ? part.takenThis : at === w.minute - 1 ? part.takenLast : undefined
    if (!into) return
    into.local += local
    into.anywhere += anywhere
    into.seen = true
  }
  for (const field in counts) {
    const value = counts[field]!
    const at = fieldMinute(field)
    switch (field.charCodeAt(0)) {
      case 97: // a: active. A minute after this one is a worker whose clock runs ahead: its sessions are live
        // too, so a worker behind it must not hand their places out again (no upper bound)
        if (at >= w.activeFrom) part.activeUsers += value
        if (at === w.activeFrom) part.endingThisMinute += value
        break
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
          part.waitingByBucket.set(bucketId, (part.waitingByBucket.get(bucketId) ?? 0) + value)
          part.waitingUsers += value
        }
        break
      case 120: // x: revoked ticket, marked in the minute of its revocation; kept a little past the session, so a
        // cookie a stale worker renewed after the revocation is still refused (pruning bounds the set)
        if (at >= w.activeFrom - REVOKED_MARGIN_MINUTES && value > 0) part.revoked.push(field.slice(field.indexOf('.') + 1))
        break
      case 82: // R: state lost in minute `at`; sessions counted before it last through at + sessionDuration
        if (at >= w.activeFrom - 1 && value > 0) part.recovering = true
        break
    }
  }
  return part
}
