/**
 * The shim must be able to fail: a matcher that never throws would pass the conformance suite vacuously.
 */
import { afterAll, beforeAll, deepEqual, describe, expect, it } from './test-api.ts'

const throws = (run: () => void): boolean => {
  try {
    run()
    return false
  } catch {
    return true
  }
}

Deno.test('matchers throw on a mismatch and pass on a match', () => {
  const cases: [string, () => void, boolean][] = [
    ['toBe same', () => expect(1).toBe(1), false],
    ['toBe different', () => expect(1).toBe(2), true],
    ['toBe is not deep', () => expect({}).toBe({}), true],
    ['toEqual deep', () => expect({ a: [1, { b: 2 }] }).toEqual({ a: [1, { b: 2 }] }), false],
    ['toEqual differs deep', () => expect({ a: [1, { b: 2 }] }).toEqual({ a: [1, { b: 3 }] }), true],
    ['toEqual extra key', () => expect({ a: 1, b: 2 }).toEqual({ a: 1 }), true],
    ['toEqual ignores undefined', () => expect({ a: 1, b: undefined }).toEqual({ a: 1 }), false],
    ['toEqual array vs object', () => expect([1]).toEqual({ 0: 1 }), true],
    ['toEqual undefined vs object', () => expect(undefined).toEqual({}), true],
    ['>= holds', () => expect(2).toBeGreaterThanOrEqual(2), false],
    ['>= fails', () => expect(1).toBeGreaterThanOrEqual(2), true],
    ['>= on a non-number', () => expect('3').toBeGreaterThanOrEqual(2), true],
    ['<= holds', () => expect(2).toBeLessThanOrEqual(2), false],
    ['<= fails', () => expect(3).toBeLessThanOrEqual(2), true],
    ['undefined holds', () => expect(undefined).toBeUndefined(), false],
    ['undefined fails', () => expect(0).toBeUndefined(), true],
  ]
  const wrong = cases.filter(([, run, shouldThrow]) => throws(run) !== shouldThrow).map(([name]) => name)
  if (wrong.length > 0) throw new Error(`matchers misbehave: ${wrong.join(', ')}`)
  if (!deepEqual(new Map(), new Map()) || deepEqual(new Date(0), {})) throw new Error('deepEqual compares prototypes')
})

// Hooks run once around a describe's steps, nested describes included, in order.
const order: string[] = []
describe('shim hooks', () => {
  beforeAll(() => void order.push('before'))
  it('first', () => void order.push('first'))
  describe('nested', () => {
    it('second', () => void order.push('second'))
  })
  afterAll(() => {
    order.push('after')
    if (order.join(',') !== 'before,first,second,after') throw new Error(`hooks ran as ${order.join(',')}`)
  })
})
