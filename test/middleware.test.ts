/**
 * The waiting room through `app.request()` with a fake clock: admission, queueing, draining, tickets.
 */
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { waitingRoom } from '../src/index.ts'
import { roomHarness, START, TEST_SECRET } from './support/room-harness.ts'

const MINUTE = 60_000

/** The room's active users as the coordinator sees them now. */
async function activeUsers(coordinator: Coordinator, roomId = 'default', at = START): Promise<number> {
  const { buildSnapshot } = await import('../src/admission/snapshot.ts')
  const state = await coordinator.sync({ id: crypto.randomUUID(), roomId, location: 'local', at, keepMinutes: 10, deltas: {} })
  return buildSnapshot(state, at, 5).activeUsers
}

describe('admission', () => {
  it('lets everyone in under the limits', async () => {
    const room = roomHarness({ totalActiveUsers: 50, newUsersPerMinute: 50 })
    for (let i = 0; i < 50; i++) {
      const visit = await room.visit()
      expect(visit.outcome).toBe('admitted')
      expect(visit.body).toBe('origin slot')
    }
  })

  it('queues new users at the limit, with the current minute as their bucket', async () => {
    const room = roomHarness({ totalActiveUsers: 3, newUsersPerMinute: 100 })
    for (let i = 0; i < 3; i++) expect((await room.visit()).outcome).toBe('admitted')
    const queued = await room.visit()
    expect(queued.outcome).toBe('queued')
    expect(queued.status).toBe(200)
    expect(queued.response.headers.get('cache-control')).toBe('no-store')
    expect(Number(queued.response.headers.get('refresh'))).toBeGreaterThanOrEqual(18)
    expect(queued.body).toContain('You are now in line')
    expect(queued.body).toMatch(/<meta http-equiv="refresh" content="\d+">/)
    expect(queued.cookie).toBeDefined()
  })

  it('admits exactly newUsersPerMinute in a minute; the next minute goes to the queue before new users', async () => {
    const room = roomHarness({ totalActiveUsers: 1000, newUsersPerMinute: 5 })
    const first = []
    for (let i = 0; i < 20; i++) first.push(await room.visit())
    expect(first.filter((v) => v.outcome === 'admitted').length).toBe(5)
    room.advance(MINUTE)
    const newcomers = []
    for (let i = 0; i < 5; i++) newcomers.push((await room.visit()).outcome)
    expect(newcomers).toEqual(['queued', 'queued', 'queued', 'queued', 'queued'])
    const checkIns = []
    for (const visit of first.filter((v) => v.outcome === 'queued')) checkIns.push((await room.visit(visit.cookie)).outcome)
    expect(checkIns.filter((o) => o === 'admitted').length).toBe(5)
    expect(checkIns.slice(0, 5)).toEqual(['admitted', 'admitted', 'admitted', 'admitted', 'admitted'])
  })

  it('keeps an admitted user in without any coordinator call, and renews the ticket once a minute', async () => {
    const room = roomHarness({ totalActiveUsers: 10, newUsersPerMinute: 10 })
    const admitted = await room.visit()
    const calls = { ...room.coordinator.calls }
    for (let i = 0; i < 20; i++) {
      room.advance(1000)
      const again = await room.visit(admitted.cookie)
      expect(again.outcome).toBe('admitted')
      expect(again.body).toBe('origin session')
      expect(again.response.headers.get('set-cookie')).toBeNull()
    }
    expect(room.coordinator.calls).toEqual(calls)
    room.advance(MINUTE)
    const renewed = await room.visit(admitted.cookie)
    expect(renewed.response.headers.get('set-cookie')).toMatch(/^__wroom=/)
    expect(renewed.cookie).not.toBe(admitted.cookie)
    expect(room.coordinator.calls.increment).toBe(calls.increment)
  })

  it('frees slots when sessions expire, and drains the queue oldest bucket first', async () => {
    const room = roomHarness({ totalActiveUsers: 2, newUsersPerMinute: 100, sessionDurationMinutes: 1, refreshIntervalSeconds: 20 })
    const keeper = await room.visit() // keeps browsing
    const leaver = await room.visit() // leaves after the first request
    expect([keeper.outcome, leaver.outcome]).toEqual(['admitted', 'admitted'])
    let older = await room.visit() // bucket: minute 0
    expect(older.outcome).toBe('queued')
    // Queued users refresh every ~20 s; the keeper keeps browsing. A younger user arrives a minute later.
    let younger: Awaited<ReturnType<typeof room.visit>> | undefined
    const order: string[] = []
    for (let second = 20; second <= 200 && order.length < 1; second += 20) {
      room.advance(20_000)
      await room.visit(keeper.cookie)
      if (second === 60) younger = await room.visit()
      // The younger user checks in first each round: FIFO must still admit the older one first.
      if (younger && younger.outcome === 'queued') {
        younger = await room.visit(younger.cookie)
        if (younger.outcome === 'admitted') order.push('younger')
      }
      if (older.outcome === 'queued') {
        older = await room.visit(older.cookie)
        if (older.outcome === 'admitted') order.push('older')
      }
    }
    expect(order).toEqual(['older'])
    expect(younger!.outcome).toBe('queued')
    expect(younger!.body).toContain('You are now in line')
  })

  it('treats a tampered, truncated, foreign or garbage cookie as a new user, never an error', async () => {
    const room = roomHarness({ totalActiveUsers: 100, newUsersPerMinute: 100 })
    const good = (await room.visit()).cookie!
    const flipped = good.slice(0, 60) + (good[60] === 'A' ? 'B' : 'A') + good.slice(61)
    const foreign = await (async () => {
      const other = roomHarness({ roomId: 'other-room', totalActiveUsers: 100, newUsersPerMinute: 100 })
      return (await other.visit()).cookie!
    })()
    const otherKey = await (async () => {
      const other = roomHarness({ secret: 'another-secret-0123456789-abcdefghijklmno' })
      return (await other.visit()).cookie!
    })()
    for (const cookie of [flipped, good.slice(0, good.length - 10), foreign, otherKey, 'x', 'a.b.c.d.e', '%%%', 'A'.repeat(5000)]) {
      const visit = await room.visit(cookie)
      expect(visit.status).toBe(200)
      expect(visit.body).toBe('origin slot') // a new user, admitted through a slot, not the old session
      expect(visit.cookie).not.toBe(cookie)
    }
  })

  it('treats an expired ticket as a new user', async () => {
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, sessionDurationMinutes: 2 })
    const first = await room.visit()
    // Past its end by the second views read ends late (snapshot.ts EXPIRY_MARGIN_MS), so its place is free too.
    room.advance(3 * MINUTE + 1000)
    const back = await room.visit(first.cookie)
    expect(back.body).toBe('origin slot')
  })

  it('gives refresh spam nothing: no decision, no counter call, same place', async () => {
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, refreshIntervalSeconds: 20 })
    await room.visit()
    const queued = await room.visit()
    const increments = room.coordinator.calls.increment
    for (let i = 0; i < 50; i++) {
      room.advance(100) // ten times a second for five seconds
      const spam = await room.visit(queued.cookie)
      expect(spam.outcome).toBe('queued')
      expect(spam.response.headers.get('set-cookie')).toBeNull()
      expect(spam.cookie).toBe(queued.cookie)
    }
    expect(room.coordinator.calls.increment).toBe(increments)
  })

  it('counts fifty clients replaying one admitted cookie as one user', async () => {
    const coordinator = memoryCoordinator()
    const room = roomHarness({ totalActiveUsers: 100, newUsersPerMinute: 100, coordinator })
    const admitted = await room.visit()
    room.advance(MINUTE)
    const before = await activeUsers(coordinator, 'default', room.clock.now)
    await Promise.all(Array.from({ length: 50 }, () => room.visit(admitted.cookie)))
    expect(await activeUsers(coordinator, 'default', room.clock.now)).toBe(before)
    expect(before).toBe(1)
  })
})

