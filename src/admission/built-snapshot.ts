/**
 * @module
 * The snapshot the builder (./snapshot-builder.ts) hands out: sums kept as the builder goes, and per-location
 * tables made on first read from frozen copies of its parts (a decision reads few of them, and most snapshots
 * are replaced by the next sync before anyone reads them).
 */
import { MINUTE_MS } from '../clock.ts'
import type { LocationState } from '../coordination/state.ts'
import type { LocationPart } from './location-part.ts'
import type { Bucket, LocationSummary, Snapshot } from './snapshot.ts'

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

/** A location's reference traffic table, made on first read and shared while no location's traffic changes. */
export interface TrafficTable {
  record: Record<string, number> | undefined
}

function trafficOf(names: readonly string[], parts: readonly (LocationPart | undefined)[]): Record<string, number> {
  const traffic: Record<string, number> = {}
  for (let i = 0; i < parts.length; i++) {
    const value = parts[i]?.traffic
    if (value !== undefined) traffic[names[i]!] = value
  }
  return traffic
}

/** A snapshot over frozen copies of the builder's parts: the per-location tables are made on first read. */
export class BuiltSnapshot implements Snapshot {
  readonly minute: number
  readonly activeUsers: number
  readonly endingThisMinute: number
  readonly admittedThisMinute: number
  readonly waitingUsers: number
  readonly admissionsPerMinute: number
  readonly recovering: boolean
  readonly stateAt: number
  readonly buckets: Bucket[]
  readonly #names: readonly string[]
  readonly #parts: readonly (LocationPart | undefined)[]
  readonly #states: readonly (LocationState | undefined)[]
  readonly #anywhere: { this: number; last: number }
  readonly #traffic: TrafficTable
  #locations: Record<string, LocationSummary> | undefined
  #takenThis: Snapshot['takenThisMinute'] | undefined
  #takenLast: Snapshot['takenLastMinute'] | undefined
  #waitingAt: Map<number, Map<string, number>> | undefined
  #behind: string[] | undefined
  #revoked: Set<string> | undefined

  constructor(
    minute: number,
    stateAt: number,
    totals: Totals,
    names: readonly string[],
    parts: readonly (LocationPart | undefined)[],
    states: readonly (LocationState | undefined)[],
    traffic: TrafficTable,
  ) {
    this.minute = minute
    this.stateAt = stateAt
    this.activeUsers = Math.max(0, totals.activeUsers)
    this.endingThisMinute = Math.max(0, totals.endingThisMinute)
    this.admittedThisMinute = Math.max(0, totals.admittedThisMinute)
    this.waitingUsers = Math.max(0, totals.waitingUsers)
    this.recovering = totals.recovering > 0
    // Average over the minutes the room has existed, up to five: a young room is not diluted by empty history.
    let oldest = minute
    for (const at of totals.oldest.keys()) if (at < oldest) oldest = at
    this.admissionsPerMinute = minute - oldest > 0 ? totals.admissionsInAverage / (minute - oldest) : 0
    const buckets: Bucket[] = []
    for (const [bucketId, waiting] of totals.waitingByBucket) if (waiting > 0) buckets.push({ bucketId, waiting })
    this.buckets = buckets.sort((x, y) => x.bucketId - y.bucketId)
    this.#anywhere = { this: totals.takenThisAnywhere, last: totals.takenLastAnywhere }
    this.#names = names
    this.#parts = parts
    this.#states = states
    this.#traffic = traffic
  }

  /** Calls `each` with every location's name and part, in the state's order. */
  #each(each: (name: string, part: LocationPart, index: number) => void): void {
    const parts = this.#parts
    for (let i = 0; i < parts.length; i++) if (parts[i]) each(this.#names[i]!, parts[i]!, i)
  }

  get traffic(): Record<string, number> {
    return (this.#traffic.record ??= trafficOf(this.#names, this.#parts))
  }

  get locations(): Record<string, LocationSummary> {
    if (this.#locations) return this.#locations
    const locations: Record<string, LocationSummary> = {}
    this.#each((name, p) => (locations[name] = { activeUsers: p.activeUsers, waitingUsers: p.waitingUsers, admittedThisMinute: p.admittedThisMinute }))
    return (this.#locations = locations)
  }

  get takenThisMinute(): Snapshot['takenThisMinute'] {
    return (this.#takenThis ??= this.#taken('takenThis', this.#anywhere.this))
  }

  get takenLastMinute(): Snapshot['takenLastMinute'] {
    return (this.#takenLast ??= this.#taken('takenLast', this.#anywhere.last))
  }

  #taken(which: 'takenThis' | 'takenLast', anywhere: number): Snapshot['takenThisMinute'] {
    const locations: Record<string, number> = {}
    this.#each((name, p) => {
      if (p[which].seen) locations[name] = p[which].local
    })
    return { locations, anywhere }
  }

  get waitingAt(): Map<number, Map<string, number>> {
    if (this.#waitingAt) return this.#waitingAt
    const waitingAt = new Map<number, Map<string, number>>()
    this.#each((name, p) => {
      for (const [bucketId, waiting] of p.waitingByBucket) {
        if (waiting <= 0) continue
        let at = waitingAt.get(bucketId)
        if (!at) waitingAt.set(bucketId, (at = new Map()))
        at.set(name, waiting)
      }
    })
    return (this.#waitingAt = waitingAt)
  }

  get behind(): string[] {
    if (this.#behind) return this.#behind
    const start = this.minute * MINUTE_MS
    const behind: string[] = []
    this.#each((name, _, i) => {
      if (this.#states[i]!.updatedAt < start) behind.push(name)
    })
    return (this.#behind = behind)
  }

  get revoked(): Set<string> {
    if (this.#revoked) return this.#revoked
    const revoked = new Set<string>()
    this.#each((_, p) => {
      for (const id of p.revoked) revoked.add(id)
    })
    return (this.#revoked = revoked)
  }
}
