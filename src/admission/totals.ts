/**
 * @module
 * The sums a snapshot shows as single numbers, kept per base view as its parts are added and taken out
 * (snapshot-builder.ts), and a snapshot's few patched parts kept over a base view's sums without copying them.
 */
import type { LocationPart } from './location-part.ts'
import type { Bucket } from './snapshot.ts'

/** The sums over every location's part that a snapshot shows as single numbers. */
export interface Totals {
  activeUsers: number
  endingThisMinute: number
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
  activeUsers: 0,
  endingThisMinute: 0,
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
  totals.activeUsers += sign * part.activeUsers
  totals.endingThisMinute += sign * part.endingThisMinute
  totals.admittedThisMinute += sign * part.admittedThisMinute
  totals.waitingUsers += sign * part.waitingUsers
  totals.admissionsInAverage += sign * part.admissionsInAverage
  totals.takenThisAnywhere += sign * part.takenThis.anywhere
  totals.takenLastAnywhere += sign * part.takenLast.anywhere
  if (part.recovering) totals.recovering += sign
  for (const [bucketId, waiting] of part.waitingByBucket) bump(totals.waitingByBucket, bucketId, sign * waiting)
  if (part.oldestAdmissionMinute < minute) bump(totals.oldest, part.oldestAdmissionMinute, sign)
}

export const copyTotals = (t: Totals): Totals => ({ ...t, waitingByBucket: new Map(t.waitingByBucket), oldest: new Map(t.oldest) })

/**
 * `t`'s sums with empty maps, for a snapshot's few patched parts: its maps then hold only what those change, and
 * the snapshot reads them over `t`'s ({@link mergedBuckets}). Copying a base view's maps per build was a tenth of
 * planet's allocation (issue 15).
 */
export const totalsOver = (t: Totals): Totals => ({ ...t, waitingByBucket: new Map(), oldest: new Map() })

/** The maps a snapshot's totals were made over with {@link totalsOver} (each key's value: base + the totals'). */
export type BaseMaps = Pick<Totals, 'waitingByBucket' | 'oldest'>

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
