/**
 * Property-based tests: over generated arrivals, departures, check-ins and clock steps, the room never
 * admits more than newUsersPerMinute in a minute, never has more than totalActiveUsers active, and FIFO
 * never lets a later bucket in before an earlier one.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { fromNodeRedis, redisCoordinator } from '../adapters/upstash/index.ts'
import { connectTestRedis, deleteKeys, testPrefix, type TestRedis } from '../adapters/upstash/test/redis.ts'
import { afterAll, beforeAll } from 'vitest'
import { runSteps, stepArbitrary } from './support/property-driver.ts'

const limitsArbitrary = fc.record({
  totalActiveUsers: fc.integer({ min: 1, max: 12 }),
  newUsersPerMinute: fc.integer({ min: 1, max: 8 }),
  sessionDurationMinutes: fc.integer({ min: 1, max: 3 }),
})

describe('room invariants (memory coordinator)', () => {
  it('hold for any sequence of arrivals, departures, check-ins and clock steps', async () => {
    await fc.assert(
      fc.asyncProperty(limitsArbitrary, fc.array(stepArbitrary, { minLength: 5, maxLength: 40 }), async (limits, steps) => {
        const violation = await runSteps(memoryCoordinator(), limits, steps)
        expect(violation).toBeUndefined()
      }),
      { numRuns: 60 },
    )
  }, 120_000)
})

describe('room invariants (Redis coordinator over TCP, a real redis-server)', () => {
  let client: TestRedis
  const prefix = testPrefix('properties')
  beforeAll(async () => {
    client = await connectTestRedis()
  })
  afterAll(async () => {
    await deleteKeys(client, prefix)
    await client.quit()
  })

  it('hold for any sequence of arrivals, departures, check-ins and clock steps', async () => {
    await fc.assert(
      fc.asyncProperty(limitsArbitrary, fc.array(stepArbitrary, { minLength: 5, maxLength: 30 }), async (limits, steps) => {
        const coordinator = redisCoordinator(fromNodeRedis(client), { prefix })
        const violation = await runSteps(coordinator, limits, steps)
        expect(violation).toBeUndefined()
      }),
      { numRuns: 15 },
    )
  }, 240_000)
})
