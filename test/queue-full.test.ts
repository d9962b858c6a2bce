/**
 * `maxQueuedUsers` makes `queueIsFull` real: once the room counts that many waiting users, a new user gets
 * the page with `queueIsFull: true` and no place — no ticket, no check-in counted as waiting — while users
 * already in line keep theirs. Checked across several limits and arrival counts.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { buildSnapshot } from '../src/admission/snapshot.ts'
import { roomHarness, START } from './support/room-harness.ts'

async function waitingUsers(room: ReturnType<typeof roomHarness>): Promise<number> {
  const state = await room.coordinator.sync({ id: crypto.randomUUID(), roomId: 'default', location: 'local', at: room.clock.now, keepMinutes: 10, deltas: {} })
  return buildSnapshot(state, room.clock.now, 5).waitingUsers
}

const json = { accept: 'application/json' }

describe('maxQueuedUsers and queueIsFull', () => {
  it('new users past the limit get queueIsFull, no ticket, and are not counted as waiting', async () => {
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, maxQueuedUsers: 2, jsonResponseEnabled: true, syncIntervalMs: 0 })
    expect((await room.visit()).outcome).toBe('admitted')
    const queued = []
    for (let i = 0; i < 2; i++) {
      const visit = await room.visit(undefined, { headers: json })
      expect(JSON.parse(visit.body).waitingRoom.queueIsFull).toBe(false)
      expect(visit.cookie).toBeDefined()
      queued.push(visit)
    }
    expect(await waitingUsers(room)).toBe(2)
    for (let i = 0; i < 3; i++) {
      const full = await room.visit(undefined, { headers: json })
      expect(full.status).toBe(200)
      expect(JSON.parse(full.body).waitingRoom.queueIsFull).toBe(true)
      expect(full.response.headers.get('set-cookie')).toBeNull()
      expect(Number(full.response.headers.get('refresh'))).toBeGreaterThan(0)
    }
    expect(await waitingUsers(room)).toBe(2)
    expect(room.room.metrics.decisions['queue-full']).toBe(3)
    // Those in line keep their place at their next check-in.
    room.advance(25_000)
    const again = await room.visit(queued[0]!.cookie, { headers: json })
    expect(JSON.parse(again.body).waitingRoom.queueIsFull).toBe(false)
    expect(again.response.headers.get('set-cookie')).not.toBeNull()
  })

  it('the HTML page says so through the variable (a template sees queueIsFull)', async () => {
    const template = '<!doctype html><p>{{#queueIsFull}}FULL{{/queueIsFull}}{{^queueIsFull}}IN LINE{{/queueIsFull}}</p>'
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, maxQueuedUsers: 1, template, syncIntervalMs: 0 })
    await room.visit()
    expect((await room.visit()).body).toContain('IN LINE')
    expect((await room.visit()).body).toContain('FULL')
  })

  it('without maxQueuedUsers the queue is never full', async () => {
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, jsonResponseEnabled: true, syncIntervalMs: 0 })
    await room.visit()
    for (let i = 0; i < 30; i++) expect(JSON.parse((await room.visit(undefined, { headers: json })).body).waitingRoom.queueIsFull).toBe(false)
    expect(await waitingUsers(room)).toBe(30)
  })

  it('generated limits and arrivals: waiting never passes the limit, and exactly the overflow is told the queue is full', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 20 }), async (max, arrivals) => {
        const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, maxQueuedUsers: max, jsonResponseEnabled: true, syncIntervalMs: 0 })
        room.clock.now = START
        await room.visit()
        let full = 0
        for (let i = 0; i < arrivals; i++) if (JSON.parse((await room.visit(undefined, { headers: json })).body).waitingRoom.queueIsFull) full++
        expect(await waitingUsers(room)).toBe(Math.min(max, arrivals))
        expect(full).toBe(Math.max(0, arrivals - max))
      }),
      { numRuns: 25, seed: 19 },
    )
  })

  it('rejects a bad limit at build time, naming the field', () => {
    expect(() => roomHarness({ maxQueuedUsers: 0 })).toThrow(/maxQueuedUsers/)
  })
})
