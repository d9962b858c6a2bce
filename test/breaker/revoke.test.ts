/** #14.2: a revocation frees exactly one place. */
import { beforeEach, describe, expect, it } from 'vitest'
import { worker, memoryCoordinator, START, MINUTE } from './harness.ts'

const R = { enabledOriginCommands: ['revoke'] as 'revoke'[] }

const queued: string[] = []
/** Queued users of earlier probes check in again (past their refresh), then n newcomers; admissions counted. */
async function newcomers(ws: ReturnType<typeof worker>[], n: number, clock?: { now: number }) {
  let admitted = 0
  if (clock && queued.length) clock.now += 25_000
  for (const [i, q] of queued.splice(0).entries()) {
    const r = await ws[i % ws.length]!.request(q)
    if (r.admitted) admitted++
    else if (r.cookie) queued.push(r.cookie)
  }
  for (let i = 0; i < n; i++) {
    const r = await ws[i % ws.length]!.request()
    if (r.admitted) admitted++
    else if (r.cookie) queued.push(r.cookie)
  }
  return admitted
}

describe('revocation', () => {
  beforeEach(() => { queued.length = 0 })
  it('baseline: 30 concurrent revokes over 3 workers of ONE location free one place', async () => {
    const clock = { now: START }
    const c = memoryCoordinator()
    const ws = [0, 1, 2].map(() => worker(c, clock, R))
    const users = [await ws[0]!.request(), await ws[1]!.request(), await ws[2]!.request()]
    await Promise.all(Array.from({ length: 30 }, (_, i) => ws[i % 3]!.request(users[0]!.cookie, { headers: { 'x-command': 'revoke' } })))
    for (const w of ws) await w.room.room.flush()
    clock.now += 1000
    expect(await newcomers(ws, 10)).toBe(1)
  })


  it.each(['cold'])('a %s worker in the next minute refuses the revoked cookie, so no second place is freed', async (kind) => {
    const clock = { now: START + 1000 }
    const c = memoryCoordinator()
    const w1 = worker(c, clock, R)
    const users = [await w1.request(), await w1.request(), await w1.request()]
    const idle = worker(c, clock, R)
    if (kind === 'stale') await idle.request(users[1]!.cookie) // synced in minute 0, idle since
    clock.now = START + MINUTE + 1000 // minute 1: u0 renews on w1, then the origin revokes it
    const renewed = await w1.request(users[0]!.cookie)
    await w1.request(renewed.cookie, { headers: { 'x-command': 'revoke' } })
    await w1.room.room.flush()
    expect(await newcomers([w1], 5)).toBe(1) // correct so far: one place freed, one newcomer in
    clock.now = START + 2 * MINUTE + 1000 // minute 2: a worker that has not synced since the revocation
    const w2 = kind === 'stale' ? idle : worker(c, clock, R)
    const again = await w2.request(renewed.cookie, { headers: { 'x-command': 'revoke' } })
    console.log('revoked cookie on a cold worker: reason =', again.reason)
    await w2.room.room.flush(); await w1.room.room.flush()
    clock.now += 1000
    const got = await newcomers([w1, w2], 6, clock)
    console.log('newcomers admitted after the second revoke of the same ticket =', got, '(expected 0: u1,u2 + newcomer = 3)')
        expect(got).toBe(0)
  })

  it('old and new cookie of one ticket, across a minute boundary, on ONE worker', async () => {
    const clock = { now: START + 1000 }
    const c = memoryCoordinator()
    const w = worker(c, clock, R)
    const users = [await w.request(), await w.request(), await w.request()]
    const old = users[0]!.cookie
    clock.now = START + MINUTE + 1000
    const fresh = (await w.request(old)).cookie
    // revoke with both at once, then both again in minute 2
    await Promise.all([w.request(old, { headers: { 'x-command': 'revoke' } }), w.request(fresh, { headers: { 'x-command': 'revoke' } })])
    clock.now = START + 2 * MINUTE + 1000
    const late = await Promise.all([w.request(old, { headers: { 'x-command': 'revoke' } }), w.request(fresh, { headers: { 'x-command': 'revoke' } })])
    expect(late.map((l) => l.reason)).not.toContain('session')
    await w.room.room.flush()
    expect(await newcomers([w], 6, clock)).toBe(0) // the freed place went to one of the two refused copies
  })
})
