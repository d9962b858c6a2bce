/**
 * @module
 * The sums a snapshot shows as single numbers, kept per base view as its parts are added and taken out
 * (snapshot-builder.ts), and a snapshot's few patched parts kept over a base view's sums without copying them.
 */
import { MINUTE_MS } from '../clock.ts'
import type { ActiveWindow, LocationPart } from './location-part.ts'
import { positiveEntries, type Bucket } from './snapshot.ts'

/** The sums over every location's part that a snapshot shows as single numbers. */
export interface Totals {
  /** Σ `LocationPart.steadyActive`. */
  steadyActive: number
  /** Position → the parts' edge counts there (LocationPart.edge): a few dozen positions, room-wide. */
  edge: Map<number, number>
  admittedThisMinute: number
  waitingUsers: number
  admissionsInAverage: number
  takenThisAnywhere: number
  takenLastAnywhere: number
  /** Parts that see a lost state. */
  recovering: number
  /** Bucket id → waiting users, all locations. */
  waitingByBucket: Map<number, number>
  /** A part's oldest admission minute (when before the current minute) → parts with it. */
  oldest: Map<number, number>
}

export const emptyTotals = (): Totals => ({
  steadyActive: 0,
  edge: new Map(),
  admittedThisMinute: 0,
  waitingUsers: 0,
  admissionsInAverage: 0,
  takenThisAnywhere: 0,
  takenLastAnywhere: 0,
  recovering: 0,
  waitingByBucket: new Map(),
  oldest: new Map(),
})

const bump = <K>(map: Map<K, number>, key: K, by: number): void => {
  const value = (map.get(key) ?? 0) + by
  if (value === 0) map.delete(key)
  else map.set(key, value)
}

/** Adds (`sign` 1) or takes out (−1) one location's part. Counts are whole numbers, so the sums stay exact. */
export function addPart(totals: Totals, part: LocationPart, sign: 1 | -1, minute: number): void {
  totals.steadyActive += sign * part.steadyActive
  const edge = part.edge
  for (let i = 0; i < edge.length; i += 2) bump(totals.edge, edge[i]!, sign * edge[i + 1]!)
  totals.admittedThisMinute += sign * part.admittedThisMinute
  totals.waitingUsers += sign * part.waitingUsers
  totals.admissionsInAverage += sign * part.admissionsInAverage
  totals.takenThisAnywhere += sign * part.takenThis.anywhere
  totals.takenLastAnywhere += sign * part.takenLast.anywhere
  if (part.recovering) totals.recovering += sign
  const waiting = part.waiting
  for (let i = 0; i < waiting.length; i += 2) bump(totals.waitingByBucket, waiting[i]!, sign * waiting[i + 1]!)
  if (part.oldestAdmissionMinute < minute) bump(totals.oldest, part.oldestAdmissionMinute, sign)
}

export const copyTotals = (t: Totals): Totals => ({ ...t, edge: new Map(t.edge), waitingByBucket: new Map(t.waitingByBucket), oldest: new Map(t.oldest) })

/**
 * `t`'s sums with empty maps, for a snapshot's few patched parts: its maps then hold only what those change, and
 * the snapshot reads them over `t`'s ({@link mergedBuckets}). Copying a base view's maps per build was a tenth of
 * planet's allocation (issue 15).
 */
export const totalsOver = (t: Totals): Totals => ({ ...t, edge: new Map(), waitingByBucket: new Map(), oldest: new Map() })

/** The maps a snapshot's totals were made over with {@link totalsOver} (each key's value: base + the totals'). */
export type BaseMaps = Pick<Totals, 'edge' | 'waitingByBucket' | 'oldest'>

/** What a snapshot shows of the active counts in `active` (snapshot.ts `activeWindow`) at `minute`. */
export interface ActiveTotals {
  activeUsers: number
  endingThisMinute: number
  endings: Map<number, number>
}

/**
 * The active counts of `totals` over `base`, read in `active`: every steady count, the edge counts from `liveFrom`;
 * of those, the ones at or before `endsBy` end this minute, and those up to `endsBy + 1` are listed by when they
 * end (ms, sorted). Whole numbers: the same sums as a pass over every part.
 */
export function activeTotals(totals: Totals, base: BaseMaps | undefined, active: ActiveWindow, minute: number): ActiveTotals {
  const { liveFrom, endsBy } = active
  const sums: ActiveTotals = { activeUsers: totals.steadyActive, endingThisMinute: 0, endings: new Map() }
  const add = (position: number, count: number): void => {
    if (position < liveFrom) return
    sums.activeUsers += count
    if (position <= endsBy) sums.endingThisMinute += count
    if (position > endsBy + 1) return
    // span = minute + 1 − endsBy (positions.ts); whole ms: positions are multiples of 3.75 s
    const at = Math.round((position + minute + 1 - endsBy) * MINUTE_MS)
    sums.endings.set(at, (sums.endings.get(at) ?? 0) + count)
  }
  const delta = totals.edge
  if (base) for (const [position, count] of base.edge) add(position, count + (delta.get(position) ?? 0))
  for (const [position, count] of delta) if (!base?.edge.has(position)) add(position, count)
  sums.endings = positiveEntries(sums.endings)
  return sums
}

/** Buckets with anyone waiting, `totals` over `base`: one entry per bucket id, sorted. */
export function mergedBuckets(totals: Totals, base: BaseMaps | undefined): Bucket[] {
  const buckets: Bucket[] = []
  const delta = totals.waitingByBucket
  if (base) {
    for (const [bucketId, at] of base.waitingByBucket) {
      const waiting = at + (delta.get(bucketId) ?? 0)
      if (waiting > 0) buckets.push({ bucketId, waiting })
    }
  }
  for (const [bucketId, waiting] of delta) if (waiting > 0 && !base?.waitingByBucket.has(bucketId)) buckets.push({ bucketId, waiting })
  return buckets.sort((x, y) => x.bucketId - y.bucketId)
}

/** The oldest admission minute any part holds (`minute` when none), `totals` over `base`. */
export function oldestOf(totals: Totals, base: BaseMaps | undefined, minute: number): number {
  let oldest = minute
  const delta = totals.oldest
  if (base) for (const [at, parts] of base.oldest) if (at < oldest && parts + (delta.get(at) ?? 0) !== 0) oldest = at
  for (const [at, parts] of delta) if (at < oldest && parts !== 0 && !base?.oldest.has(at)) oldest = at
  return oldest
}
