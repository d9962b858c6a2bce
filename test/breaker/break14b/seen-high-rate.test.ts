/**
 * break14b — issue #14 item 9: replay dedupe at high ticket rates. 1,200,000 distinct ticket ids in one minute
 * (past the 200,000 exact ids, into the Bloom filter), each replayed afterwards, interleaved with the minute
 * turning (a late request of the minute before). Claims: a replay is never counted twice; a genuine first
 * check-in is missed with probability under 0.1% at 1,000,000 distinct tickets a minute; memory bounded.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { SeenSet } from '../../../src/coordination/seen-set.ts'

describe('break14b: the seen-set at 1.2 M distinct tickets a minute', () => {
  it('no replay counted twice; genuine misses under 0.1% at 1 M; the minute after starts clean', () => {
    const seen = new SeenSet()
    const M = 29_000_000
    const ids = Array.from({ length: 1_200_000 }, () => randomBytes(12).toString('base64url'))
    let missedAt1M = 0
    for (let i = 0; i < ids.length; i++) {
      if (!seen.first(ids[i]!, M) && i < 1_000_000) missedAt1M++
    }
    let replaysCounted = 0
    for (const id of ids) if (seen.first(id, M)) replaysCounted++
    // The minute turns; late requests of minute M (replays) must not count either.
    expect(seen.first('fresh-next-minute', M + 1)).toBe(true)
    let lateCounted = 0
    for (let i = 0; i < 300_000; i++) if (seen.first(ids[i]!, M) ) lateCounted++
    // The new minute: every id is a first check-in again, exactly once.
    let nextFirst = 0
    for (let i = 0; i < 100_000; i++) if (seen.first(ids[i]!, M + 1)) nextFirst++
    for (let i = 0; i < 100_000; i++) if (seen.first(ids[i]!, M + 1)) nextFirst++
    console.log({ missedAt1M, replaysCounted, lateCounted, nextFirst })
    expect(replaysCounted).toBe(0)
    expect(lateCounted).toBe(0)
    expect(missedAt1M / 1_000_000).toBeLessThan(0.001)
    expect(nextFirst).toBe(100_000)
  }, 60_000)
})
