/**
 * Events as Cloudflare has them: a suspended event is ignored (the room's own settings apply), an event has a
 * description, Cloudflare's limits are enforced with errors naming the field (as options and through the
 * admin API), and `GET /events/:id/preview` shows the settings an event would put in force.
 */
import { createStorage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { MAX_EVENTS, normalizeEvents } from '../src/admission/events.ts'
import { waitingRoom } from '../src/index.ts'
import { adminWorker } from './support/admin-worker.ts'
import { roomHarness, START } from './support/room-harness.ts'

const MINUTE = 60_000
const at = (minutes: number) => new Date(START + minutes * MINUTE).toISOString()

describe('a suspended event', () => {
  it('is ignored: the room queues by its own limits and the page says no event', async () => {
    const events = [{ id: 'sale', eventStartTime: at(-1), eventEndTime: at(30), totalActiveUsers: 100, newUsersPerMinute: 100, suspended: true }]
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, jsonResponseEnabled: true, events })
    expect((await room.visit()).outcome).toBe('admitted')
    const queued = await room.visit(undefined, { headers: { accept: 'application/json' } })
    expect(queued.outcome).toBe('queued') // the event's 100 would have let this user in
    expect(JSON.parse(queued.body).waitingRoom).toMatchObject({ isEventActive: false, isEventPrequeueing: false })
    // The same event not suspended lets them in.
    const active = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, events: [{ ...events[0]!, suspended: false }] })
    expect((await active.visit()).outcome).toBe('admitted')
    expect((await active.visit()).outcome).toBe('admitted')
  })

  it('does not suspend the room (before: it let everyone through)', async () => {
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 100, events: [{ eventStartTime: at(-1), eventEndTime: at(30), suspended: true }] })
    await room.visit()
    expect((await room.visit()).response.headers.get('x-origin')).toBeNull()
  })
})

describe("Cloudflare's event limits", () => {
  it.each([
    [{ eventStartTime: at(10), eventEndTime: at(10.5) }, /events\.0\.eventEndTime: must be at least one minute after eventStartTime/],
    [{ prequeueStartTime: at(6), eventStartTime: at(10), eventEndTime: at(20) }, /events\.0\.prequeueStartTime: must be at least 5 minutes before eventStartTime/],
    [{ eventStartTime: at(10), eventEndTime: at(20), totalActiveUsers: 10 }, /events\.0\.newUsersPerMinute: totalActiveUsers and newUsersPerMinute are set together/],
    [{ eventStartTime: at(10), eventEndTime: at(20), newUsersPerMinute: 10 }, /events\.0\.totalActiveUsers: totalActiveUsers and newUsersPerMinute are set together/],
    [{ eventStartTime: at(10), eventEndTime: at(20), shuffleAtEventStart: true }, /events\.0\.shuffleAtEventStart: needs a prequeueStartTime/],
  ])('%j is refused at build time', (event, message) => {
    expect(() => waitingRoom({ events: [event] })).toThrow(message)
  })

  it('accepts the limits exactly (a 5-minute prequeue, a 1-minute event)', () => {
    expect(normalizeEvents([{ prequeueStartTime: at(5), eventStartTime: at(10), eventEndTime: at(11), totalActiveUsers: 5, newUsersPerMinute: 5, shuffleAtEventStart: true }])).toHaveLength(1)
  })

  it(`holds at most ${MAX_EVENTS} events`, () => {
    const events = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `e${i}`, eventStartTime: at(i * 2), eventEndTime: at(i * 2 + 1) }))
    expect(normalizeEvents(events(MAX_EVENTS))).toHaveLength(MAX_EVENTS)
    expect(() => normalizeEvents(events(MAX_EVENTS + 1))).toThrow(new RegExp(`at most ${MAX_EVENTS} events`))
  })

  it('the admin API answers 400 naming the field, and keeps the description', async () => {
    const w = adminWorker({ now: START }, { storage: createStorage() })
    const early = await w.call('POST', '/events', { eventStartTime: at(10), eventEndTime: at(20), prequeueStartTime: at(8) })
    expect(early.status).toBe(400)
    expect(early.json.issues).toEqual([{ path: 'prequeueStartTime', message: 'must be at least 5 minutes before eventStartTime' }])
    const alone = await w.call('POST', '/events', { eventStartTime: at(10), eventEndTime: at(20), totalActiveUsers: 3 })
    expect(alone.json.issues.map((i: { path: string }) => i.path)).toEqual(['newUsersPerMinute'])
    const created = await w.call('POST', '/events', { id: 'drop', description: 'Spring drop, do not edit', eventStartTime: at(10), eventEndTime: at(20) })
    expect(created.status).toBe(201)
    expect((await w.call('GET', '/events')).json.events[0]).toMatchObject({ id: 'drop', description: 'Spring drop, do not edit' })
  })
})

describe('GET /events/:id/preview', () => {
  it("gives the settings in force during the event: its fields over the room's current ones, and what it inherits", async () => {
    const w = adminWorker({ now: START }, { storage: createStorage(), totalActiveUsers: 50, newUsersPerMinute: 20, sessionDurationMinutes: 7 })
    await w.call('PATCH', '/settings', { sessionDurationMinutes: 9 }) // a runtime override is inherited too
    await w.call('POST', '/events', { id: 'sale', eventStartTime: at(60), eventEndTime: at(120), totalActiveUsers: 500, newUsersPerMinute: 100, queueingMethod: 'random' })
    const preview = await w.call('GET', '/events/sale/preview')
    expect(preview.status).toBe(200)
    expect(preview.json.settings).toMatchObject({ totalActiveUsers: 500, newUsersPerMinute: 100, queueingMethod: 'random', sessionDurationMinutes: 9 })
    expect(preview.json.inherited).toEqual(expect.arrayContaining(['sessionDurationMinutes', 'disableSessionRenewal', 'queueingStatusCode', 'template']))
    expect(preview.json.inherited).not.toContain('totalActiveUsers')
    expect(preview.json.event.id).toBe('sale')
    // The room itself is not changed by a preview.
    expect((await w.call('GET', '/settings')).json.settings.totalActiveUsers).toBe(50)
    expect((await w.call('GET', '/events/nope/preview')).status).toBe(404)
  })
})
