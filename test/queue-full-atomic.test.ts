/**
 * `maxQueuedUsers` within one worker is exact: a worker counts the queue places it gave since its last
 * snapshot, and checks and counts with no await between, so neither concurrent new users nor a burst inside
 * one sync interval get more places than the limit leaves. Across workers the overshoot is bounded: each
 * worker gives at most `maxQueuedUsers` minus the waiting users it last saw, per sync.
 * Generated limits, concurrencies, sync intervals and worker counts.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { buildSnapshot } from '../src/admission/snapshot.ts'
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { waitingRoom } from '../src/index.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

let seq = 0

function worker(roomId: string, coordinator: Coordinator, clock: { now: number }, maxQueuedUsers: number, syncIntervalMs: number) {
  const app = new Hono()
  const middleware = waitingRoom({ roomId, coordinator, secret: TEST_SECRET, clock: () => clock.now, totalActiveUsers: 1, newUsersPerMinute: 1000, maxQueuedUsers, syncIntervalMs, jsonResponseEnabled: true })
  app.use('*', middleware)
  app.all('*', (c) => c.text('origin'))
  return { app, room: middleware.room }
}

/** A new user's answer: admitted, a place in line (a ticket), or queue-full (none). */
async function newUser(app: Hono): Promise<'admitted' | 'place' | 'full'> {
  const response = await app.request('/', { headers: { accept: 'application/json' } })
  const body = await response.text()
  if (body === 'origin') return 'admitted'
  return JSON.parse(body).waitingRoom.queueIsFull ? 'full' : 'place'
}

async function waiting(coordinator: Coordinator, roomId: string, at: number): Promise<number> {
  const state = await coordinator.sync({ id: crypto.randomUUID(), roomId, location: 'local', at, keepMinutes: 10, deltas: {} })
  return buildSnapshot(state, at, 5).waitingUsers
}

describe('maxQueuedUsers: a worker never gives more places than the limit leaves', () => {
  it('the reported case: 50 concurrent new users at maxQueuedUsers 3 get 3 places', async () => {
    const clock = { now: START }
    const roomId = `qfa-${++seq}`
    const coordinator = memoryCoordinator()
    const { app, room } = worker(roomId, coordinator, clock, 3, 1000)
    expect(await newUser(app)).toBe('admitted')
    const answers = await Promise.all(Array.from({ length: 50 }, () => newUser(app)))
    expect(answers.filter((a) => a === 'place').length).toBe(3)
    // And 20 more within the same second, one after another: none.
    for (let i = 0; i < 20; i++) {
      clock.now += 50
      expect(await newUser(app)).toBe('full')
    }
    await room.flush()
    expect(await waiting(coordinator, roomId, clock.now)).toBe(3)
  })

  for (const seed of [3, 31, 313]) {
    it(`generated limits × concurrency × sync intervals × workers (seed ${seed})`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 8 }),
          fc.array(fc.integer({ min: 1, max: 25 }), { minLength: 1, maxLength: 4 }),
          fc.constantFrom(0, 1000, 5000),
          fc.integer({ min: 1, max: 3 }),
          async (max, waves, syncIntervalMs, workers) => {
            const clock = { now: START }
            const roomId = `qfa-${++seq}`
            const coordinator = memoryCoordinator()
            const fleet = Array.from({ length: workers }, () => worker(roomId, coordinator, clock, max, syncIntervalMs))
            expect(await newUser(fleet[0]!.app)).toBe('admitted')
            const perWorker = fleet.map(() => 0)
            let places = 0
            for (const wave of waves) {
              const answers = await Promise.all(Array.from({ length: wave }, (_, i) => newUser(fleet[i % workers]!.app).then((a) => [i % workers, a] as const)))
              for (const [w, answer] of answers) if (answer === 'place') (perWorker[w]!++, places++)
              clock.now += 200
            }
            // One worker: exact. Several: each gave at most the limit (what it saw free), so the room holds ≤ workers × max.
            if (workers === 1) expect(places).toBe(Math.min(max, waves.reduce((a, b) => a + b, 0)))
            for (const count of perWorker) expect(count).toBeLessThanOrEqual(max)
            expect(places).toBeLessThanOrEqual(workers * max)
            for (const { room } of fleet) await room.flush()
            expect(await waiting(coordinator, roomId, clock.now)).toBe(places)
          },
        ),
        { numRuns: 40, seed },
      )
    })
  }
})
