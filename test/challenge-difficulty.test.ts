/**
 * Proof-of-work difficulty limits (breaker `bots`, issue 17): past 24 bits no browser answers within a
 * challenge's lifetime (README "Bots"), so the option refuses it; below, a building room warns when the
 * average browser time (at the measured ~18,000 hashes/s) is over half the challenge's lifetime.
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { proofOfWork } from '../src/index.ts'
import { BROWSER_HASHES_PER_SECOND, MAX_DIFFICULTY } from '../src/challenge/proof-of-work.ts'

afterEach(() => vi.restoreAllMocks())

describe('proofOfWork() difficulty limits', () => {
  it('refuses difficulty or maxDifficulty past 24, naming the field and the range', () => {
    expect(MAX_DIFFICULTY).toBe(24)
    fc.assert(
      fc.property(fc.integer({ min: 25, max: 64 }), (bits) => {
        expect(() => proofOfWork({ difficulty: bits })).toThrow(/invalid option challenge\.provider difficulty: an integer from 1 to 24/)
        expect(() => proofOfWork({ difficulty: 8, maxDifficulty: bits })).toThrow(/invalid option challenge\.provider maxDifficulty: an integer from 8 to 24/)
      }),
      { seed: 24 },
    )
  })

  it('warns exactly when a browser needs more than half the lifetime on average', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24 }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 10, max: 120 }), (difficulty, extra, ttlSeconds) => {
        const max = Math.min(MAX_DIFFICULTY, difficulty + extra)
        warn.mockClear()
        proofOfWork({ difficulty, maxDifficulty: max, ttlSeconds })
        const slow = 2 ** max / BROWSER_HASHES_PER_SECOND > ttlSeconds / 2
        expect(warn.mock.calls.length).toBe(slow ? 1 : 0)
        if (slow) expect(String(warn.mock.calls[0]![0])).toMatch(new RegExp(`difficulty ${max}: a browser needs about \\d+ s`))
      }),
      { seed: 20 },
    )
    // The measured table's edge: 20 bits fit the default 120 s, 21 do not.
    warn.mockClear()
    proofOfWork({ difficulty: 20 })
    expect(warn).not.toHaveBeenCalled()
    proofOfWork({ difficulty: 16, maxDifficulty: 21 })
    expect(warn).toHaveBeenCalledOnce()
  })
})
