/**
 * examples/cloudflare-workers end to end in workerd: the example's app, its wrangler.jsonc bindings and
 * migrations, requests from two colos through `dispatchFetch`. Admission, queueing, draining when
 * sessions expire, a tampered cookie, and how many Durable Object calls each kind of request costs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Miniflare } from 'miniflare'
import { objectCalls } from './test/remote-coordinator.ts'
import { Visitor } from './test/visitor.ts'
import { bundleWorker, startWorkerd, tempDir } from './test/workerd.ts'

const MINUTE_MS = 60_000
/** 2026-01-01 12:00 UTC. */
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0)

let mf: Miniflare
let removeBundle: () => Promise<void>
beforeAll(async () => {
  const dir = await tempDir('example')
  removeBundle = dir.remove
  const scriptPath = await bundleWorker('examples/cloudflare-workers/test/worker.ts', dir.path)
  mf = await startWorkerd({ scriptPath, bindings: { WAITING_ROOM_SECRET: 'example-test-secret-0123456789abcdef' } })
}, 30_000)
afterAll(async () => {
  await mf?.dispose()
  await removeBundle?.()
})

async function setClock(ms: number): Promise<void> {
  await (await mf.dispatchFetch(`http://test/__test/clock?ms=${ms}`)).text()
}

describe('examples/cloudflare-workers/src/index.ts as deployed', () => {
  it('bundles, binds the classes wrangler.jsonc names, and serves a user from its colo', async () => {
    const dir = await tempDir('deployed')
    let deployed: Miniflare | undefined
    try {
      const scriptPath = await bundleWorker('examples/cloudflare-workers/src/index.ts', dir.path)
      deployed = await startWorkerd({ scriptPath, bindings: { WAITING_ROOM_SECRET: 'example-test-secret-0123456789abcdef' } })
      const response = await deployed.dispatchFetch('https://shop.example/', { cf: { colo: 'AMS' } } as never)
      expect(response.status).toBe(200)
      expect(await response.text()).toContain('You are admitted')
      expect(response.headers.get('set-cookie')).toMatch(/^__wroom=/)
    } finally {
      await deployed?.dispose()
      await dir.remove()
    }
  }, 30_000)
})

