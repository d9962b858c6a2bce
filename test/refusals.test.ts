/**
 * A new user who cannot get a place costs no coordinator call (issue 16), and the refusals remembered for
 * that never refuse a request the counters would grant (src/room/pipeline/refusals.ts).
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { effectiveLimit } from '../src/coordination/coordinator.ts'
import { waitingRoom } from '../src/index.ts'
import { Refusals } from '../src/room/pipeline/refusals.ts'
import { countingCoordinator, START, TEST_SECRET } from './support/room-harness.ts'

describe('a flood against a full room', () => {
  it('asks the counters only for the requests in flight when the first refusal comes back, again once the minute turns', async () => {
    for (const inFlight of [1, 7, 25]) {
      let now = START + 59_000 // late in the minute: random queueing has released all of its slots
      const coordinator = countingCoordinator(memoryCoordinator())
      const options = { secret: TEST_SECRET, totalActiveUsers: 100, newUsersPerMinute: 1, queueingMethod: 'random' as const, clock: () => now, coordinator }
      const app = new Hono().use(waitingRoom(options)).get('/', (c) => c.text('ok'))
      const visit = async () => (await app.request('/')).text()
      expect(await visit()).toBe('ok') // the minute's one place
      const before = coordinator.calls.increment!
      for (let batch = 0; batch < 20; batch++) {
        const bodies = await Promise.all(Array.from({ length: inFlight }, visit))
        expect(bodies.filter((b) => b === 'ok')).toEqual([]) // all queued
      }
      // Two counters (the location's, then Anywhere) per slot request at most, for the first batch only.
      expect(coordinator.calls.increment! - before).toBeLessThanOrEqual(2 * inFlight)
      now += 60_000 // a new minute: its place goes to the first who asks (random queueing: new users too)
      expect(await visit()).toBe('ok')
    }
  })
})

describe('failMode open', () => {
  it('still asks after a refusal: a coordinator gone down meanwhile lets the next new user in (fail-open)', async () => {
    const inner = countingCoordinator(memoryCoordinator())
    let down = false
    const coordinator = { ...inner, increment: (r: Parameters<typeof inner.increment>[0]) => (down ? Promise.reject(new Error('down')) : inner.increment(r)) }
    const options = { secret: TEST_SECRET, totalActiveUsers: 100, newUsersPerMinute: 1, failMode: 'open' as const, clock: () => START + 59_000, coordinator }
    const app = new Hono().use(waitingRoom(options)).get('/', (c) => c.text('ok'))
    const visit = async () => (await app.request('/')).text()
    expect(await visit()).toBe('ok')
    expect(await visit()).not.toBe('ok') // refused by the counter
    down = true
    const warn = console.warn
    console.warn = () => {}
    try {
      expect(await visit()).toBe('ok') // asked, failed, let in
    } finally {
      console.warn = warn
    }
  })
})

/** The counters of one minute as the coordinator keeps them: they only grow. */
interface Counters {
  local: number
  anywhere: number
  localPrevious: number
  anywherePrevious: number
}
interface Asked {
  localLimit: number
  anywhereLimit: number
  localPreviousReported: number
  anywherePreviousReported: number
}
/** Whether the counters grant `asked` (the location's counter, then Anywhere's: coordinator.ts takeInOrder). */
function grants(counters: Counters, asked: Asked): boolean {
  const local = effectiveLimit(asked.localLimit, counters.localPrevious, asked.localPreviousReported)
  const anywhere = effectiveLimit(asked.anywhereLimit, counters.anywherePrevious, asked.anywherePreviousReported)
  return (asked.localLimit > 0 && counters.local < local) || (asked.anywhereLimit > 0 && counters.anywhere < anywhere)
}

describe('Refusals', () => {
  const small = fc.integer({ min: 0, max: 3 })
  const asked = fc.record({ localLimit: small, anywhereLimit: small, localPreviousReported: small, anywherePreviousReported: small })
  const step = fc.oneof(
    fc.record({ ask: asked, location: fc.constantFrom('a', 'b') }),
    fc.record({ grow: fc.constantFrom<keyof Counters>('local', 'anywhere', 'localPrevious', 'anywherePrevious'), location: fc.constantFrom('a', 'b') }),
  )

  /** Every request with limits and previously-reported counts in 0..3. */
  const GRID: Asked[] = []
  for (let n = 0; n < 256; n++) GRID.push({ localLimit: n & 3, anywhereLimit: (n >> 2) & 3, localPreviousReported: (n >> 4) & 3, anywherePreviousReported: n >> 6 })

  it('refuses only what the counters refuse, for generated sequences of requests and grants in one minute', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const refusals = new Refusals()
        const counters: Record<string, Counters> = {
          a: { local: 0, anywhere: 0, localPrevious: 0, anywherePrevious: 0 },
          b: { local: 0, anywhere: 0, localPrevious: 0, anywherePrevious: 0 },
        }
        for (const s of steps) {
          const c = counters[s.location]!
          if ('grow' in s) c[s.grow]++
          else if (!grants(c, s.ask)) refusals.note(s.location, 7, s.ask)
          // After every step, no request of the grid is refused that the counters would grant.
          for (const location of ['a', 'b']) {
            const wrong = GRID.find((ask) => refusals.refuses(location, 7, ask) && grants(counters[location]!, ask))
            expect(wrong).toBeUndefined()
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it('forgets its refusals when the minute changes', () => {
    const refusals = new Refusals()
    const ask = { localLimit: 3, anywhereLimit: 0, localPreviousReported: 0, anywherePreviousReported: 0 }
    refusals.note('a', 7, ask)
    expect(refusals.refuses('a', 7, ask)).toBe(true)
    expect(refusals.refuses('a', 8, ask)).toBe(false)
    expect(refusals.refuses('b', 7, ask)).toBe(false)
    expect(refusals.refuses('a', 7, { ...ask, localLimit: 4 })).toBe(false)
    expect(refusals.refuses('a', 7, { ...ask, localPreviousReported: 1 })).toBe(false)
  })
})
