/**
 * The minute's split of slots is house-monotone (issue 15, apportion.ts): on generated traffic tables — 1 to 300
 * locations, Pareto shares, limits above and below the traffic seen — no counter's limit ever shrinks as the
 * slots grow, the parts add up to the slots, and each location gets its rounded-down share up to a bounded lag.
 * The same checks find the defect in plain rounded-down shares (the split before this module).
 */
import { describe, expect, it } from 'vitest'
import { EXACT_SLOTS, jefferson } from '../src/admission/apportion.ts'
import { seededRandom } from '../src/admission/plan.ts'
import { allocateSlots, type Allocation } from '../src/admission/slots.ts'

type Split = (slots: number, traffic: Record<string, number>, totalActiveUsers: number) => Allocation

/** The split before apportion.ts: rounded-down shares, the Anywhere pool the rest. */
const roundedDown: Split = (slots, traffic, total) => {
  let seen = 0
  for (const name in traffic) seen += traffic[name]!
  const denominator = Math.max(total, seen, 1)
  const locations: Record<string, number> = {}
  let given = 0
  for (const name in traffic) given += locations[name] = Math.floor((slots * traffic[name]!) / denominator)
  return { locations, anywhere: slots - given }
}

function generatedRoom(seed: string): { traffic: Record<string, number>; total: number } {
  const random = seededRandom(seed)
  const count = 1 + Math.floor(random() ** 2 * 300)
  const traffic: Record<string, number> = {}
  for (let i = 0; i < count; i++) {
    const weight = Math.floor(1 / Math.pow(1 - random() * 0.99, 1 / (1 + random())))
    if (random() < 0.9) traffic[`loc${Math.floor(random() * 1e6)}`] = weight
  }
  let seen = 0
  for (const name in traffic) seen += traffic[name]!
  // Limits below the traffic seen (shares of the sum: little for Anywhere) and well above it.
  const total = Math.max(1, Math.floor(seen * (0.3 + random() * 3)))
  return { traffic, total }
}

/** The first defect of `split` over slot counts `from`…`to`, or undefined. */
function defect(split: Split, traffic: Record<string, number>, total: number, from: number, to: number): string | undefined {
  let previous = split(from, traffic, total)
  for (let n = from + 1; n <= to; n++) {
    const next = split(n, traffic, total)
    let sum = next.anywhere
    if (next.anywhere < previous.anywhere) return `Anywhere ${previous.anywhere} → ${next.anywhere} at ${n - 1} → ${n} slots`
    for (const name in traffic) {
      const now = next.locations[name]!
      sum += now
      if (now < 0 || now < previous.locations[name]!) return `${name} ${previous.locations[name]} → ${now} at ${n - 1} → ${n} slots`
    }
    if (sum !== n || next.anywhere < 0) return `parts add up to ${sum}, not ${n}`
    previous = next
  }
  return undefined
}

const SEEDS = Array.from({ length: 40 }, (_, i) => `split-${i}`)

describe('house-monotone split of the slots', () => {
  it.each(SEEDS)('room %s: no part shrinks as slots grow, parts add up', (seed) => {
    const { traffic, total } = generatedRoom(seed)
    expect(defect(allocateSlots, traffic, total, 0, 600)).toBeUndefined()
    // Across the switch to shares of the further slots, and far beyond it.
    expect(defect(allocateSlots, traffic, total, EXACT_SLOTS - 50, EXACT_SLOTS + 50)).toBeUndefined()
    expect(defect(allocateSlots, traffic, total, 1_000_000, 1_000_030)).toBeUndefined()
  })

  it('the checks can fail: plain rounded-down shares shrink the Anywhere pool in most generated rooms', () => {
    const failing = SEEDS.filter((seed) => {
      const { traffic, total } = generatedRoom(seed)
      return defect(roundedDown, traffic, total, 0, 600) !== undefined
    })
    expect(failing.length).toBeGreaterThan(SEEDS.length / 2)
    // The README's example: five locations of 18% each.
    const five = { a: 18, b: 18, c: 18, d: 18, e: 18 }
    expect(defect(roundedDown, five, 100, 9, 12)).toMatch(/Anywhere/)
    expect(defect(allocateSlots, five, 100, 0, 2000)).toBeUndefined()
  })

  it.each(SEEDS)('room %s: each location gets its rounded-down share, a bounded number of slots late', (seed) => {
    const { traffic, total } = generatedRoom(seed)
    const names = Object.keys(traffic)
    let seen = 0
    for (const name of names) seen += traffic[name]!
    const denominator = Math.max(total, seen, 1)
    for (const n of [1, 7, 60, 333, 1000, EXACT_SLOTS]) {
      const split = allocateSlots(n, traffic, total)
      let late = 0
      for (const name of names) {
        const share = Math.floor((n * traffic[name]!) / denominator)
        expect(split.locations[name]).toBeLessThanOrEqual(share)
        late += share - split.locations[name]!
      }
      // Slots fall due at most one per location per slot number: the backlog stays below the location count.
      expect(late).toBeLessThan(Math.max(1, names.length))
      expect(split.anywhere).toBeGreaterThanOrEqual(roundedDown(n, traffic, total).anywhere)
    }
  })

  it('the same split whatever order the traffic table lists its locations in (every worker agrees)', () => {
    for (const seed of SEEDS.slice(0, 10)) {
      const { traffic, total } = generatedRoom(seed)
      const reversed = Object.fromEntries(Object.entries(traffic).reverse())
      for (const n of [5, 50, 500, EXACT_SLOTS + 777]) expect(allocateSlots(n, reversed, total)).toEqual(allocateSlots(n, traffic, total))
    }
  })

  it("Jefferson's split equals giving seats one by one to the highest w / (seats + 1)", () => {
    const random = seededRandom('jefferson')
    for (let round = 0; round < 200; round++) {
      const weights = Array.from({ length: 1 + Math.floor(random() * 8) }, () => 1 + Math.floor(random() * 50))
      const sum = weights.reduce((s, w) => s + w, 0)
      const seats = Math.floor(random() * 120)
      const oneByOne = weights.map(() => 0)
      for (let s = 0; s < seats; s++) {
        let best = 0
        for (let r = 1; r < weights.length; r++) if (weights[r]! * (oneByOne[best]! + 1) > weights[best]! * (oneByOne[r]! + 1)) best = r
        oneByOne[best]!++
      }
      expect(jefferson(seats, weights, sum)).toEqual(oneByOne)
    }
  })
})
