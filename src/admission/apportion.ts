/**
 * @module
 * A house-monotone split of the minute's slots (issue 15): every counter's limit — each location's allocation
 * and the Anywhere pool — only grows as the slots do, so a slot one counter granted under an earlier, smaller
 * split is never handed to another counter again. Rounded-down shares are not house-monotone: 9 → 10 slots
 * over five locations of 18% each allocate 5 → 5 but 11 → 12 allocate 5 → 10, so the Anywhere pool shrinks
 * from 6 to 2 while it may already have granted 6 — an overshoot no lagging view can see coming.
 *
 * How: slot number k of the minute (1, 2, …) goes to one party, in an order every worker computes alike.
 * Location i's j-th slot falls due at slot `ceil(j · D / w_i)` — the first slot count whose rounded-down share
 * (seed 000) reaches j — and due slots are handed out oldest first (ties by name), one per slot number; a slot
 * number with none due goes to Anywhere. So each location gets its rounded-down share, at most a few slots
 * late where several shares round up at once, and the Anywhere pool gets the rest (at least what rounding left
 * it before). The allocation of n slots is the first n of that order, hence monotone by construction.
 *
 * Past {@link EXACT_SLOTS} slots (a cost bound: the order is built slot by slot) the locations together get the
 * rounded-down share of the further slots, split among them by Jefferson's divisor method (house-monotone too).
 */
export interface Allocation {
  /** Slots reserved per location that had traffic in the reference minute. */
  locations: Record<string, number>
  /** The shared pool for everyone else (and for a location whose own slots are used up). */
  anywhere: number
}

/** Slots ordered one by one; beyond, shares of the further slots (the order costs O(slots · log locations)). */
export const EXACT_SLOTS = 8192

interface Due {
  /** Slot number at which this location's next slot falls due. */
  at: number
  rank: number
  /** How many slots of this location have fallen due so far, this one included. */
  j: number
}

/** One traffic table's order of slots, extended as larger slot counts are asked for. */
export class Apportionment {
  readonly #traffic: Record<string, number>
  /** Locations with positive weight, sorted by name: every worker ranks them alike, whatever the key order. */
  readonly #names: string[]
  readonly #weights: number[]
  readonly #denominator: number
  readonly #weightSum: number
  /** Per ranked location, the slot numbers it received, ascending. */
  readonly #given: number[][]
  readonly #due: Due[] = []
  /** The last slot number handed to a location. */
  #last = 0

  constructor(traffic: Record<string, number>, totalActiveUsers: number) {
    this.#traffic = traffic
    let seen = 0
    for (const name in traffic) seen += Math.max(0, traffic[name]!)
    // Shares of the limit, or of the locations' sum when they saw more users than the limit (seed 000).
    this.#denominator = Math.max(totalActiveUsers, seen, 1)
    this.#weightSum = seen
    this.#names = Object.keys(traffic).filter((name) => traffic[name]! > 0).sort(byCodeUnits)
    this.#weights = this.#names.map((name) => traffic[name]!)
    this.#given = this.#names.map(() => [])
    this.#names.forEach((_, rank) => this.#push({ at: this.#dueAt(rank, 1), rank, j: 1 }))
  }

  /** The split of `slots` (whole, ≥ 0): for every location of the traffic table, and the Anywhere pool. */
  at(slots: number): Allocation {
    const exact = Math.min(slots, EXACT_SLOTS)
    this.#extend(exact)
    const counts = this.#given.map((given) => countAtMost(given, exact))
    if (slots > EXACT_SLOTS) {
      const further = Math.floor(((slots - EXACT_SLOTS) * this.#weightSum) / this.#denominator)
      const extra = jefferson(further, this.#weights, this.#weightSum)
      for (let rank = 0; rank < counts.length; rank++) counts[rank]! += extra[rank]!
    }
    const locations: Record<string, number> = {}
    for (const name in this.#traffic) locations[name] = 0
    let given = 0
    for (let rank = 0; rank < counts.length; rank++) {
      locations[this.#names[rank]!] = counts[rank]!
      given += counts[rank]!
    }
    return { locations, anywhere: slots - given }
  }

  /** Hands out every slot number up to `slots` that a location has due. */
  #extend(slots: number): void {
    const due = this.#due
    while (due.length > 0) {
      const next = due[0]!
      const slot = Math.max(next.at, this.#last + 1)
      if (slot > slots) return
      this.#given[next.rank]!.push(slot)
      this.#last = slot
      next.j++
      next.at = this.#dueAt(next.rank, next.j)
      siftDown(due, 0)
    }
  }

  /** The first slot count n whose rounded-down share reaches j: ceil(j·D / w), in exact integer steps. */
  #dueAt(rank: number, j: number): number {
    const w = this.#weights[rank]!
    const needed = j * this.#denominator
    let n = Math.ceil(needed / w)
    while ((n - 1) * w >= needed) n--
    while (n * w < needed) n++
    return n
  }

  #push(entry: Due): void {
    const due = this.#due
    due.push(entry)
    let i = due.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!before(due[i]!, due[parent]!)) break
      ;[due[i], due[parent]] = [due[parent]!, due[i]!]
      i = parent
    }
  }
}

const byCodeUnits = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0)

/** Heap order: the slot that fell due first, then the location ranked first. */
const before = (x: Due, y: Due): boolean => x.at < y.at || (x.at === y.at && x.rank < y.rank)

function siftDown(heap: Due[], i: number): void {
  for (;;) {
    const left = 2 * i + 1
    const right = left + 1
    let least = i
    if (left < heap.length && before(heap[left]!, heap[least]!)) least = left
    if (right < heap.length && before(heap[right]!, heap[least]!)) least = right
    if (least === i) return
    ;[heap[i], heap[least]] = [heap[least]!, heap[i]!]
    i = least
  }
}

/** How many of the ascending `values` are ≤ `limit`. */
function countAtMost(values: readonly number[], limit: number): number {
  let low = 0
  let high = values.length
  while (low < high) {
    const middle = (low + high) >> 1
    if (values[middle]! <= limit) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * Jefferson's (D'Hondt's) split of `seats` by `weights`: each next seat to the highest w / (seats so far + 1),
 * ties to the lower rank. Started from the rounded-down quotas, which that order always reaches (lower quota),
 * so at most one seat per weight is left to place one by one. Whole-number cross products: exact.
 */
export function jefferson(seats: number, weights: readonly number[], weightSum: number): number[] {
  const result = weights.map((w) => (weightSum > 0 ? Math.floor((seats * w) / weightSum) : 0))
  let left = seats - result.reduce((sum, s) => sum + s, 0)
  while (left > 0 && weights.length > 0) {
    let best = 0
    for (let r = 1; r < weights.length; r++) {
      if (weights[r]! * (result[best]! + 1) > weights[best]! * (result[r]! + 1)) best = r
    }
    result[best]!++
    left--
  }
  return result
}

/** Apportionments per traffic table and limit (a table is shared while no location's reference traffic changes). */
const kept = new WeakMap<Record<string, number>, Map<number, Apportionment>>()

/** The apportionment of `traffic` under `totalActiveUsers`, made once per table and limit. */
export function apportionmentOf(traffic: Record<string, number>, totalActiveUsers: number): Apportionment {
  let byLimit = kept.get(traffic)
  if (!byLimit) kept.set(traffic, (byLimit = new Map()))
  let apportionment = byLimit.get(totalActiveUsers)
  if (!apportionment) byLimit.set(totalActiveUsers, (apportionment = new Apportionment(traffic, totalActiveUsers)))
  return apportionment
}
