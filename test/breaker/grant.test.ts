/** #14.3: admissions are counted by the grant; a discarded worker must not let the room exceed its limit. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { worker, memoryCoordinator, START, MINUTE, type Coordinator } from './harness.ts'

type W = ReturnType<typeof worker>

describe('grants', () => {
  it('a doomed worker at location A, then workers at location B, over one coordinator', async () => {
    const clock = { now: START + 1000 }
    const c = memoryCoordinator()
    const doomed = worker(c, clock, { location: () => 'A', totalActiveUsers: 5, newUsersPerMinute: 5, syncIntervalMs: 60_000 })
    const admitted: string[] = []
    for (let i = 0; i < 5; i++) { const r = await doomed.request(); expect(r.admitted).toBe(true); admitted.push(r.cookie!) }
    // doomed is dropped without a flush. The rest of the fleet is at location B.
    const b = worker(c, clock, { location: () => 'B', totalActiveUsers: 5, newUsersPerMinute: 5 })
    let extra = 0
    let queued: string[] = []
    for (let minute = 1; minute <= 4; minute++) {
      clock.now = START + minute * MINUTE + 2000
      for (const [i, cookie] of admitted.entries()) { const r = await b.request(cookie); expect(r.admitted).toBe(true); admitted[i] = r.cookie! }
      clock.now += 30_000
      const again: string[] = []
      for (const q of [...queued, undefined, undefined]) { const r = await b.request(q); if (r.admitted) { extra++; admitted.push(r.cookie!) } else again.push(r.cookie!) }
      queued = again
    }
    console.log(`location B admitted ${extra} newcomers while 5 (limit 5) were browsing; active at the end: ${admitted.length}`)
    expect(extra).toBe(0)
  })

  it.each(['one location', 'three locations'])('fast-check: fleets over one coordinator, workers discarded without flush, %s, fifo/random', async (where) => {
    let failures = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('fifo', 'random'),
        fc.array(fc.record({ op: fc.constantFrom('new', 'browse', 'kill', 'spawn', 'tick'), pick: fc.nat(50), loc: fc.constantFrom('L1', 'L2', 'L3'), dt: fc.integer({ min: 1, max: 40_000 }) }), { minLength: 20, maxLength: 80 }),
        async (method, ops) => {
          const limit = 4
          const clock = { now: START }
          const c: Coordinator = memoryCoordinator()
          const make = (loc: string) => worker(c, clock, { location: () => (where === 'one location' ? 'L1' : loc), totalActiveUsers: limit, newUsersPerMinute: 3, queueingMethod: method as 'fifo', syncIntervalMs: 10_000 })
          let fleet: W[] = [make('L1')]
          // every admitted user browses at least once a minute, so all of them stay active
          const users: { cookie: string; last: number }[] = []
          const queued: string[] = []
          for (const o of ops) {
            const w = fleet[o.pick % fleet.length]!
            if (o.op === 'new') {
              const q = queued.length && o.pick % 2 ? queued.shift() : undefined
              const r = await w.request(q)
              if (r.admitted) users.push({ cookie: r.cookie!, last: clock.now })
              else if (r.cookie) queued.push(r.cookie)
            } else if (o.op === 'kill' && fleet.length > 1) fleet.splice(o.pick % fleet.length, 1)
            else if (o.op === 'spawn') fleet.push(make(o.loc))
            else if (o.op === 'tick') clock.now += o.dt
            // keep every admitted user alive: check in if 50 s passed
            for (const u of users) if (clock.now - u.last > 50_000) { const r = await fleet[(u.last + o.pick) % fleet.length]!.request(u.cookie); expect(r.reason).toBe('session'); u.cookie = r.cookie!; u.last = clock.now }
            if (users.length > limit) { failures++; console.log('EXCEEDED', method, users.length, 'fleet', fleet.length); return false }
          }
          return true
        },
      ),
      { numRuns: where === 'one location' ? 80 : 12, seed: 14, endOnFailure: true, interruptAfterTimeLimit: 40_000 },
    ).catch((e) => { console.log(String(e).split('\n').slice(0, 6).join('\n')); throw e })
  })

})
