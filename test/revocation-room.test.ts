/**
 * #14.2, the rest: a revocation frees one place per TICKET in the whole room — whichever locations, workers
 * and processes see it, whichever cookie of the ticket (renewed or older) they carry, and whatever a worker
 * that had not heard of it yet did with the ticket meanwhile (renewed it across a minute boundary). Generated
 * fleets over the memory coordinator with exchange lag between locations (each location its own aggregator,
 * as colos are); every adapter proves the coordinator half in the conformance suite.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator, worker, START, MINUTE } from './breaker/harness.ts'

const ROOM = { enabledOriginCommands: ['revoke'] as 'revoke'[], sessionDurationMinutes: 30 }

type Step =
  | { kind: 'tick'; ms: number }
  | { kind: 'renew'; w: number }
  | { kind: 'revoke'; w: number; cookie: 'first' | 'latest' }
  | { kind: 'flush'; w: number }

const step = (workers: number): fc.Arbitrary<Step> =>
  fc.oneof(
    fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 70_000 }) }),
    fc.record({ kind: fc.constant('renew' as const), w: fc.integer({ min: 0, max: workers - 1 }) }),
    fc.record({ kind: fc.constant('revoke' as const), w: fc.integer({ min: 0, max: workers - 1 }), cookie: fc.constantFrom('first' as const, 'latest' as const) }),
    fc.record({ kind: fc.constant('flush' as const), w: fc.integer({ min: 0, max: workers - 1 }) }),
  )

describe('a revoked ticket frees one place in the whole room', () => {
  it('generated fleets: locations with exchange lag, stale workers, renewals across minutes, old and new cookies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 2, max: 5 }),
        fc.constantFrom(0, 5000),
        fc.array(step(5), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 4 }),
        async (locations, workers, exchangeIntervalMs, steps, revoker) => {
          const clock = { now: START + 1000 }
          const coordinator = memoryCoordinator({ exchangeIntervalMs })
          const fleet = Array.from({ length: workers }, (_, i) => worker(coordinator, clock, { ...ROOM, location: () => `L${i % locations}` }))
          const users = [await fleet[0]!.request(), await fleet[0]!.request(), await fleet[0]!.request()]
          expect(users.every((u) => u.reason === 'slot')).toBe(true)
          await fleet[0]!.room.room.flush()
          // Every worker syncs once now (minute 0) and may stay idle — stale — from here on.
          for (const w of fleet) await w.request(users[1]!.cookie)
          const first = users[0]!.cookie!
          let latest = first
          // New admissions of tickets nobody revoked: what the freed place may be given to.
          let keptAdmissions = 0
          const run = async (s: Step) => {
            const w = fleet[('w' in s ? s.w : 0) % workers]!
            if (s.kind === 'tick') clock.now += s.ms
            else if (s.kind === 'flush') await w.room.room.flush()
            else if (s.kind === 'renew') {
              const r = await w.request(latest)
              if (r.reason === 'session') latest = r.cookie!
              else if (r.reason === 'slot') keptAdmissions++ // the refused cookie came in as a new user
            } else await w.request(s.cookie === 'first' ? first : latest, { headers: { 'x-command': 'revoke' } })
          }
          await run({ kind: 'revoke', w: revoker, cookie: 'latest' })
          for (const s of steps) await run(s)
          for (const w of fleet) await w.room.room.flush()
          clock.now += exchangeIntervalMs + 1000
          for (const w of fleet) await w.room.room.flush()
          for (let i = 0; i < 8; i++) if ((await fleet[i % workers]!.request()).reason === 'slot') keptAdmissions++
          // Users 1 and 2 still hold their places (30-minute sessions): one place at most was freed.
          expect(keptAdmissions).toBeLessThanOrEqual(1)
        },
      ),
      { numRuns: 60, seed: 14 },
    )
  }, 120_000)

  // Was an open defect (issue #14): with exchange lag on the memory coordinator, a revoked user re-admitted as a
  // new user and a stale worker's renewal of the revoked cookie across a minute let one more newcomer in (2 places
  // for 1 freed), because the quiet location's counts never reached the others. Since the memory coordinator's
  // lag is bounded (test/memory-exchange-lag.test.ts), 300 runs of this seed find no case (before: one within them).
  it('a stale renewal of a revoked cookie across a minute frees no second place under exchange lag', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 2, max: 5 }),
        fc.constantFrom(0, 5000),
        fc.array(step(5), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 4 }),
        async (locations, workers, exchangeIntervalMs, steps, revoker) => {
          const clock = { now: START + 1000 }
          const coordinator = memoryCoordinator({ exchangeIntervalMs })
          const fleet = Array.from({ length: workers }, (_, i) => worker(coordinator, clock, { ...ROOM, location: () => `L${i % locations}` }))
          const users = [await fleet[0]!.request(), await fleet[0]!.request(), await fleet[0]!.request()]
          expect(users.every((u) => u.reason === 'slot')).toBe(true)
          await fleet[0]!.room.room.flush()
          // Every worker syncs once now (minute 0) and may stay idle — stale — from here on.
          for (const w of fleet) await w.request(users[1]!.cookie)
          const first = users[0]!.cookie!
          let latest = first
          // New admissions of tickets nobody revoked: what the freed place may be given to.
          let keptAdmissions = 0
          const run = async (s: Step) => {
            const w = fleet[('w' in s ? s.w : 0) % workers]!
            if (s.kind === 'tick') clock.now += s.ms
            else if (s.kind === 'flush') await w.room.room.flush()
            else if (s.kind === 'renew') {
              const r = await w.request(latest)
              if (r.reason === 'session') latest = r.cookie!
              else if (r.reason === 'slot') keptAdmissions++ // the refused cookie came in as a new user
            } else await w.request(s.cookie === 'first' ? first : latest, { headers: { 'x-command': 'revoke' } })
          }
          await run({ kind: 'revoke', w: revoker, cookie: 'latest' })
          for (const s of steps) await run(s)
          for (const w of fleet) await w.room.room.flush()
          clock.now += exchangeIntervalMs + 1000
          for (const w of fleet) await w.room.room.flush()
          for (let i = 0; i < 8; i++) if ((await fleet[i % workers]!.request()).reason === 'slot') keptAdmissions++
          // Users 1 and 2 still hold their places (30-minute sessions): one place at most was freed.
          expect(keptAdmissions).toBeLessThanOrEqual(1)
        },
      ),
      { seed: 1925934964, numRuns: 300 },
    )
  }, 120_000)

  it('the same ticket revoked through two locations before they exchange frees one place', async () => {
    for (const exchangeIntervalMs of [5000, 60_000]) {
      const clock = { now: START + 1000 }
      const coordinator = memoryCoordinator({ exchangeIntervalMs })
      const [a, b] = ['SJC', 'LHR'].map((name) => worker(coordinator, clock, { ...ROOM, location: () => name }))
      const users = [await a!.request(), await a!.request(), await a!.request()]
      await a!.room.room.flush()
      await b!.request(users[1]!.cookie) // b knows the room before the revocation
      await Promise.all([a!.request(users[0]!.cookie, { headers: { 'x-command': 'revoke' } }), b!.request(users[0]!.cookie, { headers: { 'x-command': 'revoke' } })])
      await a!.room.room.flush()
      await b!.room.room.flush()
      clock.now += exchangeIntervalMs + 1000
      let admitted = 0
      for (let i = 0; i < 6; i++) if ((await (i % 2 ? a : b)!.request()).reason === 'slot') admitted++
      expect(admitted).toBe(1)
    }
  })

  it('a stale worker that renewed the revoked ticket across a minute and revokes it again frees nothing more', async () => {
    const clock = { now: START + 1000 }
    const coordinator = memoryCoordinator()
    const w1 = worker(coordinator, clock, ROOM)
    const users = [await w1.request(), await w1.request(), await w1.request()]
    const idle = worker(coordinator, clock, ROOM)
    await idle.request(users[1]!.cookie) // synced in minute 0, idle since
    clock.now = START + MINUTE + 1000
    const renewed = await w1.request(users[0]!.cookie) // counted in minute 1 now
    expect(renewed.reason).toBe('session')
    await w1.request(renewed.cookie, { headers: { 'x-command': 'revoke' } })
    await w1.room.room.flush()
    clock.now = START + 2 * MINUTE + 1000
    // The idle worker has not heard of it: in one request it renews the ticket into minute 2, and the origin
    // revokes it there — a revocation the old minute-keyed once key counted a second time.
    const again = await idle.request(renewed.cookie, { headers: { 'x-command': 'revoke' } })
    expect(again.reason).toBe('session')
    await idle.room.room.flush()
    await w1.room.room.flush()
    clock.now += 1000
    let admitted = 0
    for (let i = 0; i < 6; i++) if ((await (i % 2 ? w1 : idle).request()).reason === 'slot') admitted++
    // Exactly the one place: the stale renewal moved the count (−1 in minute 1, +1 in minute 2), it did not free one.
    expect(admitted).toBe(1)
  })
})
