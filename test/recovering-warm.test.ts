/**
 * #14.4, "before the first mark, per worker": a backend emptied (or put back from an older copy) was noticed only
 * at the next sync of a worker that knew the old state. Until then a warm worker decided from its snapshot, and
 * the emptied counter — which forgot the minute's earlier grants — let it grant what the room had already given.
 * Now every grant carries the asking worker's epoch id and generation, and the grant step compares them with the
 * stored state in its own atomic step: a state lost or put back is marked there and the grant refused.
 *
 * Generated fleets of 2–4 warm workers (each synced with the state; report interval 30 s, so no background sync
 * comes between), generated orders of new users, syncs and clock steps before the loss, then new users and clock
 * steps after it — on memory (its state is process-local: the coordinator's state swapped), SQLite (better-sqlite3)
 * and Redis (its own key prefix). Oracles: after an emptied backend no warm worker admits anyone; after an older
 * copy is put back, no worker that saw a later generation than the copy's admits anyone, and once one of them
 * has asked, nobody does.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { losableMemory, losableRedis, losableSqlite, restorableRedis, restorableSqlite } from './support/losable.ts'
import { worker, START } from './breaker/harness.ts'

const emptiedRedis = losableRedis('warm-grant')
const restoredRedis = restorableRedis('warm-restore')
beforeAll(async () => {
  await emptiedRedis.connect()
  await restoredRedis.connect()
})
afterAll(async () => {
  await emptiedRedis.close()
  await restoredRedis.close()
})

type Step = { kind: 'new'; worker: number } | { kind: 'sync'; worker: number } | { kind: 'tick'; ms: number }

interface Case {
  limit: number
  workers: number
  /** Before the copy point (emptied: before the loss too). */
  before: Step[]
  /** After the copy point, before the copy is put back (or the backend emptied). */
  between: Step[]
  /** After the loss: only new users and clock steps — no sync, so every decision is a warm worker's own. */
  after: Step[]
}

/** A backend broken between `between` and `after`: emptied, or put back to the copy taken before `between`. */
interface Breakable {
  coordinator: Coordinator
  copy(): Promise<void>
  break(): Promise<void>
}

const stepArb = (workers: number, syncs: boolean): fc.Arbitrary<Step> => {
  const w = fc.integer({ min: 0, max: workers - 1 })
  const steps: fc.Arbitrary<Step>[] = [
    fc.record({ kind: fc.constant('new' as const), worker: w }),
    fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 700 }) }),
  ]
  if (syncs) steps.push(fc.record({ kind: fc.constant('sync' as const), worker: w }))
  return fc.oneof(...steps)
}

const caseArb: fc.Arbitrary<Case> = fc.integer({ min: 2, max: 4 }).chain((workers) =>
  fc.record({
    limit: fc.integer({ min: 2, max: 5 }),
    workers: fc.constant(workers),
    before: fc.array(stepArb(workers, true), { maxLength: 6 }),
    between: fc.array(stepArb(workers, true), { maxLength: 6 }),
    after: fc.array(stepArb(workers, false), { minLength: 1, maxLength: 6 }),
  }),
)

