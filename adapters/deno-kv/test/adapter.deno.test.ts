/**
 * What the conformance suite cannot see from outside: the check loop under contention from other isolates,
 * combined commits, reports split across commits, two's-complement counts, pruning in KV itself, and the
 * errors that tell a user how to fix their setup.
 */
import { WaitingRoomError } from '../../../src/errors.ts'
import type { WorkerReport } from '../../../src/coordination/state.ts'
import { denoKvCoordinator, openDenoKv, type KvLike } from '../index.ts'
import { expect } from './test-api.ts'
import { watched } from './watched-kv.ts'

const MINUTE = 29_405_520
const AT = MINUTE * 60_000

const report = (location: string, at: number, deltas: Record<string, number>, id: string = crypto.randomUUID()): WorkerReport => ({
  id,
  roomId: 'room',
  location,
  at,
  keepMinutes: 10,
  deltas,
})

Deno.test('isolates racing on one counter: the check loop keeps the bound and unique seqs', async () => {
  using kv = await Deno.openKv(':memory:')
  const { kv: shared, stats } = watched(kv)
  const isolates = Array.from({ length: 5 }, () => denoKvCoordinator(shared))
  const results = await Promise.all(
    Array.from({ length: 600 }, (_, i) =>
      isolates[i % 5]!.increment({ roomId: 'race', scope: 'fra', minute: MINUTE, limit: 200, token: `t${i}` }),
    ),
  )
  const seqs = new Set(results.filter((r) => r.taken).map((r) => r.seq))
  expect(seqs.size).toBe(200)
  expect(Math.max(...seqs)).toBe(199)
  expect(stats.conflicts).toBeGreaterThanOrEqual(1) // the race was real
  // A token retried through another isolate gets its first answer back.
  const winner = results.findIndex((r) => r.taken)
  const again = await isolates[(winner + 1) % 5]!.increment({ roomId: 'race', scope: 'fra', minute: MINUTE, limit: 200, token: `t${winner}` })
  expect(again.repeat).toBe(true)
  expect(again.seq).toBe(results[winner]!.seq)
})

Deno.test('processes sharing one database file keep the bound (three handles, three connections)', async () => {
  const dir = await Deno.makeTempDir({ prefix: 'wr-deno-kv-' })
  const handles = await Promise.all([1, 2, 3].map(() => Deno.openKv(`${dir}/shared.db`)))
  try {
    const coordinators = handles.map((kv) => denoKvCoordinator(kv))
    const results = await Promise.all(
      Array.from({ length: 450 }, (_, i) =>
        coordinators[i % 3]!.increment({ roomId: 'files', scope: 'fra', minute: MINUTE, limit: 150, token: `t${i}` }),
      ),
    )
    const seqs = new Set(results.filter((r) => r.taken).map((r) => r.seq))
    expect(seqs.size).toBe(150)
    expect(Math.max(...seqs)).toBe(149)
  } finally {
    for (const kv of handles) kv.close()
    await Deno.remove(dir, { recursive: true })
  }
})

Deno.test('overlapping calls in one isolate share commits', async () => {
  using kv = await Deno.openKv(':memory:')
  const { kv: counted, stats } = watched(kv)
  const coordinator = denoKvCoordinator(counted, { maxBatch: 100 })
  const results = await Promise.all(
    Array.from({ length: 300 }, (_, i) => coordinator.increment({ roomId: 'batch', scope: 'fra', minute: MINUTE, limit: 1000, token: `t${i}` })),
  )
  expect(results.filter((r) => r.taken).length).toBe(300)
  expect(stats.conflicts).toBe(0)
  expect(stats.commits).toBeLessThanOrEqual(5) // 1 + 96 + 96 + 96 + 11, not 300 (a check per token: 100 checks a commit, #14)
})

