/**
 * Random queueing, method switches, passthrough / reject / queueAll / suspended, and origin commands.
 */
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { releasedFraction, seededRandom } from '../src/admission/plan.ts'
import { estimateRandomWait } from '../src/admission/wait.ts'
import { roomHarness, START, type Visit } from './support/room-harness.ts'

const MINUTE = 60_000

/** Fills a room of `limit` and queues `count` more users. */
async function fullRoom(room: ReturnType<typeof roomHarness>, limit: number, count: number) {
  for (let i = 0; i < limit; i++) expect((await room.visit()).outcome).toBe('admitted')
  const queued: Visit[] = []
  for (let i = 0; i < count; i++) queued.push(await room.visit())
  return queued
}

describe('random queueing', () => {
  it('estimates percentiles with n = log(1 − p) / log(1 − P)', () => {
    // 10 let in per minute, 100 waiting: P = 0.1.
    expect(estimateRandomWait(10, 100, 0.25)).toBe(Math.ceil(Math.log(0.75) / Math.log(0.9)))
    expect(estimateRandomWait(10, 100, 0.5)).toBe(7) // log(.5)/log(.9) = 6.58
    expect(estimateRandomWait(10, 100, 0.75)).toBe(14) // log(.25)/log(.9) = 13.16
    expect(estimateRandomWait(0, 100, 0.5)).toBeUndefined()
    expect(estimateRandomWait(50, 10, 0.5)).toBe(1)
  })

  it('publishes the percentiles as variables, computed from the live counts', async () => {
    const room = roomHarness({ totalActiveUsers: 2, newUsersPerMinute: 10, queueingMethod: 'random', jsonResponseEnabled: true, sessionDurationMinutes: 5 })
    await fullRoom(room, 2, 3)
    const json = JSON.parse((await room.visit(undefined, { headers: { accept: 'application/json' } })).body).waitingRoom
    expect(json.isRandomQueue).toBe(true)
    expect(json.isFIFOQueue).toBe(false)
    // No admissions history yet: the rate is the session turnover, 2 / (5 + 1) per minute; 4 waiting.
    const rate = 2 / 6
    expect(json.waitTime25Percentile).toBe(estimateRandomWait(rate, 4, 0.25))
    expect(json.waitTime50Percentile).toBe(estimateRandomWait(rate, 4, 0.5))
    expect(json.waitTime75Percentile).toBe(estimateRandomWait(rate, 4, 0.75))
    expect(json.waitTime75Percentile).toBeGreaterThan(json.waitTime25Percentile)
  })

  it('releases the minute’s slots in steps at moments that are the same for every worker but differ by minute', () => {
    const one = [0, 10_000, 20_000, 30_000, 40_000, 50_000, 59_999].map((ms) => releasedFraction('room', 100, ms))
    expect(one).toEqual([...one].sort((a, b) => a - b)) // never goes back
    expect(one[one.length - 1]).toBe(1)
    expect(releasedFraction('room', 100, 25_000)).toBe(releasedFraction('room', 100, 25_000))
    const moments = (minute: number) => Array.from({ length: 60 }, (_, s) => releasedFraction('room', minute, s * 1000)).join()
    expect(moments(100)).not.toBe(moments(101))
  })

  it('offers slots to new and queued users alike while queueing (no FIFO reservation)', async () => {
    const room = roomHarness({ totalActiveUsers: 3, newUsersPerMinute: 100, queueingMethod: 'random', sessionDurationMinutes: 1 })
    await fullRoom(room, 3, 4)
    room.advance(2 * MINUTE + 59_000) // sessions expired, late in the minute: all slots released
    const newcomers = [await room.visit(), await room.visit(), await room.visit()]
    // Under FIFO the four queued users would have these slots; under random the first to come takes them.
    expect(newcomers.map((v) => v.outcome)).toEqual(['admitted', 'admitted', 'admitted'])
  })

  it('keeps each user’s FIFO place through random → FIFO switches', async () => {
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, sessionDurationMinutes: 1, refreshIntervalSeconds: 20 })
    const holder = await room.visit()
    const early = await room.visit() // bucket: minute 0
    room.advance(MINUTE)
    const late = await room.visit() // bucket: minute 1
    expect([holder.outcome, early.outcome, late.outcome]).toEqual(['admitted', 'queued', 'queued'])
    await room.room.settings.patch({ queueingMethod: 'random' }, room.clock.now)
    room.advance(20_000)
    const inRandom = [await room.visit(late.cookie), await room.visit(early.cookie)]
    expect(inRandom.map((v) => v.outcome)).toEqual(['queued', 'queued']) // the holder is still active
    await room.room.settings.patch({ queueingMethod: 'fifo' }, room.clock.now)
    // The holder's session ends; the late user checks in first, but FIFO gives the slot to the early one.
    let lateVisit = inRandom[0]!
    let earlyVisit = inRandom[1]!
    const order: string[] = []
    for (let step = 0; step < 12 && order.length === 0; step++) {
      room.advance(20_000)
      lateVisit = await room.visit(lateVisit.cookie)
      if (lateVisit.outcome === 'admitted') order.push('late')
      earlyVisit = await room.visit(earlyVisit.cookie)
      if (earlyVisit.outcome === 'admitted') order.push('early')
    }
    expect(order).toEqual(['early'])
  })
})

