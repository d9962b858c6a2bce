/**
 * The per-worker single-use memory used while the coordinator is down (src/challenge/local-claims.ts): an id is
 * accepted once for as long as any challenge issued with it can be answered, across minute turns.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LocalClaims } from '../src/challenge/local-claims.ts'
import { START } from './breaker/harness.ts'

describe('LocalClaims', () => {
  it('accepts each id once over the whole lifetime of a challenge, whatever the order of claims', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ id: fc.integer({ min: 0, max: 30 }), issuedOffset: fc.integer({ min: -30_000, max: 30_000 }), wait: fc.integer({ min: 0, max: 149_999 }) }), { maxLength: 80 }),
        (claims) => {
          // Each id is issued once; its claims come from 30 s before issue (a worker whose clock is behind the
          // issuer's) to the end of its 120 s life, in time order.
          const issuedAt = new Map<number, number>()
          const events = claims.map((c) => {
            const issued = issuedAt.get(c.id) ?? START + 300_000 + c.id * 7_000 + c.issuedOffset
            issuedAt.set(c.id, issued)
            return { id: c.id, issued, at: issued - 30_000 + c.wait }
          })
          events.sort((a, b) => a.at - b.at)
          const local = new LocalClaims()
          const accepted = new Set<number>()
          for (const e of events) {
            const first = local.claim(`nonce-${e.id}`, e.issued, e.at)
            expect(first).toBe(!accepted.has(e.id))
            accepted.add(e.id)
          }
        },
      ),
      { seed: 9, numRuns: 200 },
    )
  })

  it('refuses ids from minutes no live challenge can have been issued in', () => {
    const local = new LocalClaims()
    expect(local.claim('old', START, START + 4 * 60_000)).toBe(false)
    expect(local.claim('future', START + 3 * 60_000, START)).toBe(false)
    expect(local.claim('fresh', START + 10_000, START + 100_000)).toBe(true)
  })
})