Deno.test('calls combined into one round each apply their own previousReported correction', async () => {
  using kv = await Deno.openKv(':memory:')
  const { kv: counted, stats } = watched(kv)
  const coordinator = denoKvCoordinator(counted, { maxBatch: 100 })
  const take = (minute: number, limit: number, token: string, previousReported?: number) =>
    coordinator.increment({ roomId: 'carry', scope: 'fra', minute, limit, token, previousReported })
  for (let i = 0; i < 4; i++) await take(MINUTE - 1, 10, `p${i}`)
  const commitsBefore = stats.commits
  // Limit 6 each; minute − 1 gave 4: uncorrected 6, reported 1 → 3, reported 4 → 6, reported 0 → 2.
  const results = await Promise.all([
    take(MINUTE, 6, 'a', 1),
    take(MINUTE, 6, 'b', 1),
    take(MINUTE, 6, 'c', 0), // seq 2 ≥ 2
    take(MINUTE, 6, 'd'),
    take(MINUTE, 6, 'e', 1), // seq 3 ≥ 3
    take(MINUTE, 6, 'f', 4),
  ])
  expect(results.map((r) => r.taken)).toEqual([true, true, false, true, false, true])
  expect(results.map((r) => r.seq)).toEqual([0, 1, 2, 2, 3, 3])
  expect(stats.commits - commitsBefore).toBe(2) // the first call alone, then the five that overlapped it
  // A late slot of minute − 1 lowers the limit of later calls.
  await take(MINUTE - 1, 10, 'late')
  expect((await take(MINUTE, 6, 'g', 1)).taken).toBe(false) // 6 − (5 − 1) = 2 ≤ seq 4
  expect((await take(MINUTE, 6, 'h', 5)).taken).toBe(true)
})

Deno.test('a counter that stays contended fails with a coordinator error', async () => {
  using kv = await Deno.openKv(':memory:')
  // Every commit loses to "another isolate".
  const losing: KvLike = {
    getMany: (keys, options) => kv.getMany(keys as Deno.KvKey[], options),
    list: (selector, options) => kv.list(selector as Deno.KvListSelector, options),
    atomic() {
      const op = { check: () => op, set: () => op, sum: () => op, max: () => op, delete: () => op, commit: () => Promise.resolve({ ok: false }) }
      return op
    },
  }
  const coordinator = denoKvCoordinator(losing, { maxAttempts: 2 })
  const error = await coordinator.increment({ roomId: 'r', scope: 'fra', minute: MINUTE, limit: 1, token: 't' }).catch((e) => e)
  expect(error instanceof WaitingRoomError && error.code).toBe('ERR_WR_COORDINATOR')
  expect(/contended after 2 attempts/.test(error.message)).toBe(true)
})

Deno.test('a big report is split across commits and each part applied once, even after a partial failure', async () => {
  using kv = await Deno.openKv(':memory:')
  const deltas: Record<string, number> = {}
  for (let b = 0; b < 1200; b++) deltas[`w${MINUTE}.${MINUTE - b}`] = 1
  // The second of three commits fails: the worker retries the same report (same id, same deltas).
  const flaky = watched(kv, 2)
  const coordinator = denoKvCoordinator(flaky.kv)
  const big = report('fra', AT, deltas, 'big-report')
  const error = await coordinator.sync(big).catch((e) => e)
  expect(error instanceof WaitingRoomError && /connection reset/.test(error.message)).toBe(true)
  await coordinator.sync(big)
  const view = await coordinator.sync(big)
  const counts = view.locations.fra!.counts
  expect(Object.keys(counts).length).toBe(1200)
  expect(Object.values(counts).every((n) => n === 1)).toBe(true)
})

Deno.test('counts below zero read back negative (two\'s complement sums)', async () => {
  using kv = await Deno.openKv(':memory:')
  const coordinator = denoKvCoordinator(kv)
  // A renewal's −1 may land before the +1 it undoes: the field is briefly negative, then right again.
  let view = await coordinator.sync(report('fra', AT, { [`a${MINUTE}`]: -3, [`t${MINUTE}`]: 2 }))
  expect(view.locations.fra!.counts).toEqual({ [`a${MINUTE}`]: -3, [`t${MINUTE}`]: 2 })
  view = await coordinator.sync(report('fra', AT + 1, { [`a${MINUTE}`]: 5, [`t${MINUTE}`]: -2 }))
  expect(view.locations.fra!.counts).toEqual({ [`a${MINUTE}`]: 2 })
})

