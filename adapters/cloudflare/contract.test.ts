/**
 * The coordinator contract's three rules on Durable Objects in workerd, under concurrency the conformance
 * suite does not produce: grants counted in the asking colo's stage (colos with and without a share racing
 * for the Anywhere pool), `once` keys applied once (20 reports at once; never answered from the colo cache),
 * and the room epoch (racing first syncs, a restarted and a wiped global object).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Miniflare } from 'miniflare'
import { ANYWHERE, type CounterRequest } from '../../src/coordination/coordinator.ts'
import type { RoomState, WorkerReport } from '../../src/coordination/state.ts'
import { objectCalls, remoteCoordinator, restartObjects, wipeRoom } from './test/remote-coordinator.ts'
import { bundleWorker, startWorkerd, tempDir } from './test/workerd.ts'

const MINUTE = 29_405_520
const AT = MINUTE * 60_000
const a = `a${MINUTE}`
const n = `n${MINUTE}`
const y = `y${MINUTE}`

let mf: Miniflare
let cleanUp: () => Promise<void>
const coordinator = remoteCoordinator(() => mf)
beforeAll(async () => {
  const dir = await tempDir('contract')
  cleanUp = dir.remove
  mf = await startWorkerd({ scriptPath: await bundleWorker('adapters/cloudflare/test/bridge-worker.ts', dir.path) })
}, 30_000)
afterAll(async () => {
  await mf?.dispose()
  await cleanUp?.()
})

const report = (roomId: string, location: string, at: number, deltas: Record<string, number>, once?: WorkerReport['once']): WorkerReport => ({
  id: crypto.randomUUID(),
  roomId,
  location,
  at,
  keepMinutes: 10,
  deltas,
  ...(once ? { once } : {}),
})

/** Syncs every location twice, a second apart (each colo object exchanges at most once a second). */
async function everyLocation(roomId: string, locations: string[], from: number): Promise<RoomState> {
  let view: RoomState | undefined
  for (const at of [from, from + 1000]) for (const location of locations) view = await coordinator.sync(report(roomId, location, at, {}))
  return view!
}

const countsOf = (view: RoomState) => Object.fromEntries(Object.entries(view.locations).map(([name, state]) => [name, state.counts]))

describe('cloudflare: the coordinator contract under concurrency', () => {
  it('counts every fresh grant in the asking colo once — own share, Anywhere from a colo, Anywhere without a share', async () => {
    const roomId = 'grants'
    const slot = (location: string, localLimit: number, token: string) =>
      coordinator.takeSlot({ roomId, location, minute: MINUTE, localLimit, anywhereLimit: 15, token })
    const direct: CounterRequest[] = Array.from({ length: 10 }, (_, i) => ({ roomId, scope: ANYWHERE, location: 'DUB', minute: MINUTE, limit: 15, token: `d${i}` }))
    const decide = () =>
      Promise.all([
        ...Array.from({ length: 40 }, (_, i) => slot('SJC', 20, `s${i}`)),
        ...Array.from({ length: 20 }, (_, i) => slot('LHR', 0, `l${i}`)),
        ...direct.map((request) => coordinator.increment(request).then((r) => ({ admitted: r.taken, via: 'anywhere', repeat: r.repeat === true }))),
      ])
    const first = await decide()
    const again = await decide() // every token once more: first answers, nothing counted
    expect(again.map((r) => r.admitted)).toEqual(first.map((r) => r.admitted))
    expect(again.every((r) => !r.admitted || r.repeat)).toBe(true)

    // A colo that lost every race for the pool still reports: it is there, with nothing counted.
    const expected: Record<string, Record<string, number>> = { SJC: {}, LHR: {}, DUB: {} }
    first.forEach((result, i) => {
      if (!result.admitted) return
      const location = i < 40 ? 'SJC' : i < 60 ? 'LHR' : 'DUB'
      const counts = expected[location]!
      for (const field of result.via === 'anywhere' ? [a, n, y] : [a, n]) counts[field] = (counts[field] ?? 0) + 1
    })
    expect(first.filter((r) => r.admitted && r.via === 'location').length).toBe(20)
    expect(first.filter((r) => r.admitted && r.via === 'anywhere').length).toBe(15)
    expect(countsOf(await everyLocation(roomId, ['SJC', 'LHR', 'DUB'], AT))).toEqual(expected)
  })

  it('applies a once key once when 20 reports carry it at the same time, and never answers a once-only report from cache', async () => {
    const roomId = 'once'
    await coordinator.sync(report(roomId, 'SJC', AT, { [a]: 100 }))
    for (let round = 0; round < 4; round++) {
      const key = `x.ticket-${round}`
      await Promise.all(Array.from({ length: 20 }, (_, i) => coordinator.sync(report(roomId, 'SJC', AT + 1 + i, { [`t${MINUTE}`]: 1 }, { [key]: { [a]: -1 } }))))
    }
    // Past the colo cache's second: read through the object, which has merged all 80 reports.
    let view = await coordinator.sync(report(roomId, 'SJC', AT + 5000, {}))
    expect(view.locations.SJC?.counts[a]).toBe(96)
    expect(view.locations.SJC?.counts[`t${MINUTE}`]).toBe(80)
    // Within a second of a cached answer: a report with nothing else in it still reaches the object.
    const syncs = async () => (await objectCalls(mf, { counter: [`${roomId}:SJC`] })).sync ?? 0
    const before = await syncs()
    view = await coordinator.sync(report(roomId, 'SJC', AT + 5200, {}, { ["x.late"]: { [a]: -1 } }))
    expect(await syncs()).toBe(before + 1)
    expect(view.locations.SJC?.counts[a]).toBe(95)
  })

  it('names the epoch by one of the racing first reports, keeps it over a restart, and makes a new one when the storage is lost', async () => {
    const roomId = 'epoch'
    const reports = Array.from({ length: 12 }, (_, i) => report(roomId, ['SJC', 'LHR', 'NRT'][i % 3]!, AT + i, { [a]: 1 }))
    const views = await Promise.all(reports.map((r) => coordinator.sync(r)))
    const epoch = views[0]!.epoch!
    expect(views.every((view) => view.epoch?.id === epoch.id)).toBe(true)
    expect(reports.find((r) => r.id === epoch.id)?.at).toBe(epoch.startedAt)

    await restartObjects(mf, { global: [roomId] })
    expect((await everyLocation(roomId, ['SJC'], AT + 2000)).epoch).toEqual(epoch)

    // The global object's storage is lost: the next exchange creates the epoch anew, named by its report.
    await wipeRoom(mf, roomId)
    const next = report(roomId, 'SJC', AT + 10_000, {})
    expect((await coordinator.sync(next)).epoch).toEqual({ id: next.id, startedAt: next.at })
  })
})
