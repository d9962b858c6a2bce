/**
 * History end to end through the real middleware and admin API (fake clock, memory coordinator): what users
 * did comes back from `GET /analytics` (JSON and CSV) and `GET /events/:id/report` with the numbers the test
 * can count itself; bad queries get 400s naming the field; a coordinator without history gets 501.
 */
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { waitingRoomAdmin } from '../src/admin/admin.ts'
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { waitingRoom, type WaitingRoomEnv } from '../src/room/middleware.ts'
import type { WaitingRoomOptions } from '../src/room/options.ts'
import { settle, START, TEST_SECRET } from './support/room-harness.ts'

const MINUTE = 60_000
const TOKEN = 'admin-token-0123456789abcdef'

function worker(clock: { now: number }, coordinator: Coordinator, options: WaitingRoomOptions = {}) {
  const middleware = waitingRoom({ secret: TEST_SECRET, clock: () => clock.now, random: () => 0.5, coordinator, storage: createStorage(), ...options })
  const app = new Hono<WaitingRoomEnv>()
  app.route('/_room', waitingRoomAdmin(middleware, { token: TOKEN }))
  app.use('*', middleware)
  app.all('*', (c) => c.text(`origin ${c.get('waitingRoom').reason}`))

  async function visit(cookie?: string): Promise<{ admitted: boolean; cookie: string | undefined }> {
    const response = await app.request('/', { headers: cookie ? { cookie: `__wroom=${cookie}` } : {} })
    const body = await response.text()
    await settle()
    const set = response.headers.get('set-cookie')
    const fresh = set?.startsWith('__wroom=') ? set.slice('__wroom='.length, set.indexOf(';')) : undefined
    return { admitted: body.startsWith('origin '), cookie: fresh ?? cookie }
  }

  async function get(path: string, headers: Record<string, string> = {}) {
    const response = await app.request(`/_room${path}`, { headers: { authorization: `Bearer ${TOKEN}`, ...headers } })
    const text = await response.text()
    let json: any
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json }
  }
  return { visit, get, room: middleware.room }
}

/**
 * Five users arrive in minute 0 of a room for three: three are admitted, two wait (checking in every 20 s)
 * until the first sessions expire. One admitted user comes back in minute 2 (a renewal: a 2-minute session).
 */
async function scenario(options: WaitingRoomOptions = {}) {
  const clock = { now: START + 5000 }
  const coordinator = memoryCoordinator()
  const w = worker(clock, coordinator, { totalActiveUsers: 3, newUsersPerMinute: 50, sessionDurationMinutes: 3, ...options })
  const users = []
  for (let i = 0; i < 5; i++) users.push(await w.visit())
  const admittedAt: number[] = users.filter((u) => u.admitted).map(() => clock.now)
  const queued = users.filter((u) => !u.admitted)
  expect(admittedAt.length).toBe(3)
  for (let t = 20_000; t <= 12 * MINUTE && queued.length > 0; t += 20_000) {
    clock.now = START + 5000 + t
    if (t === 2 * MINUTE) users[0] = await w.visit(users[0]!.cookie)
    for (let i = queued.length - 1; i >= 0; i--) {
      const next = await w.visit(queued[i]!.cookie)
      queued[i] = next
      if (next.admitted) {
        admittedAt.push(clock.now)
        queued.splice(i, 1)
      }
    }
  }
  expect(queued.length).toBe(0)
  return { w, clock, admittedAt, coordinator }
}