Deno.test('expired fields and long-silent locations are deleted from KV, not just hidden', async () => {
  using kv = await Deno.openKv(':memory:')
  const coordinator = denoKvCoordinator(kv, { prefix: ['wr-test'] })
  await coordinator.sync(report('fra', AT, { [`a${MINUTE}`]: 1 }))
  await coordinator.sync(report('syd', AT, { [`a${MINUTE}`]: 1 }))
  const dayLater = AT + 25 * 60 * 60_000
  const view = await coordinator.sync(report('fra', dayLater, { [`a${MINUTE + 1500}`]: 1 }))
  expect(Object.keys(view.locations)).toEqual(['fra'])
  const stored: string[] = []
  for await (const entry of kv.list({ prefix: ['wr-test', 'room', 'state'] })) stored.push(entry.key.slice(3).join('/'))
  // The epoch (key part 0) and the generation (1) are kept: the room's identity and version, not counts.
  expect(stored).toEqual(['fra/@updated', `fra/a${MINUTE + 1500}`, '0', '1'])
  expect(view.locations.fra!.updatedAt).toBe(dayLater)
})

Deno.test('prefixes keep two coordinators on one database apart', async () => {
  using kv = await Deno.openKv(':memory:')
  const one = denoKvCoordinator(kv, { prefix: ['app', 1] })
  const two = denoKvCoordinator(kv, { prefix: ['app', 2] })
  await one.increment({ roomId: 'r', scope: 'fra', minute: MINUTE, limit: 1, token: 'a' })
  expect((await two.increment({ roomId: 'r', scope: 'fra', minute: MINUTE, limit: 1, token: 'b' })).taken).toBe(true)
  await one.sync(report('fra', AT, { [`a${MINUTE}`]: 1 }))
  expect((await two.sync(report('fra', AT, {}))).locations.fra!.counts).toEqual({})
})

Deno.test('errors say how to fix the setup', async () => {
  const codeAndMessage = (run: () => unknown): [string, string] => {
    try {
      run()
    } catch (error) {
      if (error instanceof WaitingRoomError) return [error.code, error.message]
      throw error
    }
    throw new Error('expected a WaitingRoomError')
  }
  const [code, missing] = codeAndMessage(() => denoKvCoordinator(undefined as unknown as KvLike))
  expect(code).toBe('ERR_WR_OPTIONS')
  expect(missing.includes('--unstable-kv')).toBe(true)
  const [, promise] = codeAndMessage(() => denoKvCoordinator(Deno.openKv(':memory:').then((kv) => kv.close()) as unknown as KvLike))
  expect(promise.includes('await Deno.openKv()')).toBe(true)
  const kv = await openDenoKv(':memory:')
  expect(codeAndMessage(() => denoKvCoordinator(kv, { maxBatch: 5000 }))[1].includes('maxBatch must be an integer from 1 to 998')).toBe(true)
  expect(codeAndMessage(() => denoKvCoordinator(kv, { prefix: [{} as string] }))[0]).toBe('ERR_WR_OPTIONS')
  kv.close()

  const closed = await Deno.openKv(':memory:')
  const coordinator = denoKvCoordinator(closed)
  closed.close()
  const error = await coordinator.increment({ roomId: 'r', scope: 'fra', minute: MINUTE, limit: 1, token: 't' }).catch((e) => e)
  expect(error instanceof WaitingRoomError && error.code).toBe('ERR_WR_COORDINATOR')
  expect(/deno-kv: reading a counter failed.*keep it open/.test(error.message)).toBe(true)
})
