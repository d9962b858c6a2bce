/**
 * #14 item 4, the grant step: after a backend lost its state, recovery used to be learned per worker — a worker
 * whose view of the new, empty state came before any worker that knew the old one reported the loss went on
 * granting from it. Now the loss is marked in the backend in the step that finds it (the sync of a worker that
 * saw another epoch, or the report of a worker that judged an old session), and every grant reads that mark.
 *
 * Generated orders of events over a fleet of 2–3 workers on SQLite (better-sqlite3) and Redis (its own key
 * prefix): the room filled, the backend emptied, then cold starts, syncs, new users, old sessions checking in
 * and clock steps in any order. Oracle: once any worker that knew the old state has synced, or an old session
 * has checked in, no new user is admitted anywhere while the old sessions last — whatever each worker's
 * snapshot says. (Before that moment a fleet's cold workers cannot know: README, Known limits.)
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { losableRedis, losableSqlite, type Losable } from './support/losable.ts'
import { worker, START } from './breaker/harness.ts'

const redis = losableRedis('recovering-grant')
beforeAll(() => redis.connect())
afterAll(() => redis.close())

type Event =
  | { kind: 'cold'; worker: number }
  | { kind: 'sync'; worker: number }
  | { kind: 'new'; worker: number }
  | { kind: 'old'; worker: number; user: number }
  | { kind: 'tick'; ms: number }

const eventArb = (workers: number): fc.Arbitrary<Event> => {
  const w = fc.integer({ min: 0, max: workers - 1 })
  return fc.oneof(
    fc.record({ kind: fc.constant('cold' as const), worker: w }),
    fc.record({ kind: fc.constant('sync' as const), worker: w }),
    fc.record({ kind: fc.constant('new' as const), worker: w }),
    fc.record({ kind: fc.constant('new' as const), worker: w }),
    fc.record({ kind: fc.constant('old' as const), worker: w, user: fc.nat() }),
    fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 4000 }) }),
  )
}

interface Case {
  limit: number
  workers: number
  events: Event[]
}

/** New users admitted after the loss was known to the fleet (any worker that knew the old state synced). */
async function admittedOnceKnown(backend: Losable, c: Case): Promise<{ afterKnown: number; known: boolean }> {
  const clock = { now: START + 1000 }
  const options = { totalActiveUsers: c.limit, newUsersPerMinute: 100, sessionDurationMinutes: 30, syncIntervalMs: 0 }
  const make = () => worker(backend.coordinator, clock, options)
  const fleet = Array.from({ length: c.workers }, make)
  /** Whether each worker synced with the old state (it knows its epoch): those that admitted a user. */
  const warm = fleet.map((_, i) => i < c.limit)
  const users: (string | undefined)[] = []
  for (let i = 0; i < c.limit; i++) {
    const user = await fleet[i % c.workers]!.request()
    expect(user.reason).toBe('slot')
    users.push(user.cookie)
  }
  for (const w of fleet) await w.room.room.flush()
  await backend.lose()
  let known = false
  let afterKnown = 0
  for (const event of c.events) {
    if (event.kind === 'tick') clock.now += event.ms
    else if (event.kind === 'cold') {
      fleet[event.worker] = make()
      warm[event.worker] = false
    } else {
      const w = fleet[event.worker]!
      // A sync that is due (its interval over, or a report to send): the worker's background sync, made now.
      if (event.kind === 'sync') await w.room.room.link.sync(backend.coordinator, 'local', clock.now)
      else if (event.kind === 'old') await w.request(users[event.user % users.length])
      else if ((await w.request()).reason === 'slot' && known) afterKnown++
      await w.room.room.flush()
      // A worker that knew the old state has now synced with the new one, or a worker that knows only the new
      // state judged an old session. (A warm worker serving a user may make no sync at all: not counted.)
      if ((event.kind === 'sync' && warm[event.worker]) || (event.kind === 'old' && !warm[event.worker])) known = true
    }
  }
  return { afterKnown, known }
}

const backends: [string, () => Losable][] = [['SQLite (better-sqlite3)', losableSqlite], ['Redis', () => redis.make()]]

describe('a backend that came back empty: once any worker knows, no worker grants', () => {
  for (const [name, backend] of backends) {
    it(`${name}: generated fleets, limits and orders of cold starts, syncs, new users, old sessions and clock steps`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 2, max: 3 }).chain((workers) =>
            fc.record({ limit: fc.integer({ min: 2, max: 4 }), workers: fc.constant(workers), events: fc.array(eventArb(workers), { minLength: 1, maxLength: 12 }) }),
          ),
          async (c) => {
            expect((await admittedOnceKnown(backend(), c)).afterKnown).toBe(0)
          },
        ),
        { numRuns: name === 'Redis' ? 40 : 80, seed: 1404 },
      )
    }, 180_000)
  }

  it('named: B starts cold on the emptied backend and sees an empty room; A, which knew the old state, syncs; B grants nothing', async () => {
    for (const [, backend] of backends) {
      const events: Event[] = [{ kind: 'cold', worker: 1 }, { kind: 'sync', worker: 1 }, { kind: 'sync', worker: 0 }, { kind: 'new', worker: 1 }, { kind: 'new', worker: 1 }]
      const result = await admittedOnceKnown(backend(), { limit: 3, workers: 2, events })
      expect(result).toEqual({ afterKnown: 0, known: true })
    }
  })
})
