/**
 * The coordinator contract's three atomic rules on Deno KV, under the contention the conformance suite
 * cannot produce: a grant's admission counted in the counter's own commit (isolates racing, commits that
 * fail, rounds with hundreds of locations), `once` keys applied once (20 reports at once over two
 * connections, reports split over several commits), and the room epoch (racing creators, a file closed and
 * opened again, a room deleted).
 */
import { seededRandom } from '../../../src/admission/plan.ts'
import { ANYWHERE, type CounterRequest, type CounterResult } from '../../../src/coordination/coordinator.ts'
import type { RoomState, WorkerReport } from '../../../src/coordination/state.ts'
import { nextRound } from '../counters.ts'
import { denoKvCoordinator } from '../index.ts'
import { MAX_CHECKS, MAX_MUTATIONS } from '../kv.ts'
import { reportChunks } from '../report.ts'
import { expect } from './test-api.ts'
import { watched } from './watched-kv.ts'

const MINUTE = 29_405_520
const AT = MINUTE * 60_000
const a = `a${MINUTE}`
const n = `n${MINUTE}`
const y = `y${MINUTE}`

const report = (location: string, at: number, deltas: Record<string, number>, once?: WorkerReport['once']): WorkerReport => ({
  id: crypto.randomUUID(),
  roomId: 'room',
  location,
  at,
  keepMinutes: 10,
  deltas,
  ...(once ? { once } : {}),
})

/** Adds what the fresh grants of `results` must have added to each location's counts. */
function expectedCounts(requests: CounterRequest[], results: CounterResult[]): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {}
  results.forEach((result, i) => {
    if (!result.taken || result.repeat) return
    const request = requests[i]!
    const location = (counts[request.location!] ??= {})
    for (const field of request.scope === ANYWHERE ? [a, n, y] : [a, n]) location[field] = (location[field] ?? 0) + 1
  })
  return counts
}

const countsOf = (view: RoomState) => Object.fromEntries(Object.entries(view.locations).map(([name, state]) => [name, state.counts]))

Deno.test('racing isolates: every fresh grant is counted in its location once, repeats add nothing', async () => {
  using kv = await Deno.openKv(':memory:')
  const { kv: shared, stats } = watched(kv)
  const isolates = Array.from({ length: 4 }, () => denoKvCoordinator(shared))
  const locations = ['fra', 'ams', 'syd']
  const requests: CounterRequest[] = Array.from({ length: 800 }, (_, i) =>
    i % 2
      ? { roomId: 'room', scope: 'fra', location: 'fra', minute: MINUTE, limit: 150, token: `l${i}` }
      : { roomId: 'room', scope: ANYWHERE, location: locations[i % 3]!, minute: MINUTE, limit: 100, token: `w${i}` },
  )
  const results = await Promise.all(requests.map((request, i) => isolates[i % 4]!.increment(request)))
  expect(results.filter((r) => r.taken).length).toBe(250)
  expect(stats.conflicts).toBeGreaterThanOrEqual(1) // the race was real
  // Every token again, through another isolate: all repeats, nothing more counted.
  const again = await Promise.all(requests.map((request, i) => isolates[(i + 1) % 4]!.increment(request)))
  expect(again.every((r, i) => r.taken === results[i]!.taken && (!r.taken || r.repeat === true))).toBe(true)
  const view = await isolates[0]!.sync(report('fra', AT, {}))
  expect(countsOf(view)).toEqual(expectedCounts(requests, results))
  expect(view.locations.fra!.counts[n]).toBe(150 + (view.locations.fra!.counts[y] ?? 0))
})

Deno.test('a counter commit that fails takes neither the slot nor its count; the retry counts once', async () => {
  using kv = await Deno.openKv(':memory:')
  const flaky = watched(kv, 1)
  const request: CounterRequest = { roomId: 'room', scope: 'fra', location: 'fra', minute: MINUTE, limit: 1, token: 't' }
  const error = await denoKvCoordinator(flaky.kv).increment(request).catch((e) => e)
  expect(/connection reset/.test(String(error?.message))).toBe(true)
  const probe = denoKvCoordinator(kv)
  expect(countsOf(await probe.sync(report('fra', AT, {})))).toEqual({ fra: {} })
  expect(await probe.increment(request)).toEqual({ taken: true, seq: 0 })
  expect(await probe.increment(request)).toEqual({ taken: true, seq: 0, repeat: true })
  expect(countsOf(await probe.sync(report('fra', AT + 1, {})))).toEqual({ fra: { [a]: 1, [n]: 1 } })
})