describe('GET /analytics', () => {
  it('answers what the users did: arrivals, admissions, gauges, waits and sessions, per minute and in total', async () => {
    const { w, admittedAt } = await scenario()
    const { status, json } = await w.get(`/analytics?from=${START}&to=${START + 15 * MINUTE}`)
    expect(status).toBe(200)
    expect(json.points.length).toBe(15)
    expect(json.stepMinutes).toBe(1)
    expect(json.retentionMinutes).toBe(7 * 24 * 60)
    expect(json.points[0]).toMatchObject({ time: new Date(START).toISOString(), arrivals: 5, admissions: 3, limit: 3, newUsersPerMinute: 50, activeUsers: 3, waitingUsers: 2 })
    expect(json.points[0].wait).toEqual({ count: 3, p50: 0, p90: 0, p99: 0, max: 0 })
    const waits = admittedAt.slice(3).map((at) => Math.floor((at - START) / 1000))
    expect(json.totals).toMatchObject({ admissions: 5, arrivals: 5, peakActiveUsers: 3, peakWaitingUsers: 2 })
    expect(json.totals.wait.count).toBe(5)
    expect(json.totals.wait.max).toBe(Math.max(...waits))
    // p90 of [0, 0, 0, w1, w2] lies with the waiters: within the bin of the longer wait, never above the max.
    expect(json.totals.wait.p90).toBeGreaterThan(Math.min(...waits) - 60)
    expect(json.totals.wait.p90).toBeLessThanOrEqual(Math.max(...waits))
    // The admissions after the wait happened in the minutes the test saw them.
    for (const at of admittedAt.slice(3)) expect(json.points[Math.floor((at - START) / MINUTE)].admissions).toBeGreaterThanOrEqual(1)
    // Sessions: five, each counted once; user 0's moved to minute 2 by its renewal at 120 s (bin [120, 180)).
    expect(json.totals.session.count).toBe(5)
    expect(json.points[2].session.count).toBe(1)
    expect(json.points[2].session.p50).toBeGreaterThanOrEqual(120)
    expect(json.points[2].session.p50).toBeLessThan(180)
    expect(json.points[0].session.count).toBe(2)
    // Nothing happened after the last admission's minute but the gauges of the requests made.
    expect(json.points[14]).toMatchObject({ admissions: 0, arrivals: 0, activeUsers: null, wait: { count: 0, p50: null, max: null } })
  })

  it('sums per step: step=5 gives three points whose counters add up to the totals', async () => {
    const { w } = await scenario()
    const one = (await w.get(`/analytics?from=${START}&to=${START + 15 * MINUTE}`)).json
    const five = (await w.get(`/analytics?from=${new Date(START).toISOString()}&to=${new Date(START + 15 * MINUTE).toISOString()}&step=5`)).json
    expect(five.points.length).toBe(3)
    for (let i = 0; i < 3; i++) {
      const minutes = one.points.slice(i * 5, i * 5 + 5)
      expect(five.points[i].admissions).toBe(minutes.reduce((s: number, p: any) => s + p.admissions, 0))
      expect(five.points[i].arrivals).toBe(minutes.reduce((s: number, p: any) => s + p.arrivals, 0))
      const peaks = minutes.map((p: any) => p.waitingUsers).filter((v: number | null) => v !== null)
      expect(five.points[i].waitingUsers).toBe(peaks.length ? Math.max(...peaks) : null)
    }
    expect(five.totals).toEqual(one.totals)
  })

  it('answers CSV for Accept: text/csv, one line per point', async () => {
    const { w } = await scenario()
    const json = (await w.get(`/analytics?from=${START}&to=${START + 15 * MINUTE}`)).json
    const csv = await w.get(`/analytics?from=${START}&to=${START + 15 * MINUTE}`, { accept: 'text/csv' })
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
    const lines = csv.text.trimEnd().split('\r\n')
    expect(lines.length).toBe(16)
    const header = lines[0]!.split(',')
    expect(header.slice(0, 8)).toEqual(['time', 'minute', 'activeUsers', 'limit', 'newUsersPerMinute', 'waitingUsers', 'admissions', 'arrivals'])
    const first = Object.fromEntries(lines[1]!.split(',').map((value, i) => [header[i], value]))
    expect(first).toMatchObject({ time: json.points[0].time, admissions: '3', arrivals: '5', limit: '3', waitMax: '0' })
    const last = Object.fromEntries(lines[15]!.split(',').map((value, i) => [header[i], value]))
    expect(last).toMatchObject({ activeUsers: '', waitP50: '' })
  })

  it('counts the open extra counters (e.g. challenge outcomes) and lists them as CSV columns', async () => {
    const clock = { now: START }
    const w = worker(clock, memoryCoordinator())
    await w.visit()
    w.room.history!.count(clock.now, 'default', 'challenge.passed', 2)
    w.room.history!.count(clock.now, 'default', 'challenge.failed')
    const { json } = await w.get(`/analytics?from=${START}&to=${START + MINUTE}`)
    expect(json.points[0].extra).toEqual({ 'challenge.passed': 2, 'challenge.failed': 1 })
    const csv = (await w.get(`/analytics?from=${START}&to=${START + MINUTE}`, { accept: 'text/csv' })).text
    expect(csv.split('\r\n')[0]).toMatch(/,extra\.challenge\.failed,extra\.challenge\.passed$/)
  })

  it('adds up several workers over one coordinator: counters summed, gauges the highest any worker saw', async () => {
    const clock = { now: START + 1000 }
    const coordinator = memoryCoordinator()
    const a = worker(clock, coordinator, { totalActiveUsers: 100 })
    const b = worker(clock, coordinator, { totalActiveUsers: 100 })
    for (let i = 0; i < 7; i++) await a.visit()
    for (let i = 0; i < 4; i++) await b.visit()
    // Each worker writes its history every 10 s at most; a read writes the reading worker's own pending minutes.
    // So a's read shows a's 7 and only what b wrote so far (its first batch, right away), then b's read shows all.
    const query = `/analytics?from=${START}&to=${START + MINUTE}`
    expect((await a.get(query)).json.points[0].admissions).toBe(8)
    // A gauge is what the worker's snapshot showed when it served a request: b's next one (here /status) shows all 11.
    await b.get('/status')
    const seenBy = [await b.get(query), await a.get(query)]
    for (const { json } of seenBy) expect(json.points[0]).toMatchObject({ admissions: 11, arrivals: 11, limit: 100 })
    // b's last snapshot showed all 11 active (it synced after a's admissions): the peak is 11 — max-merged, not summed.
    expect(seenBy[0]!.json.points[0].activeUsers).toBe(11)
  })

  it('keeps analyticsRetentionDays of history: older minutes are gone, newer ones kept; a bad value names the field', async () => {
    const clock = { now: START + 5000 }
    const w = worker(clock, memoryCoordinator(), { analyticsRetentionDays: 1 })
    await w.visit()
    await w.room.flush()
    clock.now += 2 * 24 * 60 * MINUTE // two days later: the next write prunes what is older than one day
    await w.visit()
    await w.room.flush()
    const all = await w.get(`/analytics?from=${START}&to=${clock.now + MINUTE}&step=1440`)
    expect(all.status).toBe(200)
    expect(all.json.retentionMinutes).toBe(24 * 60)
    expect(all.json.totals.arrivals).toBe(1) // the first day's arrival was pruned, the last one kept
    expect(() => waitingRoom({ analyticsRetentionDays: 0 })).toThrow(/analyticsRetentionDays/)
    expect(() => waitingRoom({ analyticsRetentionDays: 91 })).toThrow(/analyticsRetentionDays/)
  })

  it('refuses bad queries with 400s that name the field', async () => {
    const w = worker({ now: START }, memoryCoordinator())
    const cases: [string, string][] = [
      ['from=yesterday', 'from'],
      ['to=2026-13-01T00:00:00Z', 'to'],
      ['step=0', 'step'],
      ['step=1441', 'step'],
      ['step=1.5', 'step'],
      [`from=${START}&to=${START}`, 'from'],
      [`from=${START}&to=${START - MINUTE}`, 'from'],
      [`from=${START - 3000 * MINUTE}&to=${START}`, 'step'],
      [`from=0&to=${START - 8 * 24 * 60 * MINUTE}`, 'to'],
      ['color=red', 'color'],
    ]
    for (const [query, path] of cases) {
      const { status, json } = await w.get(`/analytics?${query}`)
      expect({ query, status }).toEqual({ query, status: 400 })
      expect(json.error).toBe('invalid')
      expect(json.issues.map((issue: { path: string }) => issue.path)).toContain(path)
    }
    expect((await w.get('/analytics')).status).toBe(200)
  })

  it('needs the admin token', async () => {
    const w = worker({ now: START }, memoryCoordinator())
    expect((await w.get('/analytics', { authorization: 'Bearer nope-nope-nope-nope-nope' })).status).toBe(401)
  })

  it('answers 501 with a message when the coordinator keeps no history, and the room still works', async () => {
    const inner = memoryCoordinator()
    const bare: Coordinator = { name: 'bare', increment: (r) => inner.increment(r), sync: (r) => inner.sync(r), takeSlot: (r) => inner.takeSlot(r) }
    const w = worker({ now: START }, bare)
    expect((await w.visit()).admitted).toBe(true)
    const { status, json } = await w.get('/analytics')
    expect(status).toBe(501)
    expect(json).toEqual({ error: 'not_implemented', message: expect.stringMatching(/bare coordinator keeps no history/) })
    expect((await w.get('/events/x/report')).status).toBe(404)
  })

  it('answers 503 when reading history fails', async () => {
    const inner = memoryCoordinator()
    const failing: Coordinator = { ...inner, name: 'memory', readHistory: async () => Promise.reject(new Error('backend down')), sync: inner.sync, increment: inner.increment }
    const w = worker({ now: START }, failing)
    const { status, json } = await w.get('/analytics')
    expect(status).toBe(503)
    expect(json.message).toMatch(/backend down/)
  })
})

