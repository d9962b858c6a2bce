/**
 * breaklimits cli-lost-backend, "SQLite file replaced by an older copy": a copy taken just before a grant, put back
 * before the granting worker's report landed. That report, seeing no generation above the copy's, advanced the copy
 * to the very generation the lost state had reached — and the workers that had seen the lost state (up to that
 * generation) never reported one above the store's: nobody noticed, the room showed a place its live session
 * still held, and a newcomer took it (CLI, 20× clock: 3 active in a room of 2 while both old sessions checked in).
 * The worker now checks each answer against what it knew (rolled-back.ts): its own grants, and admissions and
 * check-ins that only ever grow. Generated fleets, backup points, granters, witnesses and report orders, on a fake
 * clock; SQLite (better-sqlite3) and Redis.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { restorableRedis, type Restorable } from './support/losable.ts'
import { newcomersAdmitted, restorableBackends } from './support/restore-probe.ts'
import { worker, START } from './breaker/harness.ts'

const redis = restorableRedis('caught-up')
beforeAll(() => redis.connect())
afterAll(() => redis.close())

const ROOM = { totalActiveUsers: 3, newUsersPerMinute: 100, sessionDurationMinutes: 30, syncIntervalMs: 0 }

/** A worker's way to the shared backend whose syncs can be held back (its reports land later, after a restore). */
function gated(inner: Coordinator): { coordinator: Coordinator; hold(): void; release(): Promise<void> } {
  let held: { promise: Promise<void>; open: () => void } | undefined
  const inFlight: Promise<unknown>[] = []
  const coordinator: Coordinator = {
    name: inner.name,
    increment: (r) => inner.increment(r),
    takeSlot: (r) => inner.takeSlot!(r),
    sync: (r) => {
      const gate = held?.promise
      const answer = gate ? gate.then(() => inner.sync(r)) : inner.sync(r)
      inFlight.push(answer.catch(() => {}))
      return answer
    },
  }
  return {
    coordinator,
    hold() {
      let open = () => {}
      const promise = new Promise<void>((resolve) => (open = resolve))
      held = { promise, open }
    },
    async release() {
      held?.open()
      held = undefined
      await Promise.all(inFlight.splice(0))
    },
  }
}

interface Case {
  workers: number
  /** Users admitted (and reported) before the backup; the rest of the room's 3 after it. */
  before: number
  /** The worker granting each of the places left after the backup: its reports are held until after the restore. */
  granters: number[]
  /** Requests refused on a worker that is not granting, reported before the restore: it sees the lost state's generation. */
  witnessed: number
  /** Order in which the workers report after the restore (an index into the fleet for each step). */
  order: number[]
}

async function admittedAfterRestore(backend: Restorable, c: Case): Promise<number> {
  const clock = { now: START + 1000 }
  const gates = Array.from({ length: c.workers }, () => gated(backend.coordinator))
  const fleet = gates.map((g) => worker(g.coordinator, clock, ROOM))
  for (const w of fleet) await w.status()
  for (let i = 0; i < c.before; i++) expect((await fleet[i % c.workers]!.request()).reason).toBe('slot')
  for (const w of fleet) await w.room.room.flush()
  await backend.backup()
  const granters = new Set(c.granters.slice(0, 3 - c.before).map((g) => g % c.workers))
  for (const g of granters) gates[g]!.hold()
  for (const [i, g] of c.granters.slice(0, 3 - c.before).entries()) {
    clock.now += 100 * (i + 1)
    expect((await fleet[g % c.workers]!.request()).reason).toBe('slot')
  }
  const witness = [...Array(c.workers).keys()].find((w) => !granters.has(w))
  if (witness !== undefined && c.witnessed > 0) {
    await fleet[witness]!.status() // it sees the grants (counted by the store in their step) before its refusals
    for (let i = 0; i < c.witnessed; i++) expect((await fleet[witness]!.request()).admitted).toBe(false)
    await fleet[witness]!.room.room.flush()
  }
  await backend.restore()
  // The held reports land first (on the copy), then the workers report in the generated order.
  for (const g of gates) await g.release()
  clock.now += 1000
  for (const w of c.order) await fleet[w % c.workers]!.status()
  return await newcomersAdmitted(fleet, clock)
}

const backends = restorableBackends(redis)

describe('an older copy put back and caught up with before the granting worker reported', () => {
  for (const [name, backend] of backends) {
    it(`${name}: generated fleets, granters, witnesses and report orders — nobody new while the room is full`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            workers: fc.integer({ min: 2, max: 3 }),
            before: fc.integer({ min: 0, max: 2 }),
            granters: fc.array(fc.nat(2), { minLength: 3, maxLength: 3 }),
            witnessed: fc.integer({ min: 0, max: 2 }),
            order: fc.array(fc.nat(2), { minLength: 0, maxLength: 4 }),
          }),
          async (c) => {
            expect(await admittedAfterRestore(backend(), c)).toBe(0)
          },
        ),
        { numRuns: name === 'Redis' ? 15 : 40, seed: 1919 },
      )
    })
  }

})