Deno.test('a round of hundreds of locations splits to fit 1000 mutations and 100 checks a commit, and counts each', async () => {
  // The round sizes, for queues of one location and of all different ones.
  for (const distinct of [1, 2, 998]) {
    const queue = Array.from({ length: 998 }, (_, i) => ({ request: { location: `l${i % distinct}` } as CounterRequest }))
    const round = nextRound(queue, 998)
    const mutations = 1 + round.length + 4 * new Set(round.map((w) => w.request.location)).size
    const checks = 4 + round.length // the round's own, then one per token checked absent (#14)
    expect(mutations).toBeLessThanOrEqual(MAX_MUTATIONS)
    expect(checks).toBeLessThanOrEqual(MAX_CHECKS)
    expect(mutations + 5 > MAX_MUTATIONS || checks + 1 > MAX_CHECKS).toBe(true) // no smaller than it has to be
  }
  using kv = await Deno.openKv(':memory:')
  const coordinator = denoKvCoordinator(kv, { maxBatch: 998 })
  const results = await Promise.all(
    Array.from({ length: 600 }, (_, i) =>
      coordinator.increment({ roomId: 'room', scope: ANYWHERE, location: `l${i}`, minute: MINUTE, limit: 1e6, token: `t${i}` }),
    ),
  )
  expect(results.every((r) => r.taken && !r.repeat)).toBe(true)
  const view = await coordinator.sync(report('l0', AT, {}))
  expect(Object.keys(view.locations).length).toBe(600)
  expect(Object.values(view.locations).every((state) => state.counts[a] === 1 && state.counts[n] === 1 && state.counts[y] === 1)).toBe(true)
})

Deno.test('20 reports at once carrying one once key, over two connections and four isolates, apply it once', async () => {
  const dir = await Deno.makeTempDir({ prefix: 'wr-deno-kv-' })
  const handles = await Promise.all([1, 2].map(() => Deno.openKv(`${dir}/once.db`)))
  try {
    const isolates = handles.flatMap((kv) => [denoKvCoordinator(kv), denoKvCoordinator(kv)])
    await isolates[0]!.sync(report('fra', AT, { [a]: 100 }))
    for (let round = 0; round < 5; round++) {
      // Room-wide keys name the ticket; the marker field (dated) travels in the entry's deltas.
      const key = `x.ticket-${round}`
      const other = `x.other-${round}`
      const entry = { [a]: -1, [`x${MINUTE}.ticket-${round}`]: 1 }
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          isolates[i % 4]!.sync(report('fra', AT + i, { [`t${MINUTE}`]: 1 }, i % 2 ? { [key]: entry } : { [key]: entry, [other]: { [a]: -2 } })),
        ),
      )
    }
    const counts = (await isolates[3]!.sync(report('fra', AT + 100, {}))).locations.fra!.counts
    expect(counts[a]).toBe(100 - 5 * 3)
    expect(counts[`t${MINUTE}`]).toBe(100)
    for (let round = 0; round < 5; round++) expect(counts[`x${MINUTE}.ticket-${round}`]).toBe(1)
  } finally {
    for (const kv of handles) kv.close()
    await Deno.remove(dir, { recursive: true })
  }
})

Deno.test('a report with more once keys than a commit may check is split; each key applies once, after a failure too', async () => {
  using kv = await Deno.openKv(':memory:')
  const keys = Array.from({ length: 150 }, (_, i) => `x.t${String(i).padStart(3, '0')}`)
  const marked = (key: string) => ({ [a]: -1, [`x${MINUTE}.${key.slice(2)}`]: 1 })
  const once = Object.fromEntries(keys.map((key) => [key, marked(key)]))
  const big = report('fra', AT, { [a]: 1000 }, once)
  // The second of its two commits fails; the worker retries the same report.
  const flaky = watched(kv, 2)
  expect(/connection reset/.test(String((await denoKvCoordinator(flaky.kv).sync(big).catch((e) => e))?.message))).toBe(true)
  const coordinator = denoKvCoordinator(kv)
  await coordinator.sync(big)
  // The same keys in another report, and ten new ones: only the new ten count.
  const more = Object.fromEntries([...keys, ...Array.from({ length: 10 }, (_, i) => `x.new${i}`)].map((key) => [key, marked(key)]))
  const counts = (await coordinator.sync(report('fra', AT + 1, {}, more))).locations.fra!.counts
  expect(counts[a]).toBe(1000 - 160)
  expect(Object.keys(counts).filter((key) => key.startsWith('x')).length).toBe(160)
})

