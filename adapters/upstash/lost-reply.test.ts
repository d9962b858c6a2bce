/**
 * A reply lost after the script ran (the bridge runs the command, then drops the connection) and the
 * call retried: Redis counts it once. A transport retry (@upstash/redis resends the same command) gets
 * the first answer exactly; a caller's retry with the same ticket gets it flagged `repeat`.
 */
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WaitingRoomError } from '../../src/errors.ts'
import { waitingRoom, type WaitingRoomEnv } from '../../src/index.ts'
import type { WorkerReport } from '../../src/coordination/state.ts'
import { syncScript, takeSlotScript } from './scripts.ts'
import { upstashCoordinator } from './index.ts'
import { readCounts } from './room-state.ts'
import { counterValue, openRedisFixture, type RedisFixture } from './test/fixture.ts'

const MINUTE = 29_405_520
const AT = MINUTE * 60_000

let fixture: RedisFixture
beforeAll(async () => {
  fixture = await openRedisFixture('lost')
})
afterAll(() => fixture.close())

const runs = (sha1: string) => (command: string[]) => command[0]!.toLowerCase() === 'evalsha' && command[1] === sha1
const counter = (roomId: string, scope: string) => counterValue(fixture.tcp, fixture.prefix, roomId, scope, MINUTE)
const slot = (roomId: string, token: string) => ({ roomId, location: 'SJC', minute: MINUTE, localLimit: 5, anywhereLimit: 0, token })

describe('upstash: a reply lost after the script ran', () => {
  it('the client resends the same call: admitted once, answered as the first time', async () => {
    const coordinator = upstashCoordinator(fixture.rest(), { prefix: fixture.prefix })
    await coordinator.takeSlot(slot('transport', 'warm-up'))
    const executedBefore = fixture.bridge.executed
    fixture.bridge.dropReplies(1, runs(takeSlotScript.sha1))
    const result = await coordinator.takeSlot(slot('transport', 'lost'))
    expect(fixture.bridge.executed - executedBefore).toBe(2) // the script ran twice…
    expect(result).toMatchObject({ admitted: true, via: 'location', repeat: false, roundTrips: 1 })
    expect(await counter('transport', 'SJC')).toBe(2) // …and took one slot (plus the warm-up's)
  })

  it('the caller retries with the same ticket: admitted once, flagged as a repeat', async () => {
    const coordinator = upstashCoordinator(fixture.rest({ retry: false }), { prefix: fixture.prefix })
    fixture.bridge.dropReplies(1, runs(takeSlotScript.sha1))
    const lost = await coordinator.takeSlot(slot('caller', 'lost')).catch((error: unknown) => error)
    expect(lost).toBeInstanceOf(WaitingRoomError)
    expect(await coordinator.takeSlot(slot('caller', 'lost'))).toMatchObject({ admitted: true, via: 'location', repeat: true })
    expect(await counter('caller', 'SJC')).toBe(1)
    expect(await coordinator.increment({ roomId: 'caller', scope: 'SJC', minute: MINUTE, limit: 5, token: 'next' })).toEqual({ taken: true, seq: 1 })
  })

  it('a report whose reply was lost is applied once when resent', async () => {
    const coordinator = upstashCoordinator(fixture.rest(), { prefix: fixture.prefix })
    const report: WorkerReport = { id: 'lost-report', roomId: 'report', location: 'SJC', at: AT, keepMinutes: 10, deltas: { [`n${MINUTE}`]: 3 } }
    fixture.bridge.dropReplies(1, runs(syncScript.sha1))
    const view = await coordinator.sync(report)
    expect(view.locations.SJC?.counts).toEqual({ [`n${MINUTE}`]: 3 })
    // The worker's own resend (same id, after a timeout) adds nothing either.
    expect((await coordinator.sync(report)).locations.SJC?.counts).toEqual({ [`n${MINUTE}`]: 3 })
  })

  it('through the middleware: the user whose admission reply was lost is admitted and counted once', async () => {
    const coordinator = upstashCoordinator(fixture.rest(), { prefix: fixture.prefix })
    let now = AT + 1_000
    const app = new Hono<WaitingRoomEnv>()
    app.use('*', waitingRoom({ roomId: 'middleware', coordinator, clock: () => now, secret: 'lost-reply-test-secret-0123456789abcdef' }))
    app.get('/', (c) => c.json(c.get('waitingRoom')))

    fixture.bridge.dropReplies(1, runs(takeSlotScript.sha1))
    const response = await app.request('/')
    expect(await response.json()).toMatchObject({ outcome: 'admitted', reason: 'slot' })
    expect((await counter('middleware', '*')) + (await counter('middleware', 'local'))).toBe(1)

    // The admission was counted by the slot's script, once although the script ran twice. The user comes
    // back a minute later: the worker's report moves the active count to the minute of the check-in.
    now += 60_000
    await app.request('/', { headers: { cookie: response.headers.get('set-cookie')!.split(';')[0]! } })
    const hash = `${fixture.prefix}:{middleware}:l:local`
    // The hash as the coordinator reads it (its counters' private fields folded in), once the report landed.
    let counts: Record<string, number> = {}
    for (let i = 0; i < 50 && !counts[`a${MINUTE + 1}`]; i++) {
      counts = readCounts(Object.entries(await fixture.tcp.hGetAll(hash)).flat())
      if (!counts[`a${MINUTE + 1}`]) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(counts[`n${MINUTE}`]).toBe(1)
    expect(counts[`a${MINUTE + 1}`]).toBe(1) // the one active user, moved to the minute of the check-in
    expect(counts[`a${MINUTE}`]).toBeUndefined()
  })
})
