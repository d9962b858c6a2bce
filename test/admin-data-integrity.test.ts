/**
 * The admin API's data side: an event the loader would refuse is refused on the way in, a bad stored entry
 * never locks the API or the room (skipped, deletable), and concurrent writes with distinct ids are all kept —
 * on one worker and across workers sharing a storage, with and without `getKeys`/`removeItem`.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { describe, expect, it, vi } from 'vitest'
import { waitingRoom, waitingRoomAdmin, type WaitingRoomEnv } from '../src/index.ts'
import { memorySettingsStorage, type SettingsStorage } from '../src/admission/settings.ts'
import { memoryCoordinator } from '../adapters/memory/index.ts'

const SECRET = 'integrity-secret-0123456789-abcdefghijklmnop'
const TOKEN = 'integrity-token-0123456789abcdef'
const START = Date.UTC(2026, 10, 30, 12, 0, 0)
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }

function worker(storage: SettingsStorage, roomId: string, clock = { now: START }) {
  const room = waitingRoom({ secret: SECRET, clock: () => clock.now, coordinator: memoryCoordinator(), storage, roomId, totalActiveUsers: 5 })
  const app = new Hono<WaitingRoomEnv>()
  app.route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
  app.use('/*', room)
  app.all('*', (c) => c.text('origin'))
  return { app, room, clock }
}
const post = (app: Hono<any>, path: string, body: unknown) => app.request(`/_room${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })
const call = (app: Hono<any>, method: string, path: string, body?: string) => app.request(`/_room${path}`, { method, headers: auth, body })
const iso = (ms: number) => new Date(ms).toISOString()
/** A storage whose every call takes a few ms (seeded), as a network store does: writes interleave. */
function slow<S extends SettingsStorage>(inner: S, seed: number): S {
  let state = seed
  const pause = () => new Promise((r) => setTimeout(r, (state = (state * 1103515245 + 12345) % 2 ** 31) % 4))
  const wrapped: Record<string, unknown> = {}
  for (const name of ['getItem', 'setItem', 'getKeys', 'removeItem'] as const) {
    const fn = (inner as unknown as Record<string, ((...a: unknown[]) => Promise<unknown>) | undefined>)[name]
    if (fn) wrapped[name] = async (...args: unknown[]) => (await pause(), await fn.apply(inner, args))
  }
  return wrapped as unknown as S
}
const storages: [string, () => SettingsStorage][] = [
  ['unstorage (one key per entry)', () => slow(createStorage(), 7)],
  ['getItem/setItem only (one list)', () => slow(memorySettingsStorage(), 11)],
]

describe('event times: one range for POST, options and the loader', () => {
  it('refuses (400, naming the field) any time outside 2000..2100, given as ms or ISO', async () => {
    const { app } = worker(createStorage(), `times-${Math.random()}`)
    const outside = fc.oneof(fc.integer({ min: 0, max: Date.UTC(2000, 0, 1) - 1 }), fc.integer({ min: Date.UTC(2100, 0, 1) + 1, max: 8.64e15 }))
    await fc.assert(
      fc.asyncProperty(outside, fc.boolean(), fc.constantFrom('eventStartTime', 'eventEndTime'), async (bad, asIso, field) => {
        const body = { eventStartTime: START, eventEndTime: START + 3_600_000, [field]: asIso ? iso(bad) : bad }
        const res = await post(app, '/events', body)
        expect(res.status).toBe(400)
        const json = (await res.json()) as { issues: { path: string }[] }
        expect(json.issues.map((i) => i.path)).toContain(field)
      }),
      { seed: 18, numRuns: 60 },
    )
    expect((await post(app, '/events', { eventStartTime: '1969-12-31T23:59:00Z', eventEndTime: '2027-01-01T00:00:00Z' })).status).toBe(400)
    expect((await post(app, '/events', { eventStartTime: 0, eventEndTime: 1e15 })).status).toBe(400)
  })
})

describe('a bad stored entry never locks the API', () => {
  for (const [name, make] of storages) {
    it(`${name}: a poisoned event and rule are skipped with a warning, the others apply, DELETE removes them`, async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
      const storage = make()
      const roomId = `poison-${Math.random()}`
      const good = { id: 'good', eventStartTime: START - 60_000, eventEndTime: START + 3_600_000, totalActiveUsers: 7, newUsersPerMinute: 7 }
      await storage.setItem(`waiting-room:${roomId}:events`, [{ id: 'bad', eventStartTime: -60_000, eventEndTime: 1_798_761_600_000 }, good, { id: 'clash', eventStartTime: START, eventEndTime: START + 120_000 }])
      await storage.setItem(`waiting-room:${roomId}:rules`, [{ id: 'broken', when: { nope: 1 } }, { id: 'fine', when: { path: { startsWith: '/free' } } }])
      for (const { app, room } of [worker(storage, roomId), worker(storage, roomId)]) {
        expect((await call(app, 'GET', '/settings')).status).toBe(200)
        expect((await call(app, 'PATCH', '/settings', '{"queueAll":false}')).status).toBe(200)
        const events = (await (await call(app, 'GET', '/events')).json()) as { events: { id: string }[] }
        expect(events.events.map((e) => e.id)).toEqual(['good'])
        expect(room.room.settings.at(START).totalActiveUsers).toBe(7) // the valid event applies
        const rules = (await (await call(app, 'GET', '/rules')).json()) as { rules: { id: string }[] }
        expect(rules.rules.map((r) => r.id)).toEqual(['fine'])
      }
      expect(warn).toHaveBeenCalled()
      const { app } = worker(storage, roomId)
      expect((await call(app, 'DELETE', '/events/bad')).status).toBe(200)
      expect((await call(app, 'DELETE', '/events/bad')).status).toBe(404)
      expect((await call(app, 'DELETE', '/rules/broken')).status).toBe(200)
      expect((await post(app, '/events', { id: 'later', eventStartTime: START + 7_200_000, eventEndTime: START + 9_000_000 })).status).toBe(201)
      warn.mockRestore()
    })
  }
})