Deno.test('reports split the same way every time, within the commit limits, nothing lost (generated reports)', () => {
  for (let seed = 0; seed < 200; seed++) {
    const random = seededRandom(`chunks-${seed}`)
    const deltas: Record<string, number> = {}
    const once: Record<string, Record<string, number>> = {}
    for (let i = Math.floor(random() * 1500); i > 0; i--) deltas[`w${MINUTE}.${i}`] = Math.floor(random() * 5) - 2
    for (let i = Math.floor(random() * 400); i > 0; i--) once[`x${MINUTE}.k${i}`] = random() < 0.5 ? { [a]: -1 } : { [a]: -1, [`t${MINUTE}`]: 1 }
    const fieldsPerCommit = 1 + Math.floor(random() * 600)
    const chunks = reportChunks(report('fra', AT, deltas, once), fieldsPerCommit)
    expect(chunks).toEqual(reportChunks(report('fra', AT, { ...deltas }, { ...once }), fieldsPerCommit))
    for (const chunk of chunks) {
      const mutations = chunk.fields.length + chunk.once.reduce((sum, key) => sum + 1 + Object.keys(once[key]!).length, 0)
      expect(mutations).toBeLessThanOrEqual(Math.max(fieldsPerCommit, 3))
      expect(chunk.once.length).toBeLessThanOrEqual(99)
    }
    expect(chunks.flatMap((c) => c.fields)).toEqual(Object.keys(deltas).filter((f) => deltas[f] !== 0).sort())
    expect(chunks.flatMap((c) => c.once)).toEqual(Object.keys(once).sort())
  }
})

Deno.test('the first syncs of a room race to create its epoch: one report names it and every answer agrees', async () => {
  using kv = await Deno.openKv(':memory:')
  const isolates = [denoKvCoordinator(kv), denoKvCoordinator(kv), denoKvCoordinator(kv, { stateConsistency: 'eventual' })]
  const reports = Array.from({ length: 20 }, (_, i) => report(['fra', 'ams'][i % 2]!, AT + i, { [a]: 1 }))
  const views = await Promise.all(reports.map((r, i) => isolates[i % 3]!.sync(r)))
  const epoch = views[0]!.epoch!
  expect(views.every((view) => view.epoch?.id === epoch.id && view.epoch.startedAt === epoch.startedAt)).toBe(true)
  const creator = reports.find((r) => r.id === epoch.id)
  expect(creator?.at).toBe(epoch.startedAt)
})

Deno.test('a file closed and opened again answers the same epoch, counters, counts and once keys', async () => {
  const dir = await Deno.makeTempDir({ prefix: 'wr-deno-kv-' })
  const path = `${dir}/durable.db`
  try {
    const request: CounterRequest = { roomId: 'room', scope: 'fra', location: 'fra', minute: MINUTE, limit: 1, token: 'first' }
    let kv = await Deno.openKv(path)
    expect((await denoKvCoordinator(kv).increment(request)).taken).toBe(true)
    const once = { 'x.k': { [a]: -1, [`x${MINUTE}.k`]: 1 } }
    const before = await denoKvCoordinator(kv).sync(report('fra', AT, {}, once))
    kv.close()
    kv = await Deno.openKv(path)
    const coordinator = denoKvCoordinator(kv)
    expect((await coordinator.increment(request)).repeat).toBe(true)
    expect((await coordinator.increment({ ...request, token: 'second' })).taken).toBe(false)
    const after = await coordinator.sync(report('fra', AT + 1, {}, once))
    expect(after.epoch).toEqual(before.epoch)
    // The grant's a + 1 and the once key's a − 1 make 0 (left out); the key is not applied a second time.
    expect(after.locations.fra!.counts).toEqual({ [n]: 1, [`x${MINUTE}.k`]: 1 })
    kv.close()
  } finally {
    await Deno.remove(dir, { recursive: true })
  }
})

Deno.test('a room whose keys are all deleted answers a new epoch, named by the report that found it gone', async () => {
  using kv = await Deno.openKv(':memory:')
  const coordinator = denoKvCoordinator(kv, { prefix: ['wipe'] })
  const first = await coordinator.sync(report('fra', AT, { [a]: 3 }))
  for await (const entry of kv.list({ prefix: ['wipe', 'room'] })) await kv.delete(entry.key)
  const next = report('fra', AT + 5000, {})
  const after = await coordinator.sync(next)
  expect(after.epoch).toEqual({ id: next.id, startedAt: next.at })
  expect(after.epoch!.id === first.epoch!.id).toBe(false)
  expect(after.locations.fra!.counts).toEqual({})
})
