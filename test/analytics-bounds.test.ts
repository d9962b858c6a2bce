/**
 * Analytics edges: from/to beyond any valid date are 400s naming the field (never a 500 from toISOString),
 * an event report whose window fell out of the retention says so (drain unknown, not "drained"), and a future
 * event's report has an empty window (from = to), not a backwards one.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { waitingRoom, waitingRoomAdmin, type WaitingRoomEnv } from '../src/index.ts'
import { memoryCoordinator } from '../adapters/memory/index.ts'

const TOKEN = 'analytics-bounds-token-0123456789'
const START = Date.UTC(2026, 10, 30, 12, 0, 0)
const MINUTE = 60_000
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }

function mk() {
  const clock = { now: START }
  const room = waitingRoom({ secret: 'analytics-bounds-secret-0123456789-abcdef', clock: () => clock.now, coordinator: memoryCoordinator(), storage: createStorage(), roomId: `ab-${Math.random()}`, totalActiveUsers: 1, newUsersPerMinute: 100 })
  const app = new Hono<WaitingRoomEnv>()
  app.route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
  app.use('/*', room)
  app.all('*', (c) => c.text('origin'))
  return { app, clock }
}

describe('analytics bounds', () => {
  it('from/to past year 9999 (ms or ISO) are 400s naming the field', async () => {
    const { app } = mk()
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('from', 'to'), fc.integer({ min: Date.UTC(10000, 0, 1), max: 9_999_999_999_999_999 }), async (field, ms) => {
        const res = await app.request(`/_room/analytics?${field}=${ms}`, { headers: auth })
        expect(res.status).toBe(400)
        expect(((await res.json()) as { issues: { path: string }[] }).issues[0]!.path).toBe(field)
      }),
      { seed: 5, numRuns: 40 },
    )
    const iso = await app.request('/_room/analytics?to=+275760-09-13T00:00:00Z', { headers: auth })
    expect(iso.status).toBe(400)
    // The latest valid range still answers (an empty future series), as JSON and CSV alike.
    const edge = `/_room/analytics?to=${Date.UTC(9999, 11, 31, 23, 59)}&from=${Date.UTC(9999, 11, 31)}&step=60`
    expect((await app.request(edge, { headers: auth })).status).toBe(200)
    expect((await app.request(edge, { headers: { ...auth, accept: 'text/csv' } })).status).toBe(200)
  })

  it('a report whose window fell out of the retention: drain unknown, complete false', async () => {
    const { app, clock } = mk()
    const post = await app.request('/_room/events', { method: 'POST', headers: auth, body: JSON.stringify({ id: 'busy', eventStartTime: START, eventEndTime: START + 30 * MINUTE }) })
    expect(post.status).toBe(201)
    const cookies: string[] = []
    for (let i = 0; i < 4; i++) {
      const r = await app.request('/')
      await r.text()
      cookies.push(r.headers.get('set-cookie')!.split(';')[0]!)
    }
    for (let t = 20_000; t < 40 * MINUTE; t += 20_000) {
      clock.now = START + t
      for (let k = 0; k < cookies.length; k++) {
        const r = await app.request('/', { headers: { cookie: cookies[k]! } })
        await r.text()
        const set = r.headers.get('set-cookie')
        if (set?.startsWith('__wroom=')) cookies[k] = set.split(';')[0]!
      }
    }
    clock.now = START + 41 * MINUTE
    const fresh = (await (await app.request('/_room/events/busy/report', { headers: auth })).json()) as Record<string, unknown>
    expect(fresh.peakQueue).toBeGreaterThan(0)
    expect(fresh.complete).toBe(true)
    clock.now = START + 8 * 1440 * MINUTE
    await (await app.request('/')).text() // a write prunes old minutes
    const later = (await (await app.request('/_room/events/busy/report', { headers: auth })).json()) as Record<string, unknown>
    expect(later.complete).toBe(false)
    expect(later.timeToDrainSeconds).toBeNull()
  })

  it('a future event: empty window, not started, no drain', async () => {
    const { app } = mk()
    for (const ahead of [2, 90, 60 * 24 * 30]) {
      const id = `future-${ahead}`
      const start = START + ahead * MINUTE
      expect((await app.request('/_room/events', { method: 'POST', headers: auth, body: JSON.stringify({ id, eventStartTime: start, eventEndTime: start + MINUTE }) })).status).toBe(201)
      const report = (await (await app.request(`/_room/events/${id}/report`, { headers: auth })).json()) as { window: { from: string; to: string }; started: boolean; timeToDrainSeconds: unknown }
      expect(report.window.from).toBe(report.window.to)
      expect(report.started).toBe(false)
      expect(report.timeToDrainSeconds).toBeNull()
    }
  })
})