describe('GET /events/:id/report', () => {
  it('reports peak queue, max wait, admitted and time to drain of an event', async () => {
    const event = { id: 'sale', eventStartTime: START, eventEndTime: START + 30 * MINUTE }
    const { w, admittedAt, clock } = await scenario({ events: [event] })
    clock.now = START + 20 * MINUTE
    const { status, json } = await w.get('/events/sale/report')
    expect(status).toBe(200)
    const lastAdmission = Math.max(...admittedAt)
    expect(json).toMatchObject({
      started: true,
      admitted: 5,
      arrivals: 5,
      peakQueue: 2,
      peakQueueAt: new Date(START).toISOString(),
      peakActiveUsers: 3,
      maxWaitSeconds: Math.floor((lastAdmission - START) / 1000),
      window: { from: new Date(START).toISOString(), to: new Date(START + 21 * MINUTE).toISOString() },
    })
    expect(json.event.id).toBe('sale')
    // Drained: the first minute after the peak with an empty queue, after the last waiter got in.
    expect(json.timeToDrainSeconds).toBeGreaterThan(Math.floor((lastAdmission - START) / MINUTE) * 60 - 1)
    expect(json.timeToDrainSeconds).toBeLessThanOrEqual((Math.floor((lastAdmission - START) / MINUTE) + 1) * 60)
    expect((await w.get('/events/nope/report')).status).toBe(404)
  })

  it('an event whose queue stayed empty drained at once', async () => {
    const clock = { now: START + 1000 }
    const w = worker(clock, memoryCoordinator(), { totalActiveUsers: 100, events: [{ id: 'calm', eventStartTime: START, eventEndTime: START + 10 * MINUTE }] })
    for (let i = 0; i < 4; i++) expect((await w.visit()).admitted).toBe(true)
    await w.get('/status')
    clock.now = START + 5 * MINUTE
    expect((await w.get('/events/calm/report')).json).toMatchObject({ admitted: 4, peakQueue: 0, maxWaitSeconds: 0, timeToDrainSeconds: 0 })
  })

  it('a future event reports zeros and nulls', async () => {
    const clock = { now: START }
    const w = worker(clock, memoryCoordinator(), { events: [{ id: 'later', eventStartTime: START + 60 * MINUTE, eventEndTime: START + 90 * MINUTE }] })
    const { json } = await w.get('/events/later/report')
    expect(json).toMatchObject({ started: false, admitted: 0, peakQueue: null, maxWaitSeconds: null, timeToDrainSeconds: null })
  })
})
