/**
 * `withTimeout`: a coordinator that does not answer is an outage, and one that already answered (the memory
 * coordinator) costs no timer — a timer armed and cleared per decision was a visible share of a flood's cost.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { withTimeout } from '../src/coordination/timeout.ts'

afterEach(() => vi.restoreAllMocks())

describe('withTimeout', () => {
  it('an answer already there: its value, and no timer armed', async () => {
    const armed = vi.spyOn(globalThis, 'setTimeout')
    await expect(withTimeout(Promise.resolve(7), 50, 'memory')).resolves.toBe(7)
    await expect(withTimeout(Promise.reject(new Error('down')), 50, 'memory')).rejects.toThrow('down')
    expect(armed).not.toHaveBeenCalled()
  })

  it('no answer: rejects with a coordinator error naming the adapter, after the deadline', async () => {
    const started = Date.now()
    const error = await withTimeout(new Promise(() => {}), 40, 'upstash').catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'ERR_WR_COORDINATOR', message: expect.stringContaining('upstash: no answer within 40 ms') })
    expect(Date.now() - started).toBeGreaterThanOrEqual(35)
  })

  it('a late answer within the deadline: its value, and its timer cleared', async () => {
    const cleared = vi.spyOn(globalThis, 'clearTimeout')
    const late = new Promise((resolve) => setTimeout(() => resolve('late'), 5))
    await expect(withTimeout(late, 200, 'memory')).resolves.toBe('late')
    expect(cleared).toHaveBeenCalled()
  })
})