/** New users admitted after the loss: by every worker, and by workers that saw a later generation than the copy's. */
async function admittedAfterLoss(backend: Breakable, c: Case): Promise<{ any: number; newer: number; afterNewerAsked: number; total: number }> {
  const clock = { now: START + 1000 }
  const options = { totalActiveUsers: c.limit, newUsersPerMinute: 100, sessionDurationMinutes: 30, syncIntervalMs: 30_000 }
  const fleet = Array.from({ length: c.workers }, () => worker(backend.coordinator, clock, options))
  const link = (i: number) => fleet[i]!.room.room.link
  let total = 0
  const run = async (steps: Step[], admitted: (i: number) => void = () => {}, asked: (i: number) => void = () => {}): Promise<void> => {
    for (const step of steps) {
      if (step.kind === 'tick') clock.now += step.ms
      else if (step.kind === 'sync') await link(step.worker).sync(backend.coordinator, 'local', clock.now)
      else {
        asked(step.worker)
        if ((await fleet[step.worker]!.request()).reason !== 'slot') continue
        total++
        admitted(step.worker)
      }
    }
  }
  // Every worker is warm: it synced with the state (and knows its epoch) before anything happens.
  for (let i = 0; i < c.workers; i++) await link(i).sync(backend.coordinator, 'local', clock.now)
  await run(c.before)
  // The copy's generation, read by a report that changes nothing counted.
  const probe = { id: crypto.randomUUID(), roomId: 'default', location: 'probe', at: clock.now, keepMinutes: 40, deltas: {} }
  const copyGeneration = (await backend.coordinator.sync(probe)).generation ?? -1
  await backend.copy()
  await run(c.between)
  await backend.break()
  const result = { any: 0, newer: 0, afterNewerAsked: 0, total: 0 }
  let newerAsked = false
  const newer = (i: number) => (link(i).generation ?? -1) > copyGeneration
  await run(
    c.after,
    (i) => {
      result.any++
      if (newer(i)) result.newer++
      if (newerAsked) result.afterNewerAsked++
    },
    (i) => void (newerAsked ||= newer(i)),
  )
  return { ...result, total }
}

const emptied: [string, () => Breakable][] = [
  ['memory', () => breakable(losableMemory())],
  ['SQLite (better-sqlite3)', () => breakable(losableSqlite())],
  ['Redis', () => breakable(emptiedRedis.make())],
]
const restored: [string, () => Breakable][] = [
  ['SQLite (better-sqlite3)', () => fromCopy(restorableSqlite())],
  ['Redis', () => fromCopy(restoredRedis.make())],
]

function breakable(backend: { coordinator: Coordinator; lose(): Promise<void> }): Breakable {
  return { coordinator: backend.coordinator, copy: async () => {}, break: () => backend.lose() }
}

function fromCopy(backend: { coordinator: Coordinator; backup(): Promise<void>; restore(): Promise<void> }): Breakable {
  return { coordinator: backend.coordinator, copy: () => backend.backup(), break: () => backend.restore() }
}

describe('a warm worker grants nothing from a state lost since its last sync, before any sync tells it', () => {
  for (const [name, backend] of emptied) {
    it(`emptied ${name}: generated fleets, limits and orders of new users, syncs and clock steps`, async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const { any, total } = await admittedAfterLoss(backend(), c)
          expect({ any, overLimit: total > c.limit }).toEqual({ any: 0, overLimit: false })
        }),
        { numRuns: name === 'Redis' ? 40 : 80, seed: 1441 },
      )
    }, 180_000)
  }

  for (const [name, backend] of restored) {
    it(`older copy put back, ${name}: no worker that saw a later generation grants, nor anyone after it asked`, async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const { newer, afterNewerAsked } = await admittedAfterLoss(backend(), c)
          expect({ newer, afterNewerAsked }).toEqual({ newer: 0, afterNewerAsked: 0 })
        }),
        { numRuns: name === 'Redis' ? 40 : 80, seed: 1442 },
      )
    }, 180_000)
  }

  it('named: A admits 2 of 3 and syncs, B still sees the room empty; the backend is emptied; B admits no one', async () => {
    for (const [, backend] of emptied) {
      const steps: Step[] = [{ kind: 'new', worker: 0 }, { kind: 'new', worker: 0 }, { kind: 'sync', worker: 0 }]
      const after: Step[] = [{ kind: 'new', worker: 1 }, { kind: 'new', worker: 1 }, { kind: 'new', worker: 1 }, { kind: 'new', worker: 0 }]
      const result = await admittedAfterLoss(backend(), { limit: 3, workers: 2, before: steps, between: [], after })
      expect({ any: result.any, total: result.total }).toEqual({ any: 0, total: 2 })
    }
  })
})
