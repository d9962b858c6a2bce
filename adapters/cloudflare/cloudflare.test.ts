/**
 * The Durable Object coordinator in workerd (miniflare): the shared conformance suite, where `reopen`
 * restarts every object over the same storage, then what the suite cannot see — object restarts
 * mid-minute, the fused decision's call count, and the colo cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Miniflare } from 'miniflare'
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { referencesConformance } from '../../test/conformance/references-suite.ts'
import { cleanUpObjects, objectCalls, remoteCoordinator, restartObjects, storedReferences, wipeRoom } from './test/remote-coordinator.ts'
import { bundleWorker, startWorkerd, tempDir } from './test/workerd.ts'

const MINUTE = 29_405_520
const AT = MINUTE * 60_000

let scriptPath: string
let removeBundle: () => Promise<void>
beforeAll(async () => {
  const dir = await tempDir('bridge')
  removeBundle = dir.remove
  scriptPath = await bundleWorker('adapters/cloudflare/test/bridge-worker.ts', dir.path)
}, 30_000)
afterAll(() => removeBundle())

/** One miniflare per harness, persisted to a temp dir so `reopen` is a real restart of every object. */
function workerdHarness() {
  let mf: Miniflare | undefined
  let persist: Awaited<ReturnType<typeof tempDir>> | undefined
  return {
    async create() {
      persist = await tempDir('objects')
      mf = await startWorkerd({ scriptPath, persistDir: persist.path })
      return remoteCoordinator(() => mf!)
    },
    // Every object restarts over the same storage; coordinators made before (other workers) follow along.
    async reopen() {
      await mf!.dispose()
      mf = await startWorkerd({ scriptPath, persistDir: persist!.path })
      return remoteCoordinator(() => mf!)
    },
    async close() {
      await mf?.dispose()
      await persist?.remove()
    },
    get mf() {
      return mf!
    },
  }
}

const conformance = workerdHarness()
coordinatorConformance({ describe, it, expect, beforeAll, afterAll }, {
  name: 'cloudflare Durable Objects in workerd',
  create: () => conformance.create(),
  reopen: () => conformance.reopen(),
  close: () => conformance.close(),
  wipe: (_, roomId) => wipeRoom(conformance.mf, roomId),
  // Location objects exchange with the global object at most once a second (report clock).
  syncsToPropagate: 1,
  propagationStepMs: 1000,
  marksReachLocationsOnExchange: true,
  epochAtGrantFromExchange: true,
  // Known limit (README): each counter object keeps its own tokens; no cross-object registry per room and minute.
  tokensPerCounter: true,
})

// `reopen` restarts every object over the same storage: the references live in the global object's storage.
const references = workerdHarness()
referencesConformance({ describe, it, expect, beforeAll, afterAll }, {
  name: 'cloudflare Durable Objects in workerd',
  create: () => references.create(),
  reopen: () => references.reopen(),
  close: () => references.close(),
  storedReferences: (roomId) => storedReferences(references.mf, roomId),
})

