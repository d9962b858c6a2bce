/**
 * The opened-ticket cache: a hit is always the value remembered for that exact cookie text (never another
 * cookie's, even with the same key), the newest entries are kept, and the size stays bounded.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { OpenedTickets } from '../src/ticket/opened-tickets.ts'

describe('OpenedTickets', () => {
  it('answers only for the exact text: cookies sharing their last characters (one key) miss instead', () => {
    const cache = new OpenedTickets<string>(100)
    const tail = 'abcdefghijkl'
    cache.remember(`one.${tail}`, 'one')
    expect(cache.get(`one.${tail}`)).toBe('one')
    expect(cache.get(`two.${tail}`)).toBeUndefined()
    cache.remember(`two.${tail}`, 'two')
    expect(cache.get(`two.${tail}`)).toBe('two')
    expect(cache.get(`one.${tail}`)).toBeUndefined() // replaced: costs one open, never a wrong ticket
  })

  it('never returns a value remembered for another cookie, over generated sequences', () => {
    const cookie = fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), fc.constantFrom('xxxxxxxxxxxx', 'yyyyyyyyyyyy', 'zz')).map(([head, tail]) => `${head}.${tail}`)
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), cookie), { maxLength: 200 }), fc.integer({ min: 2, max: 8 }), (ops, size) => {
        const cache = new OpenedTickets<string>(size)
        for (const [write, text] of ops) {
          if (write) {
            cache.remember(text, `value of ${text}`)
            expect(cache.get(text)).toBe(`value of ${text}`)
          } else {
            expect([undefined, `value of ${text}`]).toContain(cache.get(text))
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it('keeps the newest half of its size, and what is still used; forgets the rest', () => {
    const cache = new OpenedTickets<number>(1000)
    for (let i = 0; i < 3000; i++) cache.remember(`cookie-${i}-${String(i).padStart(12, '0')}`, i)
    for (let i = 2500; i < 3000; i++) expect(cache.get(`cookie-${i}-${String(i).padStart(12, '0')}`)).toBe(i)
    let kept = 0
    for (let i = 0; i < 3000; i++) if (cache.get(`cookie-${i}-${String(i).padStart(12, '0')}`) !== undefined) kept++
    expect(kept).toBeLessThanOrEqual(1000)
    expect(cache.get(`cookie-0-${'0'.repeat(12)}`)).toBeUndefined()
  })
})
