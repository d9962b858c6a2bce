/**
 * Found by a breaker: two workers whose clocks differ (200 ms was enough) straddle a minute boundary; the one
 * behind, still in minute m, did not count the sessions the one ahead had counted in minute m+1 and handed
 * their places out again — 6 admitted into a room of 3, on memory, SQLite (2 processes) and Redis. A snapshot
 * now counts sessions of later minutes as live. Generated skews, directions and fleets below.
 */
import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { sqliteStoreCoordinator } from '../../adapters/bun-sqlite/node.ts'
import { fromNodeRedis, upstashCoordinator } from '../../adapters/upstash/index.ts'
import { connectTestRedis, deleteKeys, testPrefix } from '../../adapters/upstash/test/redis.ts'
import { memoryCoordinator, worker, START, type Coordinator } from './harness.ts'

const dir = mkdtempSync(join(tmpdir(), 'wr-skew-'))
const cleanup: (() => Promise<void> | void)[] = []
afterAll(async () => { for (const f of cleanup) await f(); rmSync(dir, { recursive: true, force: true }) })

async function scenario(pair: () => Promise<[Coordinator, Coordinator]>, skewMs: number) {
  const base = { now: START + 59_000 }
  const behind = { get now() { return base.now - skewMs }, set now(_v: number) {} }
  const [c0, c1] = await pair()
  const w0 = worker(c0, behind, { sessionDurationMinutes: 30 })
  const w1 = worker(c1, base, { sessionDurationMinutes: 30 })
  await w0.room.room.flush(); await w1.room.room.flush()
  base.now = START + 60_000 // w1 in minute 1, w0 still in minute 0 (skewMs behind)
  const got: string[] = []
  for (let i = 0; i < 6; i++) {
    const r = await [w0, w1][i % 2]!.request()
    got.push(`${i % 2 ? 'w1' : 'w0'}:${r.reason ?? 'queued'}`)
    await w0.room.room.flush(); await w1.room.room.flush()
  }
  return got
}

const memory = async (): Promise<[Coordinator, Coordinator]> => { const c = memoryCoordinator(); return [c, c] }
const sqlite = async (): Promise<[Coordinator, Coordinator]> => {
  const path = join(dir, `skew-${Math.random()}.db`)
  const a = sqliteStoreCoordinator(path), b = sqliteStoreCoordinator(path)
  cleanup.push(() => { a.close(); b.close() })
  return [a, b]
}
const redis = async (): Promise<[Coordinator, Coordinator]> => {
  const [x, y] = [await connectTestRedis(), await connectTestRedis()]
  const prefix = testPrefix('guar-skew')
  cleanup.push(async () => { await deleteKeys(x, prefix); await x.quit(); await y.quit() })
  return [upstashCoordinator(fromNodeRedis(x), { prefix }), upstashCoordinator(fromNodeRedis(y), { prefix })]
}

describe('clock skew across a minute boundary (room of 3, 6 newcomers alternating)', () => {
  it.each([['memory', memory], ['sqlite', sqlite], ['redis', redis]] as const)('%s, skew 1.6 s', async (name, pair) => {
    const got = await scenario(pair, 1610)
    expect(got.filter((g) => g.endsWith(':slot')).length).toBeLessThanOrEqual(3)
  }, 30_000)
  it.each([200, 1000, 5000, 30_000])('memory, skew %i ms', async (skew) => {
    const got = await scenario(memory, skew)
    expect(got.filter((g) => g.endsWith(':slot')).length).toBeLessThanOrEqual(3)
  })
})

describe('clock skew: the worker ahead fills the room first, then the one 200 ms behind', () => {
  it.each([['memory', memory], ['sqlite', sqlite], ['redis', redis]] as const)('%s', async (name, pair) => {
    const base = { now: START + 59_000 }
    const behind = { get now() { return base.now - 200 }, set now(_v: number) {} }
    const [c0, c1] = await pair()
    const w0 = worker(c0, behind, { sessionDurationMinutes: 30 })
    const w1 = worker(c1, base, { sessionDurationMinutes: 30 })
    await w0.room.room.flush(); await w1.room.room.flush()
    base.now = START + 60_100 // w1 in minute 1; w0 at 59.9 s, still minute 0
    let slots = 0
    for (const w of [w1, w1, w1, w1, w0, w0, w0, w0]) { if ((await w.request()).reason === 'slot') slots++; await w0.room.room.flush(); await w1.room.room.flush() }
    expect(slots).toBeLessThanOrEqual(3)
  }, 30_000)
})

describe('generated clock skews (memory): never more than the limit, whatever the skews and the order', () => {
  // Each request comes 5 s after the last, so every worker decides on a fresh snapshot (older ones are
  // re-synced first): what is left is the skew itself. A worker's stale snapshot is the documented lag.
  it('2–4 workers, clocks off by up to ±30 s, newcomers spread over them across minute boundaries', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: -30_000, max: 30_000 }), { minLength: 2, maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 4, maxLength: 12 }),
        fc.integer({ min: 55_000, max: 65_000 }),
        async (skews, order, at) => {
          const base = { now: START + 50_000 }
          const c = memoryCoordinator()
          const fleet = skews.map((skew) => worker(c, { get now() { return base.now + skew }, set now(_v: number) {} }, { sessionDurationMinutes: 30 }))
          for (const w of fleet) await w.room.room.flush()
          base.now = START + at
          let slots = 0
          for (const pick of order) {
            base.now += 5_001
            if ((await fleet[pick % fleet.length]!.request()).reason === 'slot') slots++
            for (const w of fleet) await w.room.room.flush()
          }
          expect(slots).toBeLessThanOrEqual(3)
        },
      ),
      { numRuns: 60, seed: 14 },
    )
  }, 60_000)
})
