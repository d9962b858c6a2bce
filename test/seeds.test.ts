/**
 * The seeds' worked numbers (shared/seeds/000 and 001), reproduced by the real code.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { minuteOf } from '../src/clock.ts'
import { takeSlot } from '../src/coordination/coordinator.ts'
import { waitingRoom, type WaitingRoomEnv } from '../src/index.ts'
import { fifoLimits, planMinute } from '../src/admission/plan.ts'
import { allocateSlots, availableSlots, eligibleSlots } from '../src/admission/slots.ts'
import { buildSnapshot } from '../src/admission/snapshot.ts'
import type { RoomState } from '../src/coordination/state.ts'
import { estimateFifoWait, usersAhead } from '../src/admission/wait.ts'
import { settle, START, TEST_SECRET } from './support/room-harness.ts'

const MINUTE = minuteOf(START)

describe('seed 000: local slots, the Anywhere pool and shared counters', () => {
  const limits = { totalActiveUsers: 200, newUsersPerMinute: 200 }

  it('200 limit, 50 active → 150 slots; San Jose 10% → 15, London 15% → 22, Anywhere → 113', () => {
    expect(availableSlots(limits, 50)).toBe(150)
    const allocation = allocateSlots(150, { 'San Jose': 20, London: 30 }, 200)
    expect(allocation.locations['San Jose']).toBe(15)
    expect([22, 23]).toContain(allocation.locations.London)
    expect(allocation.anywhere).toBe(113)
  })

  it('San Jose users use the local allocation first, then Anywhere; 128 at one worker all get in', async () => {
    // The core's two-call path (location counter, then Anywhere): the memory coordinator's fused takeSlot left out.
    const { name, increment, sync } = memoryCoordinator()
    const coordinator = { name, increment, sync }
    const allocation = allocateSlots(150, { SJC: 20, LHR: 30 }, 200)
    const request = (i: number) => ({
      roomId: 'seed000',
      location: 'SJC',
      minute: MINUTE,
      localLimit: allocation.locations.SJC!,
      anywhereLimit: allocation.anywhere,
      token: `user${i}`,
    })
    const results = []
    for (let i = 0; i < 129; i++) results.push(await takeSlot(coordinator, request(i)))
    expect(results.slice(0, 15).every((r) => r.admitted && r.via === 'location' && r.roundTrips === 1)).toBe(true)
    expect(results[15]).toMatchObject({ admitted: true, via: 'anywhere', repeat: false, roundTrips: 2 })
    expect(results.slice(0, 128).every((r) => r.admitted)).toBe(true)
    expect(results[128]!.admitted).toBe(false)
  })

  /** Two workers of one location with 10 slots between them (all traffic history there, so no Anywhere pool). */
  async function twoWorkers() {
    const now = START + 30_000
    const coordinator = memoryCoordinator()
    // The location saw the whole limit's worth of users two minutes ago: its share is 100% of the slots.
    await coordinator.sync({ id: 'history', roomId: 'seed000b', location: 'SJC', at: now, keepMinutes: 10, deltas: { [`t${MINUTE - 2}`]: 100 } })
    const worker = () => {
      const app = new Hono<WaitingRoomEnv>()
      app.use(waitingRoom({ roomId: 'seed000b', totalActiveUsers: 100, newUsersPerMinute: 10, secret: TEST_SECRET, coordinator, location: () => 'SJC', clock: () => now }))
      app.get('/', (c) => c.text(c.get('waitingRoom').outcome))
      return app
    }
    const workers = [worker(), worker()]
    const arrive = async (worker: number) => {
      const text = await (await workers[worker]!.request('/')).text()
      await settle()
      return text === 'admitted'
    }
    return { arrive }
  }

  it('with 10 slots, 7 arrivals at worker1 and 1 at worker2 are all admitted (no per-worker quota)', async () => {
    const { arrive } = await twoWorkers()
    const admitted = []
    for (let i = 0; i < 7; i++) admitted.push(await arrive(0))
    admitted.push(await arrive(1))
    expect(admitted.filter(Boolean).length).toBe(8)
  })

  it('with 10 slots, 15 arrivals → 10 admitted, 5 queued', async () => {
    const { arrive } = await twoWorkers()
    const admitted = []
    for (let i = 0; i < 15; i++) admitted.push(await arrive(i % 3 === 0 ? 1 : 0))
    expect(admitted.filter(Boolean).length).toBe(10)
    expect(admitted.filter((a) => !a).length).toBe(5)
  })
})

describe('seed 001: merged state, FIFO buckets and the wait estimate', () => {
  // Buckets 15:54, 15:55, 15:56 as minute numbers.
  const b54 = MINUTE - 6
  const b55 = MINUTE - 5
  const b56 = MINUTE - 4

  function state(nairobiActive: number, dublinActive: number): RoomState {
    return {
      at: START,
      locations: {
        Nairobi: { updatedAt: START, counts: { [`a${MINUTE - 1}`]: nairobiActive, [`w${MINUTE}.${b54}`]: 2, [`w${MINUTE}.${b55}`]: 20, [`w${MINUTE}.${b56}`]: 20 } },
        Dublin: { updatedAt: START, counts: { [`a${MINUTE - 1}`]: dublinActive, [`w${MINUTE}.${b55}`]: 30, [`w${MINUTE}.${b56}`]: 40 } },
      },
    }
  }

  it('Nairobi 151 + Dublin 50 = 201 active: no slots', () => {
    const snapshot = buildSnapshot(state(151, 50), START, 5)
    expect(snapshot.activeUsers).toBe(201)
    expect(snapshot.buckets).toEqual([
      { bucketId: b54, waiting: 2 },
      { bucketId: b55, waiting: 50 },
      { bucketId: b56, waiting: 60 },
    ])
    const plan = planMinute(snapshot, { totalActiveUsers: 200, newUsersPerMinute: 200 })
    expect(plan.slots).toBe(0)
    expect(fifoLimits(plan, 'Nairobi', b54)).toBeUndefined()
  })

  it('at 148 active, the 52 slots go to the 15:54 and 15:55 buckets first; 15:56 waits 60/30 = 2 minutes', () => {
    const snapshot = buildSnapshot(state(98, 50), START, 5)
    expect(snapshot.activeUsers).toBe(148)
    const plan = planMinute(snapshot, { totalActiveUsers: 200, newUsersPerMinute: 200 })
    expect(plan.slots).toBe(52)
    expect(plan.buckets.map((b) => b.eligibleSlots)).toEqual([2, 50, 0])
    expect(eligibleSlots(snapshot.buckets, 52).map((b) => b.eligibleSlots)).toEqual([2, 50, 0])
    // Queued users of the eligible buckets may take a slot; the 15:56 bucket and new users may not.
    expect(fifoLimits(plan, 'Nairobi', b54)).toBeDefined()
    expect(fifoLimits(plan, 'Dublin', b55)).toBeDefined()
    expect(fifoLimits(plan, 'Dublin', b56)).toBeUndefined()
    const newUser = fifoLimits(plan, 'Dublin', undefined)!
    expect(newUser.localLimit + newUser.anywhereLimit).toBe(0)
    const ahead = usersAhead(plan.buckets, b56)
    expect(ahead).toBe(60)
    expect(estimateFifoWait(ahead, 30)).toBe(2)
  })
})