describe('no acknowledged write is lost', () => {
  for (const [name, make] of storages) {
    for (const n of [2, 10, 30]) {
      it(`${name}: ${n} concurrent POST /rules and /events on one worker are all kept`, async () => {
        const storage = make()
        const roomId = `race-${n}-${Math.random()}`
        const { app } = worker(storage, roomId)
        const ids = Array.from({ length: n }, (_, i) => `r${i}`)
        const rules = await Promise.all(ids.map((id) => post(app, '/rules', { id, when: { path: { equals: `/${id}` } } })))
        expect(rules.map((r) => r.status)).toEqual(ids.map(() => 201))
        const events = await Promise.all(ids.map((id, i) => post(app, '/events', { id, eventStartTime: START + i * 600_000, eventEndTime: START + i * 600_000 + 120_000 })))
        expect(events.map((r) => r.status)).toEqual(ids.map(() => 201))
        const fresh = worker(storage, roomId).app
        const storedRules = (await (await call(fresh, 'GET', '/rules')).json()) as { rules: { id: string }[] }
        expect(storedRules.rules.map((r) => r.id).sort()).toEqual([...ids].sort())
        const storedEvents = (await (await call(fresh, 'GET', '/events')).json()) as { events: { id: string }[] }
        expect(storedEvents.events.map((e) => e.id).sort()).toEqual([...ids].sort())
        // Overlapping events posted at once on one worker: exactly one is kept, the others are 409s.
        const overlapping = await Promise.all([0, 1, 2].map((i) => post(app, '/events', { id: `o${i}`, eventStartTime: START + 86_400_000, eventEndTime: START + 90_000_000 })))
        expect(overlapping.map((r) => r.status).sort()).toEqual([201, 409, 409])
      })
    }
  }

  it('workers sharing an unstorage storage each adding distinct ids at once: none lost', async () => {
    const storage = slow(createStorage(), 3)
    const roomId = `workers-${Math.random()}`
    const workers = Array.from({ length: 4 }, () => worker(storage, roomId).app)
    const writes = workers.flatMap((app, w) => [0, 1, 2].map((i) => post(app, '/rules', { id: `w${w}-${i}`, when: { method: ['GET'] } })))
    expect((await Promise.all(writes)).map((r) => r.status)).toEqual(writes.map(() => 201))
    const events = workers.map((app, w) => post(app, '/events', { id: `e${w}`, eventStartTime: START + w * 600_000, eventEndTime: START + w * 600_000 + 120_000 }))
    expect((await Promise.all(events)).map((r) => r.status)).toEqual([201, 201, 201, 201])
    const fresh = worker(storage, roomId).app
    const rules = (await (await call(fresh, 'GET', '/rules')).json()) as { rules: unknown[] }
    expect(rules.rules).toHaveLength(12)
    const stored = (await (await call(fresh, 'GET', '/events')).json()) as { events: unknown[] }
    expect(stored.events).toHaveLength(4)
  })

  it('events given as options stay deleted once deleted, and a later add keeps the others', async () => {
    const storage = createStorage()
    const roomId = `options-${Math.random()}`
    const events = [{ id: 'opt', eventStartTime: START + 3_600_000, eventEndTime: START + 7_200_000 }]
    const mk = () => {
      const room = waitingRoom({ secret: SECRET, clock: () => START, coordinator: memoryCoordinator(), storage, roomId, totalActiveUsers: 5, events })
      return new Hono().route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
    }
    expect((await post(mk(), '/events', { id: 'added', eventStartTime: START + 8_000_000, eventEndTime: START + 9_000_000 })).status).toBe(201)
    const both = (await (await call(mk(), 'GET', '/events')).json()) as { events: { id: string }[] }
    expect(both.events.map((e) => e.id)).toEqual(['opt', 'added'])
    expect((await call(mk(), 'DELETE', '/events/opt')).status).toBe(200)
    const after = (await (await call(mk(), 'GET', '/events')).json()) as { events: { id: string }[] }
    expect(after.events.map((e) => e.id)).toEqual(['added'])
  })
})
