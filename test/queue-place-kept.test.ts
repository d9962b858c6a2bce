import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { waitingRoom, type WaitingRoomDecision, type WaitingRoomEnv } from '../src/room/middleware.ts'
import type { WaitingRoomOptions } from '../src/room/options.ts'
import { memoryCoordinator } from '../src/coordination/memory.ts'

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0)
const SECRET = 'queue-place-kept-secret-0123456789abcdef'

/** A full room (limit 1, one user visiting every 30 s) and a queued user who goes away for `awayMs`. */
async function bucketAfterAbsence(awayMs: number, extra: Partial<WaitingRoomOptions> = {}) {
  let now = T0
  let decision: WaitingRoomDecision | undefined
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', async (c, next) => {
    await next()
    decision = c.get('waitingRoom')
  })
  app.use('*', waitingRoom({ roomId: `kept-${Math.random()}`, totalActiveUsers: 1, newUsersPerMinute: 1, sessionDurationMinutes: 1, refreshIntervalSeconds: 20, secret: SECRET, clock: () => now, coordinator: memoryCoordinator(), ...extra }))
  app.get('*', (c) => c.text('origin'))
  const visit = async (cookie?: string) => {
    const response = await app.request('/', { headers: cookie ? { cookie: `__wroom=${cookie}` } : {} })
    const line = response.headers.getSetCookie().find((l) => l.startsWith('__wroom='))
    return { decision: decision!, cookie: line ? line.slice(8, line.indexOf(';')) : cookie }
  }
  let visitor = await visit()
  expect(visitor.decision.outcome).toBe('admitted')
  now += 1000
  const queued = await visit()
  expect(queued.decision.outcome).toBe('queued')
  // The visitor keeps the only place; the queued user is away.
  for (let t = 30_000; t < awayMs; t += 30_000) {
    now = T0 + t
    visitor = await visit(visitor.cookie)
    expect(visitor.decision.outcome).toBe('admitted')
  }
  now = T0 + 1000 + awayMs
  const back = await visit(queued.cookie)
  return { before: queued.decision.bucketId, after: back.decision.bucketId, outcome: back.decision.outcome, minuteBack: Math.floor(now / 60_000) }
}

describe('queuePlaceKeptSeconds: a queued user keeps their place after closing the tab', () => {
  it('keeps the bucket for any absence up to 5 minutes by default, whatever the session length', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 61_000, max: 295_000 }), async (awayMs) => {
        const r = await bucketAfterAbsence(awayMs)
        expect(r.outcome).toBe('queued')
        expect(r.after).toBe(r.before)
      }),
      { numRuns: 8 },
    )
  })

  it('gives a new place (this minute’s bucket) after the time kept', async () => {
    const late = await bucketAfterAbsence(305_000)
    expect(late.after).toBe(late.minuteBack)
    expect(late.after).not.toBe(late.before)
    const short = await bucketAfterAbsence(125_000, { queuePlaceKeptSeconds: 60 })
    expect(short.after).toBe(short.minuteBack)
  })

  it('refuses a value outside 60–86400 seconds, naming the option', () => {
    for (const bad of [0, 59, 86_401, 1.5]) expect(() => waitingRoom({ queuePlaceKeptSeconds: bad, secret: SECRET }), String(bad)).toThrow(/queuePlaceKeptSeconds/)
  })
})
