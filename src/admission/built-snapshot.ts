/**
 * @module
 * The snapshot the builder (./snapshot-builder.ts) hands out: sums kept as the builder goes, and per-location
 * tables made on first read from frozen copies of its parts (a decision reads few of them, and most snapshots
 * are replaced by the next sync before anyone reads them).
 */
import { MINUTE_MS } from '../clock.ts'
import type { LocationState } from '../coordination/state.ts'
import { activeOf, waitingIn, type ActiveWindow, type LocationPart } from './location-part.ts'
import type { Bucket, LocationSummary, Snapshot, WaitingAt } from './snapshot.ts'
import { baseSum, pair, takenView, type Layout } from './snapshot-layout.ts'
import { activeTotals, mergedBuckets, oldestOf, type BaseMaps, type Totals } from './totals.ts'

/** A location's reference traffic table, made on first read and shared while no location's traffic changes. */
export interface TrafficTable {
  record: Record<string, number> | undefined
}

/**
 * A snapshot over a base view's arrays (shared, never changed) and the few locations it puts in their place
 * (snapshot-layout.ts): no per-location copy per snapshot. The per-location tables are made on first read;
 * the lookups and sums a decision needs are answered without them.
 */
export class BuiltSnapshot implements Snapshot {
  readonly minute: number
  readonly activeUsers: number
  readonly endingThisMinute: number
  readonly endings: ReadonlyMap<number, number>
  readonly admittedThisMinute: number
  readonly waitingUsers: number
  readonly admissionsPerMinute: number
  readonly recovering: boolean
  readonly stateAt: number
  readonly buckets: Bucket[]
  readonly #layout: Layout
  readonly #anywhere: { this: number; last: number }
  readonly #traffic: TrafficTable
  /** The first position live in this snapshot (location tables read the parts' edge counts from it). */
  readonly #liveFrom: number
  #locations: Record<string, LocationSummary> | undefined
  #takenThis: Snapshot['takenThisMinute'] | undefined
  #takenLast: Snapshot['takenLastMinute'] | undefined
  #waitingAt: WaitingAt | undefined
  #behind: string[] | undefined
  #revoked: Set<string> | undefined

  /**
   * `active`: which counts are live (snapshot.ts `activeWindow`); `base`: the maps `totals` was made over
   * ({@link totalsOver}); without it `totals`' maps are whole.
   */
  constructor(minute: number, stateAt: number, totals: Totals, active: ActiveWindow, layout: Layout, traffic: TrafficTable, base?: BaseMaps) {
    this.minute = minute
    this.stateAt = stateAt
    const live = activeTotals(totals, base, active, minute)
    this.activeUsers = Math.max(0, live.activeUsers)
    this.endingThisMinute = Math.max(0, live.endingThisMinute)
    this.endings = live.endings
    this.#liveFrom = active.liveFrom
    this.admittedThisMinute = Math.max(0, totals.admittedThisMinute)
    this.waitingUsers = Math.max(0, totals.waitingUsers)
    this.recovering = totals.recovering > 0
    // Average over the minutes the room has existed, up to five: a young room is not diluted by empty history.
    const oldest = oldestOf(totals, base, minute)
    this.admissionsPerMinute = minute - oldest > 0 ? totals.admissionsInAverage / (minute - oldest) : 0
    this.buckets = mergedBuckets(totals, base)
    this.#anywhere = { this: totals.takenThisAnywhere, last: totals.takenLastAnywhere }
    this.#layout = layout
    this.#traffic = traffic
  }