describe('examples/cloudflare-workers in workerd', () => {
  it('admits up to the limit from two colos, queues the rest, drains them as sessions expire', async () => {
    await setClock(T0 + 1000)
    const admittedUsers = [new Visitor(mf, 'drain.test', 'SJC'), new Visitor(mf, 'drain.test', 'SJC'), new Visitor(mf, 'drain.test', 'LHR'), new Visitor(mf, 'drain.test', 'LHR')]
    for (const user of admittedUsers) expect((await user.visit()).admitted).toBe(true)

    const queued = [new Visitor(mf, 'drain.test', 'SJC'), new Visitor(mf, 'drain.test', 'LHR')]
    for (const user of queued) {
      const visit = await user.visit()
      expect(visit.admitted).toBe(false)
      expect(visit.refresh).not.toBeNull()
      expect(visit.setCookie).toBe(true)
    }
    // Admitted users keep their place; queued users checking in while the room is full stay queued.
    for (const user of admittedUsers) expect((await user.visit()).admitted).toBe(true)
    await setClock(T0 + 1 * MINUTE_MS + 10_000)
    for (const user of queued) expect((await user.visit()).admitted).toBe(false)

    // Sessions last one minute after the minute of the last check-in: at T0 + 2 min they are over.
    await setClock(T0 + 2 * MINUTE_MS + 10_000)
    const drained = []
    for (const user of queued) drained.push(await user.visit())
    expect(drained.map((visit) => visit.admitted)).toEqual([true, true])

    // A tampered ticket does not open: that browser is a new user with a new ticket.
    const tampered = new Visitor(mf, 'drain.test', 'SJC')
    // Change the first character of the JWE's ciphertext (the last character of a part may be padding bits).
    const parts = queued[0]!.cookie!.split('.')
    parts[3] = (parts[3]!.startsWith('A') ? 'B' : 'A') + parts[3]!.slice(1)
    const forged = parts.join('.')
    tampered.cookie = forged
    const visit = await tampered.visit()
    // A new user: a fresh ticket (queued or admitted, whichever the full room gives a newcomer), never an error.
    expect(visit.status < 500).toBe(true)
    expect(visit.setCookie).toBe(true)
    expect(tampered.cookie === forged).toBe(false)
    if (visit.ticketId !== undefined) expect(visit.ticketId).not.toBe(drained[0]!.ticketId)
  })

  it('admitted users cost no object call; a new user one, and two when its colo has no share left', async () => {
    const objects = { counter: ['calls:SJC', 'calls:LHR', 'calls:*'], global: ['calls'] }
    // Background reports (`sync`, and the `exchange` it may cause) are left out of a visit's cost: a worker
    // with deltas pending reports them after a real-time interval, which can end during any visit.
    const calls = async () => {
      const { sync: _sync, exchange: _exchange, ...counts } = await objectCalls(mf, objects)
      return { decisions: (counts.takeSlot ?? 0) + (counts.increment ?? 0), total: Object.values(counts).reduce((a, b) => a + b, 0) }
    }
    /** Object calls one visit costs, background reports aside. */
    const cost = async (user: Visitor) => {
      const before = await calls()
      const visit = await user.visit()
      const after = await calls()
      return { admitted: visit.admitted, decisions: after.decisions - before.decisions, total: after.total - before.total }
    }

    await setClock(T0 + 10 * MINUTE_MS + 1000)
    const sjc = new Visitor(mf, 'calls.test', 'SJC')
    expect((await sjc.visit()).admitted).toBe(true) // this isolate's first visit to the room also syncs once
    // No traffic history yet: every slot is in the Anywhere pool. The colo's object asks the Anywhere object
    // and counts the grant in its own stage: two calls.
    const lhr = [new Visitor(mf, 'calls.test', 'LHR'), new Visitor(mf, 'calls.test', 'LHR'), new Visitor(mf, 'calls.test', 'LHR')]
    for (const user of lhr) expect(await cost(user)).toEqual({ admitted: true, decisions: 2, total: 2 })
    for (const user of [sjc, ...lhr, sjc, ...lhr]) expect(await cost(user)).toEqual({ admitted: true, decisions: 0, total: 0 })

    // Two minutes later the shares come from that minute's traffic (SJC 1, LHR 3 of 10): 6 slots →
    // LHR 1, SJC 0, Anywhere 5. A returning user renews its ticket and the report goes out in the background.
    await setClock(T0 + 12 * MINUTE_MS + 1000)
    const syncs = async () => (await objectCalls(mf, objects)).sync ?? 0
    const before = await syncs()
    expect(await cost(sjc)).toMatchObject({ admitted: true, decisions: 0 })
    // The report runs in waitUntil, after the response: give it a moment to land before counting on. It is
    // one report per location this isolate saw (here one isolate plays both colos: two).
    for (let i = 0; i < 50 && (await syncs()) < before + 2; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(await syncs()).toBeGreaterThanOrEqual(before + 2) // more if a timed report also fell due

    expect(await cost(new Visitor(mf, 'calls.test', 'LHR'))).toEqual({ admitted: true, decisions: 1, total: 1 }) // LHR's own slot
    expect(await cost(new Visitor(mf, 'calls.test', 'LHR'))).toEqual({ admitted: true, decisions: 2, total: 2 }) // LHR used up → Anywhere, from the LHR object
    expect(await cost(new Visitor(mf, 'calls.test', 'SJC'))).toEqual({ admitted: true, decisions: 2, total: 2 }) // no SJC share → Anywhere, from the SJC object
    for (const user of [sjc, ...lhr]) expect(await cost(user)).toMatchObject({ admitted: true, decisions: 0 })
  })
})