describe('queue responses', () => {
  it('answers JSON with the template variables when enabled and asked for', async () => {
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 10, jsonResponseEnabled: true, queueingStatusCode: 202 })
    await room.visit()
    const queued = await room.visit(undefined, { headers: { accept: 'application/json' } })
    expect(queued.status).toBe(202)
    const json = JSON.parse(queued.body).waitingRoom
    expect(json.inWaitingRoom).toBe(true)
    expect(json.isFIFOQueue).toBe(true)
    expect(json.queueingMethod).toBe('fifo')
    expect(json.waitTimeKnown).toBe(true)
    expect(json.waitTime).toBeGreaterThanOrEqual(1)
    expect(json.refreshIntervalSeconds).toBe(Number(queued.response.headers.get('refresh')))
    for (const key of ['waitTime25Percentile', 'waitTime50Percentile', 'waitTime75Percentile', 'waitTimeFormatted', 'queueIsFull', 'queueAll', 'lastUpdated', 'isRandomQueue', 'isPassthroughQueue', 'isRejectQueue', 'isEventActive', 'isEventPrequeueing', 'timeUntilEventStart', 'timeUntilEventEnd', 'shuffleAtEventStart']) {
      expect(json).toHaveProperty(key)
    }
    const html = await room.visit(undefined, { headers: { accept: 'text/html' } })
    expect(html.body).toContain('<!doctype html>')
  })

  it("renders the operator's Mustache template", async () => {
    const room = roomHarness({ totalActiveUsers: 1, template: '<p>wait {{waitTime}} min, method {{queueingMethod}}</p>' })
    await room.visit()
    const queued = await room.visit()
    expect(queued.body).toMatch(/^<p>wait \d+ min, method fifo<\/p>$/)
  })

  it('sets SameSite=None; Secure over HTTPS and Lax without Secure over HTTP (auto)', async () => {
    const room = roomHarness()
    const plain = await room.visit()
    expect(plain.response.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax$/)
    const tls = await room.visit(undefined, { headers: { 'x-forwarded-proto': 'https' } })
    expect(tls.response.headers.get('set-cookie')).toMatch(/SameSite=None; Secure$/)
    const strict = roomHarness({ cookie: { sameSite: 'strict', secure: 'always', suffix: 'shop' } })
    const visit = await strict.visit()
    expect(visit.response.headers.get('set-cookie')).toMatch(/^__wroom_shop=.*; Path=\/; HttpOnly; SameSite=Strict; Secure$/)
  })
})

