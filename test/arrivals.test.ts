/**
 * Analytics `arrivals` count users given a session or a place in line: not a queue-full answer (one visitor
 * refreshing a full queue is one arrival at most, none while it is full), nor a client the challenge holds in
 * its infinite queue. Generated refresh and bot counts; the admitted and queued users are counted exactly.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { waitingRoomAdmin } from '../src/admin/admin.ts'
import { proofOfWork } from '../src/challenge/proof-of-work.ts'
import { waitingRoom } from '../src/room/middleware.ts'
import type { WaitingRoomOptions } from '../src/room/options.ts'
import { settle, START, TEST_SECRET } from './support/room-harness.ts'

const TOKEN = 'admin-token-0123456789abcdef'

function worker(options: WaitingRoomOptions) {
  const clock = { now: START + 5000 }
  const middleware = waitingRoom({ secret: TEST_SECRET, clock: () => clock.now, random: () => 0.5, coordinator: memoryCoordinator(), storage: createStorage(), ...options })
  const app = new Hono()
  app.route('/_room', waitingRoomAdmin(middleware, { token: TOKEN }))
  app.use('*', middleware)
  app.all('*', (c) => c.text('origin'))
  const visit = async () => {
    const response = await app.request('/', { headers: { accept: 'text/html' } })
    await response.text()
    await settle()
    return response
  }
  const arrivals = async (): Promise<number> => {
    await middleware.room.flush()
    const response = await app.request(`/_room/analytics?from=${START}&to=${START + 60_000}`, { headers: { authorization: `Bearer ${TOKEN}` } })
    return (await response.json()).totals.arrivals
  }
  return { visit, arrivals, clock }
}

describe('arrivals', () => {
  it('queue-full refreshes are not arrivals', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 30 }), async (max, refreshes) => {
        const w = worker({ totalActiveUsers: 1, newUsersPerMinute: 100, maxQueuedUsers: max, syncIntervalMs: 0 })
        await w.visit() // admitted
        for (let i = 0; i < max; i++) expect((await w.visit()).headers.get('set-cookie')).not.toBeNull() // a place each
        for (let i = 0; i < refreshes; i++) {
          w.clock.now += 100
          expect((await w.visit()).headers.get('set-cookie')).toBeNull() // queue-full: no place
        }
        expect(await w.arrivals()).toBe(1 + max)
      }),
      { numRuns: 15, seed: 4 },
    )
  })

  it('clients held in the infinite queue are not arrivals', async () => {
    for (const bots of [1, 7, 50]) {
      const w = worker({ roomId: `arr-${bots}`, totalActiveUsers: 1, newUsersPerMinute: 100, challenge: { provider: proofOfWork({ difficulty: 4 }), onFail: 'infinite-queue' } })
      await w.visit() // a free place: admitted without a challenge
      for (let i = 0; i < bots; i++) expect((await w.visit()).headers.get('set-cookie')).toBeNull() // held
      expect(await w.arrivals(), `${bots} bots`).toBe(1)
    }
  })
})