  #partAt(i: number): LocationPart | undefined {
    const { patched, parts } = this.#layout
    return patched.size > 0 && patched.has(i) ? patched.get(i)!.part : parts[i]
  }

  #stateAt(i: number): LocationState | undefined {
    const { patched, states } = this.#layout
    return patched.size > 0 && patched.has(i) ? patched.get(i)!.state : states[i]
  }

  #partOf(location: string): LocationPart | undefined {
    const { index, names, parts } = this.#layout
    const i = index.get(location) ?? names.indexOf(location, parts.length)
    return i === -1 ? undefined : this.#partAt(i)
  }

  /** Calls `each` with every location's name and part, in the state's order. */
  #each(each: (name: string, part: LocationPart, index: number) => void): void {
    const { names } = this.#layout
    for (let i = 0; i < names.length; i++) {
      const part = this.#partAt(i)
      if (part) each(names[i]!, part, i)
    }
  }

  get traffic(): Record<string, number> {
    if (this.#traffic.record) return this.#traffic.record
    const traffic: Record<string, number> = {}
    this.#each((name, p) => {
      if (p.traffic !== undefined) traffic[name] = p.traffic
    })
    return (this.#traffic.record = traffic)
  }

  get locations(): Record<string, LocationSummary> {
    if (this.#locations) return this.#locations
    const locations: Record<string, LocationSummary> = {}
    this.#each((name, p) => (locations[name] = { activeUsers: activeOf(p, this.#liveFrom), waitingUsers: p.waitingUsers, admittedThisMinute: p.admittedThisMinute }))
    return (this.#locations = locations)
  }

  get takenThisMinute(): Snapshot['takenThisMinute'] {
    return (this.#takenThis ??= takenView(this.#anywhere.this, () => this.#taken('takenThis')))
  }

  get takenLastMinute(): Snapshot['takenLastMinute'] {
    return (this.#takenLast ??= takenView(this.#anywhere.last, () => this.#taken('takenLast')))
  }

  #taken(which: 'takenThis' | 'takenLast'): Record<string, number> {
    const locations: Record<string, number> = {}
    this.#each((name, p) => {
      if (p[which].seen) locations[name] = p[which].local
    })
    return locations
  }

  takenThisAt(location: string): number | undefined {
    const taken = this.#partOf(location)?.takenThis
    return taken?.seen ? taken.local : undefined
  }

  takenLastAt(location: string): number | undefined {
    const taken = this.#partOf(location)?.takenLast
    return taken?.seen ? taken.local : undefined
  }

  takenBeyond(allocations: Readonly<Record<string, number>>): number {
    const beyond = (name: string, p: LocationPart | undefined) => (p?.takenThis.seen ? Math.max(0, p.takenThis.local - (allocations[name] ?? 0)) : 0)
    return baseSum(this.#layout, this.#layout.sums.beyond, allocations, (name, part) => pair(beyond(name, part), 0))[0]
  }

  untakenBehind(allocations: Readonly<Record<string, number>>): { behind: number; untaken: number } {
    const start = this.minute * MINUTE_MS
    const [untaken, behind] = baseSum(this.#layout, this.#layout.sums.behind, allocations, (name, part, state) =>
      part && state!.updatedAt < start ? pair(Math.max(0, (allocations[name] ?? 0) - (part.takenLast.seen ? part.takenLast.local : 0)), 1) : pair(0, 0),
    )
    return { behind, untaken }
  }

  /**
   * Made per bucket when asked: a plan asks only for the buckets its slots reach, and a snapshot lives until the
   * worker's next decision. Every bucket's table at once, per snapshot, was a tenth of planet's time and most of
   * its garbage (issue 15). Each table lists locations in the state's order, as a full rebuild does.
   */
  get waitingAt(): WaitingAt {
    if (this.#waitingAt) return this.#waitingAt
    const tables = new Map<number, Map<string, number> | undefined>()
    const tableOf = (bucketId: number): Map<string, number> | undefined => {
      let at: Map<string, number> | undefined
      this.#each((name, p) => {
        const waiting = waitingIn(p, bucketId)
        if (waiting !== undefined && waiting > 0) (at ??= new Map()).set(name, waiting)
      })
      return at
    }
    return (this.#waitingAt = {
      get: (bucketId) => {
        if (!tables.has(bucketId)) tables.set(bucketId, tableOf(bucketId))
        return tables.get(bucketId)
      },
    })
  }

  get behind(): string[] {
    if (this.#behind) return this.#behind
    const start = this.minute * MINUTE_MS
    const behind: string[] = []
    this.#each((name, _, i) => {
      if (this.#stateAt(i)!.updatedAt < start) behind.push(name)
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