describe('cloudflare Durable Objects: beyond the suite', () => {
  const harness = workerdHarness()
  let coordinator: ReturnType<typeof remoteCoordinator>
  beforeAll(async () => {
    coordinator = await harness.create()
  }, 30_000)
  afterAll(() => harness.close())

  it('a location object restarted mid-minute never lets the minute exceed its limit', async () => {
    const roomId = 'restart-mid-minute'
    const object = `${roomId}:SJC`
    const slot = (token: string) => coordinator.takeSlot({ roomId, location: 'SJC', minute: MINUTE, localLimit: 10, anywhereLimit: 0, token })
    for (let i = 0; i < 4; i++) expect((await slot(`first${i}`)).admitted).toBe(true)
    await restartObjects(harness.mf, { counter: [object] })
    // Its memory is gone (the counts of calls it received start over); its storage is not.
    expect(await objectCalls(harness.mf, { counter: [object] })).toEqual({})
    expect(await slot('first0')).toEqual({ admitted: true, via: 'location', repeat: true, roundTrips: 1, seq: 0 })
    for (let i = 0; i < 2; i++) expect((await slot(`second${i}`)).admitted).toBe(true)

    // Twenty users at once while the object restarts again: calls in flight may fail.
    const burst = Array.from({ length: 20 }, (_, i) => `burst${i}`)
    const [settled] = await Promise.all([Promise.allSettled(burst.map(slot)), restartObjects(harness.mf, { counter: [object] })])
    let admitted = 6
    for (let i = 0; i < burst.length; i++) {
      const result = settled[i]!
      // A call cut off by the restart is asked again with its token (as the user's next request would):
      // it gets its first answer if its slot was taken, or a fresh decision — never a second slot.
      const answer = result.status === 'fulfilled' ? result.value : await slot(burst[i]!)
      if (answer.admitted) admitted++
    }
    for (let i = 0; i < 10; i++) if ((await slot(`late${i}`)).admitted) admitted++
    expect(admitted).toBe(10)
  })

  it('the Anywhere counter survives its own restart too', async () => {
    const roomId = 'restart-anywhere'
    const slot = (token: string) => coordinator.takeSlot({ roomId, location: 'LHR', minute: MINUTE, localLimit: 0, anywhereLimit: 3, token })
    expect((await slot('a')).admitted).toBe(true)
    expect((await slot('b')).admitted).toBe(true)
    await restartObjects(harness.mf, { counter: [`${roomId}:*`] })
    const after = []
    for (const token of ['c', 'd', 'e', 'f']) after.push(await slot(token).catch(() => undefined))
    expect(after.filter((r) => r?.admitted).length).toBe(1)
  })

  it('names the missing binding and the fix when the objects cannot find each other', async () => {
    const misnamed = remoteCoordinator(harness.mf, '?globalBinding=WR_NOPE')
    const report = { id: 'r1', roomId: 'misnamed', location: 'SJC', at: AT, keepMinutes: 10, deltas: { [`a${MINUTE}`]: 1 } }
    const error = await misnamed.sync(report).catch((e: Error) => e)
    expect((error as Error).message).toContain('cloudflare: sync on Durable Object "misnamed:SJC" (WR_COUNTER) failed')
    expect((error as Error).message).toContain('no namespace binding "WR_NOPE"')
    expect((error as Error).message).toContain('bindingNames')
  })

  it('cleans up minutes past their TTL, and running the cleanup twice is harmless', async () => {
    const roomId = 'cleanup'
    const now = Math.floor(Date.now() / 60_000)
    const take = (minute: number, token: string) => coordinator.increment({ roomId, scope: 'SJC', minute, limit: 1, token })
    expect((await take(now - 10, 'old')).taken).toBe(true)
    await cleanUpObjects(harness.mf, [`${roomId}:SJC`])
    await cleanUpObjects(harness.mf, [`${roomId}:SJC`])
    // The old minute's counter is gone: a new token takes its slot afresh.
    expect(await take(now - 10, 'another')).toEqual({ taken: true, seq: 0 })
    // The current minute's is kept.
    expect((await take(now, 'current')).taken).toBe(true)
    await cleanUpObjects(harness.mf, [`${roomId}:SJC`])
    expect(await take(now, 'current')).toEqual({ taken: true, seq: 0, repeat: true })
    expect((await take(now, 'another')).taken).toBe(false)
  })

  it('decides in one object call, and two only when the location is used up', async () => {
    const roomId = 'fused'
    const slot = (token: string) => coordinator.takeSlot({ roomId, location: 'SJC', minute: MINUTE, localLimit: 1, anywhereLimit: 1, token })
    expect(await slot('one')).toEqual({ admitted: true, via: 'location', repeat: false, roundTrips: 1, seq: 0 })
    expect(await slot('two')).toEqual({ admitted: true, via: 'anywhere', repeat: false, roundTrips: 2, seq: 0 })
    expect(await slot('two')).toEqual({ admitted: true, via: 'anywhere', repeat: true, roundTrips: 2, seq: 0 })
    expect(await slot('three')).toEqual({ admitted: false, roundTrips: 2 })
    const calls = await objectCalls(harness.mf, { counter: [`${roomId}:SJC`, `${roomId}:*`], global: [roomId] })
    expect(calls).toEqual({ takeSlot: 4, increment: 3 })
  })

  it("lowers each counter by its minute − 1 beyond the report, the Anywhere one behind the location object's call too", async () => {
    const roomId = 'carry'
    const slot = (token: string, minute: number, localLimit: number, anywhereLimit: number, reported?: [number, number]) =>
      coordinator.takeSlot({
        roomId,
        location: 'SJC',
        minute,
        localLimit,
        anywhereLimit,
        localPreviousReported: reported?.[0],
        anywherePreviousReported: reported?.[1],
        token,
      })
    // Minute − 1: the location gives 3, Anywhere 2.
    for (const token of ['p1', 'p2', 'p3', 'p4', 'p5']) expect((await slot(token, MINUTE - 1, 3, 2)).admitted).toBe(true)
    // Location 4 − (3 − 1) = 2; Anywhere 3 − (2 − 0) = 1.
    const results = []
    for (const token of ['a', 'b', 'c', 'd']) results.push((await slot(token, MINUTE, 4, 3, [1, 0])).via ?? 'queued')
    expect(results).toEqual(['location', 'location', 'anywhere', 'queued'])
    // Straight to the Anywhere object (no location allocation): 3 − (2 − 1) = 2, one taken already.
    expect(await slot('e', MINUTE, 0, 3, [0, 1])).toMatchObject({ admitted: true, via: 'anywhere' })
    expect(await slot('f', MINUTE, 0, 3, [0, 1])).toMatchObject({ admitted: false })
  })

  it('shares a recent answer through caches.default: a sync with nothing to report makes no object call', async () => {
    const roomId = 'cache'
    const report = (at: number, deltas: Record<string, number>) => ({ id: crypto.randomUUID(), roomId, location: 'SJC', at, keepMinutes: 10, deltas })
    const syncs = async () => (await objectCalls(harness.mf, { counter: [`${roomId}:SJC`] })).sync ?? 0
    await coordinator.sync(report(AT, { [`a${MINUTE}`]: 2 }))
    expect(await syncs()).toBe(1)
    const cached = await coordinator.sync(report(AT + 500, {}))
    expect(cached.locations.SJC?.counts).toEqual({ [`a${MINUTE}`]: 2 })
    expect(await syncs()).toBe(1)
    await coordinator.sync(report(AT + 1500, {})) // older than cacheMaxAgeMs (1000): read through the object
    expect(await syncs()).toBe(2)
    await coordinator.sync(report(AT + 1600, { [`a${MINUTE}`]: 1 })) // something to report: always the object
    expect(await syncs()).toBe(3)
  })

  it('sends a proposed reference to the object, which asks the global object once per minute; the cache answers none', async () => {
    const roomId = 'cache-references'
    const propose = (at: number, table: Record<string, number>) => ({ id: `r${at}`, roomId, location: 'SJC', at, keepMinutes: 10, deltas: {}, references: [{ minute: MINUTE, table, id: `r${at}:${MINUTE}` }] })
    const calls = () => objectCalls(harness.mf, { counter: [`${roomId}:SJC`], global: [roomId] })
    const first = await coordinator.sync(propose(AT, { SJC: 3 }))
    expect(first.references).toEqual([{ minute: MINUTE, table: { SJC: 3 }, id: `r${AT}:${MINUTE}` }])
    // Another worker of the colo proposes its own view a moment later: through the object (no cached answer), and
    // answered the fixed table without another call to the global object.
    expect((await coordinator.sync(propose(AT + 100, { SJC: 9 }))).references).toEqual(first.references)
    expect(await calls()).toMatchObject({ sync: 2, fix: 1 })
    // A sync with nothing to report is answered from the colo cache, which keeps no reference of another report's.
    const cached = await coordinator.sync({ id: 'empty', roomId, location: 'SJC', at: AT + 200, keepMinutes: 10, deltas: {} })
    expect(cached.references).toBeUndefined()
    expect((await calls()).sync).toBe(2)
  })
})
