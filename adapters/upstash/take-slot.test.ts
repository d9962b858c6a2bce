/**
 * The fused new-user decision: location counter, then Anywhere, in one script call — one round trip,
 * counted at the bridge (HTTP requests) and at the client (calls), over REST and TCP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SlotRequest } from '../../src/coordination/coordinator.ts'
import { fromNodeRedis, SCRIPTS, upstashCoordinator, type RedisScripting, type UpstashCoordinator } from './index.ts'
import { counterValue, openRedisFixture, type RedisFixture } from './test/fixture.ts'

const MINUTE = 29_405_520

let fixture: RedisFixture
beforeAll(async () => {
  fixture = await openRedisFixture('take')
})
afterAll(() => fixture.close())

/** Counts the calls a coordinator makes to Redis: its round trips. */
function counting(client: RedisScripting): RedisScripting & { calls: number } {
  const counted = {
    calls: 0,
    evalsha: (sha1: string, keys: string[], args: string[]) => {
      counted.calls++
      return client.evalsha(sha1, keys, args)
    },
    eval: (script: string, keys: string[], args: string[]) => {
      counted.calls++
      return client.eval(script, keys, args)
    },
  }
  return counted
}

const request = (roomId: string, token: string, localLimit: number, anywhereLimit: number): SlotRequest => ({
  roomId,
  location: 'SJC',
  minute: MINUTE,
  localLimit,
  anywhereLimit,
  token,
})

describe('upstash takeSlot', () => {
  const clients = {
    REST: () => fixture.rest(),
    TCP: () => fromNodeRedis(fixture.tcp),
  }
  for (const [transport, client] of Object.entries(clients)) {
    describe(transport, () => {
      let coordinator: UpstashCoordinator
      beforeAll(() => {
        coordinator = upstashCoordinator(client(), { prefix: fixture.prefix })
      })

      it('takes the location counter first, then Anywhere, then queues', async () => {
        const roomId = `order-${transport}`
        const results = []
        for (const token of ['a', 'b', 'c', 'd']) results.push(await coordinator.takeSlot(request(roomId, token, 2, 1)))
        expect(results.map((result) => result.via ?? 'queued')).toEqual(['location', 'location', 'anywhere', 'queued'])
        expect(results.every((result) => result.repeat !== true)).toBe(true)
      })

      it('answers a repeated ticket from either counter without counting it, even when limits grew', async () => {
        const roomId = `repeat-${transport}`
        await coordinator.takeSlot(request(roomId, 'first', 1, 5))
        expect(await coordinator.takeSlot(request(roomId, 'viaAnywhere', 1, 5))).toMatchObject({ admitted: true, via: 'anywhere' })
        // The location has room now, but this ticket already holds an Anywhere slot.
        expect(await coordinator.takeSlot(request(roomId, 'viaAnywhere', 9, 5))).toMatchObject({ admitted: true, via: 'anywhere', repeat: true })
        expect(await coordinator.takeSlot(request(roomId, 'first', 9, 5))).toMatchObject({ admitted: true, via: 'location', repeat: true })
        const counter = (scope: string) => counterValue(fixture.tcp, fixture.prefix, roomId, scope, MINUTE)
        expect([await counter('SJC'), await counter('*')]).toEqual([1, 1])
      })

      it('lowers each counter by what its minute − 1 gave beyond the reported value', async () => {
        const roomId = `carry-${transport}`
        // Minute − 1: the location gives 3, Anywhere 2.
        for (const token of ['p1', 'p2', 'p3', 'p4', 'p5']) await coordinator.takeSlot({ ...request(roomId, token, 3, 2), minute: MINUTE - 1 })
        // Location 4 − (3 − 1) = 2; Anywhere 3 − (2 − 0) = 1.
        const carried = (token: string) => coordinator.takeSlot({ ...request(roomId, token, 4, 3), localPreviousReported: 1, anywherePreviousReported: 0 })
        const results = []
        for (const token of ['a', 'b', 'c', 'd']) results.push(await carried(token))
        expect(results.map((result) => result.via ?? 'queued')).toEqual(['location', 'location', 'anywhere', 'queued'])
        expect(await carried('a')).toMatchObject({ admitted: true, via: 'location', repeat: true })
      })

      it('skips a counter whose limit is 0', async () => {
        const roomId = `zero-${transport}`
        expect(await coordinator.takeSlot(request(roomId, 'a', 0, 1))).toMatchObject({ admitted: true, via: 'anywhere' })
        expect(await coordinator.takeSlot(request(roomId, 'b', 0, 1))).toMatchObject({ admitted: false })
        expect(await coordinator.takeSlot(request(roomId, 'c', 1, 0))).toMatchObject({ admitted: true, via: 'location' })
        expect(await coordinator.takeSlot(request(roomId, 'd', 0, 0))).toMatchObject({ admitted: false })
      })

      it('costs one round trip per decision, admitted or not', async () => {
        const wrapped = counting(client())
        const counted = upstashCoordinator(wrapped, { prefix: fixture.prefix })
        const roomId = `trips-${transport}`
        await counted.takeSlot(request(roomId, 'warm-up', 1, 1)) // loads the script if this server never saw it
        const callsBefore = wrapped.calls
        const requestsBefore = fixture.bridge.requests
        const results = []
        for (let i = 0; i < 20; i++) results.push(await counted.takeSlot(request(roomId, `t${i}`, 5, 5)))
        expect(results.filter((result) => result.admitted).length).toBe(9) // 10 slots, one taken by the warm-up
        expect(results.map((result) => result.roundTrips)).toEqual(Array(20).fill(1))
        expect(wrapped.calls - callsBefore).toBe(20)
        if (transport === 'REST') expect(fixture.bridge.requests - requestsBefore).toBe(20)
      })

      it('falls back to EVAL when Redis does not know the script (NOSCRIPT), at the cost of a second round trip', async () => {
        const real = client()
        // Ask for a hash this server has never loaded, so the NOSCRIPT comes from Redis itself.
        const forgetful = counting({ evalsha: (_sha1, keys, args) => real.evalsha('f'.repeat(40), keys, args), eval: real.eval.bind(real) })
        const coordinatorAfterFlush = upstashCoordinator(forgetful, { prefix: fixture.prefix })
        const result = await coordinatorAfterFlush.takeSlot(request(`noscript-${transport}`, 'a', 1, 0))
        expect(result).toMatchObject({ admitted: true, via: 'location', roundTrips: 2 })
        expect(forgetful.calls).toBe(3) // the two script calls, and the minute's INFO reading (eviction-guard.ts)
        const synced = await coordinatorAfterFlush.sync({ id: 'r1', roomId: `noscript-${transport}`, location: 'SJC', at: MINUTE * 60_000, keepMinutes: 10, deltas: { [`t${MINUTE}`]: 1 } })
        // The slot's admission is counted by the slot's own script; the report adds the traffic.
        expect(synced.locations.SJC?.counts).toEqual({ [`a${MINUTE}`]: 1, [`n${MINUTE}`]: 1, [`t${MINUTE}`]: 1 })
      })
    })
  }

  it('loads every script into Redis once used', async () => {
    const coordinator = upstashCoordinator(fromNodeRedis(fixture.tcp), { prefix: fixture.prefix })
    await coordinator.increment({ roomId: 'loaded', scope: 'SJC', minute: MINUTE, limit: 1, token: 'a' })
    expect(await fixture.tcp.scriptExists(SCRIPTS.map((script) => script.sha1))).toEqual([1, 1, 1])
  })
})
