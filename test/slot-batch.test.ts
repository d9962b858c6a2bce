/**
 * The core's batching of new users' slot requests (slot-batch.ts, #16): the requests of a room made in one turn
 * go to `takeSlots` as one call, in arrival order, at most MAX_SLOT_BATCH at a time, each answered as a call of its
 * own would be; a coordinator without `takeSlots` is asked per request at once; a failed batch fails every request
 * of it, which then follows `failMode` exactly as a failed single call does.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import type { Coordinator, SlotRequest, SlotResult } from '../src/coordination/coordinator.ts'
import { MAX_SLOT_BATCH, takeSlotBatched } from '../src/coordination/slot-batch.ts'
import { waitingRoom, type WaitingRoomEnv } from '../src/index.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

const MINUTE = Math.floor(START / 60_000)

/** A memory coordinator with a `takeSlots` that decides a batch one request after another, recording each batch. */
function batching(fail?: 'reject' | 'throw' | 'short') {
  const inner = memoryCoordinator()
  const batches: SlotRequest[][] = []
  const coordinator: Coordinator = {
    ...inner,
    name: 'batching',
    takeSlots(requests) {
      batches.push([...requests])
      if (fail === 'throw') throw new Error('thrown')
      if (fail === 'reject') return Promise.reject(new Error('connection refused'))
      return (async () => {
        const results: SlotResult[] = []
        for (const request of requests) results.push(await inner.takeSlot(request))
        return fail === 'short' ? results.slice(1) : results
      })()
    },
  }
  return { coordinator, batches }
}

const requestArbitrary = fc.record({
  roomId: fc.constantFrom('r1', 'r2'),
  location: fc.constantFrom('SJC', 'FRA', 'NRT'),
  minute: fc.constant(MINUTE),
  localLimit: fc.integer({ min: 0, max: 5 }),
  anywhereLimit: fc.integer({ min: 0, max: 5 }),
  token: fc.integer({ min: 0, max: 30 }).map((i) => `t${i}`),
})

const withoutTrips = ({ roundTrips: _, ...rest }: SlotResult) => rest

describe('slot batching (core)', () => {
  it('one turn of a crowd is one takeSlots call per room, in arrival order, answered as sequential single calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(requestArbitrary, { minLength: 1, maxLength: 150 }), async (requests) => {
        const { coordinator, batches } = batching()
        const batched = await Promise.all(requests.map((request) => takeSlotBatched(coordinator, request)))
        const sequential = memoryCoordinator()
        const expected: SlotResult[] = []
        for (const request of requests) expected.push(await sequential.takeSlot(request))
        expect(batched.map(withoutTrips)).toEqual(expected.map(withoutTrips))
        // Per room: the arrival order, cut into batches of at most MAX_SLOT_BATCH, every request once.
        for (const roomId of ['r1', 'r2']) {
          const ofRoom = batches.filter((batch) => batch[0]!.roomId === roomId)
          expect(ofRoom.every((batch) => batch.length <= MAX_SLOT_BATCH && batch.every((r) => r.roomId === roomId))).toBe(true)
          expect(ofRoom.flat()).toEqual(requests.filter((request) => request.roomId === roomId))
          expect(ofRoom.length).toBe(Math.ceil(ofRoom.flat().length / MAX_SLOT_BATCH))
        }
      }),
      { numRuns: 60 },
    )
  })

  it('requests of later turns go in later batches', async () => {
    const { coordinator, batches } = batching()
    const slot = (token: string): SlotRequest => ({ roomId: 'r', location: 'SJC', minute: MINUTE, localLimit: 2, anywhereLimit: 0, token })
    const first = [takeSlotBatched(coordinator, slot('a')), takeSlotBatched(coordinator, slot('b'))]
    // The batch's own end of turn is a setImmediate queued before this one, so it has gone out when this resolves (a
    // setTimeout(0) here raced it: timers and immediates run in either order from the loop's point of view).
    await new Promise((resolve) => setImmediate(resolve))
    const second = takeSlotBatched(coordinator, slot('c'))
    expect((await Promise.all([...first, second])).map((r) => r.admitted)).toEqual([true, true, false])
    expect(batches.map((batch) => batch.map((r) => r.token))).toEqual([['a', 'b'], ['c']])
  })

  it('a coordinator without takeSlots is asked per request at once (the memory path: no turn waited for)', async () => {
    const inner = memoryCoordinator()
    let calls = 0
    const coordinator: Coordinator = { ...inner, takeSlot: (request) => (calls++, inner.takeSlot(request)) }
    const answers = [1, 2, 3].map((i) => takeSlotBatched(coordinator, { roomId: 'r', location: 'SJC', minute: MINUTE, localLimit: 2, anywhereLimit: 0, token: `t${i}` }))
    expect(calls).toBe(3) // before any turn ends
    expect((await Promise.all(answers)).map((r) => r.admitted)).toEqual([true, true, false])
  })

  for (const fail of ['reject', 'throw', 'short'] as const) {
    it(`a failed batch (${fail}) fails every request of it`, async () => {
      const { coordinator } = batching(fail)
      const answers = await Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => takeSlotBatched(coordinator, { roomId: 'r', location: 'SJC', minute: MINUTE, localLimit: 9, anywhereLimit: 0, token: `t${i}` })),
      )
      expect(answers.map((answer) => answer.status)).toEqual(Array(5).fill('rejected'))
    })
  }
})

describe('slot batching through the middleware', () => {
  /** `users` new users arriving in one turn; the outcomes and reasons, in arrival order. */
  async function crowd(coordinator: Coordinator, users: number, failMode: 'open' | 'closed') {
    const app = new Hono<WaitingRoomEnv>()
    const middleware = waitingRoom({ secret: TEST_SECRET, clock: () => START + 1_000, coordinator, failMode, totalActiveUsers: 40, newUsersPerMinute: 12, queueingMethod: 'random' })
    app.use('*', middleware)
    app.all('*', (c) => c.text(c.get('waitingRoom').reason))
    await app.request('/warm-up') // a first sync: the worker has state and a reference
    const responses = await Promise.all(Array.from({ length: users }, () => app.request('/')))
    return Promise.all(responses.map(async (response) => (response.headers.has('refresh') ? 'queued' : await response.text())))
  }

  for (const failMode of ['open', 'closed'] as const) {
    it(`a failed batch: every user of it follows failMode '${failMode}', as with a failed single call`, async () => {
      const failing = memoryCoordinator()
      const single: Coordinator = { ...failing, takeSlot: () => Promise.reject(new Error('connection refused')) }
      const warn = console.warn
      console.warn = () => {}
      try {
        const batched = await crowd(batching('reject').coordinator, 20, failMode)
        const alone = await crowd(single, 20, failMode)
        expect(batched).toEqual(alone)
        expect(batched).toEqual(Array(20).fill(failMode === 'open' ? 'fail-open' : 'queued'))
      } finally {
        console.warn = warn
      }
    })
  }

  it('a crowd is decided in one batch and admits exactly what single calls admit', async () => {
    const { coordinator, batches } = batching()
    const batched = await crowd(coordinator, 30, 'closed')
    const alone = await crowd(memoryCoordinator(), 30, 'closed')
    expect(batches.filter((batch) => batch.length > 1).length).toBeGreaterThan(0)
    expect(batched.filter((outcome) => outcome === 'slot').length).toBe(alone.filter((outcome) => outcome === 'slot').length)
    expect(batched.filter((outcome) => outcome === 'slot').length).toBeGreaterThan(0)
  })
})