describe('queueing modes', () => {
  it('passthrough admits everyone and still counts them', async () => {
    const coordinator = memoryCoordinator()
    const room = roomHarness({ totalActiveUsers: 1, queueingMethod: 'passthrough', coordinator })
    for (let i = 0; i < 5; i++) expect((await room.visit()).body).toBe('origin passthrough')
    const { buildSnapshot } = await import('../src/admission/snapshot.ts')
    const state = await coordinator.sync({ id: 'x', roomId: 'default', location: 'local', at: START, keepMinutes: 10, deltas: {} })
    expect(buildSnapshot(state, START, 5).activeUsers).toBe(5)
  })

  it('reject shows a static page that does not refresh, and keeps live sessions', async () => {
    const room = roomHarness({ totalActiveUsers: 10, jsonResponseEnabled: true })
    const admitted = await room.visit()
    await room.room.settings.patch({ queueingMethod: 'reject' }, room.clock.now)
    const rejected = await room.visit()
    expect(rejected.response.headers.get('refresh')).toBeNull()
    expect(rejected.body).toContain('not accepting visitors')
    expect(rejected.body).not.toContain('http-equiv="refresh"')
    const json = JSON.parse((await room.visit(undefined, { headers: { accept: 'application/json' } })).body).waitingRoom
    // Cloudflare documents inWaitingRoom as always true; isRejectQueue is what tells the reject page apart.
    expect(json).toMatchObject({ isRejectQueue: true, inWaitingRoom: true, refreshIntervalSeconds: 0 })
    expect((await room.visit(admitted.cookie)).outcome).toBe('admitted')
    // null removes the override: the option's method applies again.
    await room.room.settings.patch({ queueingMethod: null }, room.clock.now)
    expect(room.room.settings.overrides()).toEqual({})
    expect((await room.visit()).outcome).toBe('admitted')
  })

  it('queueAll queues every new user with an unknown wait', async () => {
    const room = roomHarness({ totalActiveUsers: 100, queueAll: true, jsonResponseEnabled: true })
    const json = JSON.parse((await room.visit(undefined, { headers: { accept: 'application/json' } })).body).waitingRoom
    expect(json).toMatchObject({ queueAll: true, waitTimeKnown: false, inWaitingRoom: true })
    expect((await room.visit()).outcome).toBe('queued')
  })

  it('suspended sends everyone straight to the origin without a ticket', async () => {
    const room = roomHarness({ totalActiveUsers: 1, suspended: true })
    for (let i = 0; i < 3; i++) {
      const visit = await room.visit()
      expect(visit.body).toBe('origin suspended')
      expect(visit.response.headers.get('set-cookie')).toBeNull()
    }
  })
})

describe('origin commands', () => {
  it('revoke ends the session at once, frees its slot, and never reaches the client', async () => {
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, enabledOriginCommands: ['revoke'], refreshIntervalSeconds: 5 })
    const admitted = await room.visit()
    const waiting = await room.visit()
    expect(waiting.outcome).toBe('queued')
    const logout = await room.visit(admitted.cookie, { headers: { 'x-command': 'revoke' } })
    expect(logout.outcome).toBe('admitted')
    expect(logout.response.headers.get('waiting-room-command')).toBeNull()
    expect(logout.response.headers.get('set-cookie')).toMatch(/^__wroom=; Max-Age=0/)
    // The old cookie no longer works, and the queued user gets the freed slot.
    room.advance(5_000)
    expect((await room.visit(waiting.cookie)).outcome).toBe('admitted')
    const replay = await room.visit(admitted.cookie)
    expect(replay.outcome).toBe('queued')
  })
})

describe('seeded randomness', () => {
  it('seededRandom is deterministic per text and spread over [0, 1)', () => {
    const a = seededRandom('x')
    const b = seededRandom('x')
    const values = Array.from({ length: 1000 }, () => a())
    expect(values).toEqual(Array.from({ length: 1000 }, () => b()))
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...values)).toBeLessThan(1)
    expect(values.filter((v) => v < 0.5).length).toBeGreaterThan(400)
  })
})