describe('options', () => {
  it('throws at build time naming the field and the allowed values', () => {
    expect(() => waitingRoom({ queueingMethod: 'lifo' as never })).toThrow(/queueingMethod.*fifo.*random.*passthrough.*reject/)
    expect(() => waitingRoom({ totalActiveUsers: 0 })).toThrow(/totalActiveUsers/)
    expect(() => waitingRoom({ cookie: { sameSite: 'none', secure: 'never' } })).toThrow(/cookie\.sameSite.*Secure/)
    expect(() => waitingRoom({ secret: 'short' })).toThrow(/secret.*32/)
    expect(() => waitingRoom({ totalActiveUser: 5 } as never)).toThrow(/totalActiveUser/)
    expect(() => waitingRoom({ queueingStatusCode: 500 as never })).toThrow(/queueingStatusCode/)
  })

  it('works with no options at all, warning once about the missing secret', async () => {
    const { Hono } = await import('hono')
    const warnings: string[] = []
    const warn = console.warn
    console.warn = (message: string) => warnings.push(message)
    try {
      const app = new Hono()
      app.use('/*', waitingRoom())
      app.get('/', (c) => c.text('ok'))
      for (let i = 0; i < 3; i++) expect(await (await app.request('/')).text()).toBe('ok')
    } finally {
      console.warn = warn
    }
    expect(warnings.filter((w) => w.includes('WAITING_ROOM_SECRET')).length).toBe(1)
  })
})

describe('tickets across keys', () => {
  it('accepts a ticket sealed with the previous key and reseals it with the new one', async () => {
    const coordinator = memoryCoordinator()
    const old = roomHarness({ coordinator, secret: TEST_SECRET })
    const admitted = await old.visit()
    const rotated = roomHarness({ coordinator, secret: ['new-secret-0123456789-abcdefghijklmnopqr', TEST_SECRET] })
    const again = await rotated.visit(admitted.cookie)
    expect(again.body).toBe('origin session')
    expect(again.response.headers.get('set-cookie')).toMatch(/^__wroom=/)
    const resealed = await rotated.visit(again.cookie)
    expect(resealed.body).toBe('origin session')
    expect(resealed.response.headers.get('set-cookie')).toBeNull()
    const dropped = roomHarness({ coordinator, secret: 'new-secret-0123456789-abcdefghijklmnopqr' })
    expect((await dropped.visit(admitted.cookie)).body).toBe('origin slot')
  })
})
