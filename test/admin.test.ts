/**
 * The admin API through `app.request()`: auth, runtime settings seen by other workers and after a
 * restart, events, status, Prometheus metrics and previews. Fake clock, in-memory storage and coordinator.
 */
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { waitingRoomAdmin, type WaitingRoomAdminOptions } from '../src/admin/admin.ts'
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { waitingRoom, type WaitingRoomEnv } from '../src/room/middleware.ts'
import type { WaitingRoomOptions } from '../src/room/options.ts'
import type { SettingsStorage } from '../src/admission/settings.ts'
import { renderPrometheus } from '../src/admin/prometheus.ts'
import { settle, START, TEST_SECRET } from './support/room-harness.ts'

const MINUTE = 60_000
const TOKEN = 'admin-token-0123456789abcdef'
const at = (minutes: number) => new Date(START + minutes * MINUTE).toISOString()

/** One worker: a room with its admin API mounted before it (so admin requests are never queued). */
function worker(clock: { now: number }, options: WaitingRoomOptions & { storage: SettingsStorage }, admin: Partial<WaitingRoomAdminOptions> = {}) {
  const middleware = waitingRoom({ secret: TEST_SECRET, clock: () => clock.now, random: () => 0.5, ...options })
  const app = new Hono<WaitingRoomEnv>()
  app.route('/_room', waitingRoomAdmin(middleware, { token: TOKEN, ...admin }))
  app.use('*', middleware)
  app.all('*', (c) => c.text(`origin ${c.get('waitingRoom').reason}`))

  /** A user's request; returns the outcome and the ticket cookie to send next time. */
  async function visit(cookie?: string): Promise<{ outcome: 'admitted' | 'queued'; cookie: string | undefined; body: string }> {
    const response = await app.request('/', { headers: cookie ? { cookie: `__wroom=${cookie}` } : {} })
    const body = await response.text()
    await settle() // the middleware reports in the background…
    await middleware.room.flush().catch(() => {}) // …once per turn of the event loop, on a timer settle() may run before
    const set = response.headers.get('set-cookie')
    const fresh = set?.startsWith('__wroom=') ? set.slice('__wroom='.length, set.indexOf(';')) : undefined
    return { outcome: body.startsWith('origin ') ? 'admitted' : 'queued', cookie: fresh ?? cookie, body }
  }

  async function call(method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; token?: string | null } = {}) {
    const headers: Record<string, string> = { ...init.headers }
    const token = init.token === undefined ? TOKEN : init.token
    if (token !== null) headers.authorization = `Bearer ${token}`
    if (init.body !== undefined) headers['content-type'] ??= 'application/json'
    const response = await app.request(`/_room${path}`, {
      method,
      headers,
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    })
    const text = await response.text()
    await settle()
    let json: any
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, text, json }
  }

  return { app, room: middleware.room, visit, call }
}

const freshClock = () => ({ now: START })

describe('admin auth', () => {
  it('answers 401 with a Bearer challenge without a token, with a wrong one or another scheme', async () => {
    const w = worker(freshClock(), { storage: createStorage() })
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-0123456789abc' }, { authorization: `Basic ${btoa('a:b')}` }, { authorization: 'Bearer !!' }]
    for (const headers of attempts) {
      const response = await w.call('GET', '/settings', { token: null, headers })
      expect(response.status).toBe(401)
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /)
      expect(response.json).toEqual({ error: 'unauthorized', message: expect.any(String) })
      expect(response.headers.get('cache-control')).toBe('no-store')
    }
    expect((await w.call('GET', '/settings', { token: null })).headers.get('www-authenticate')).toBe('Bearer realm="hono-waiting-room"')
    expect((await w.call('GET', '/settings')).status).toBe(200)
    // Nothing else reached: an unauthenticated PATCH changes nothing, even with a valid body.
    expect((await w.call('PATCH', '/settings', { token: null, body: { totalActiveUsers: 7 } })).status).toBe(401)
    expect((await w.call('GET', '/settings')).json.overrides).toEqual({})
  })

  it('accepts any of several tokens (rotation)', async () => {
    const w = worker(freshClock(), { storage: createStorage() }, { token: ['old-token-0123456789abcdef', TOKEN] })
    expect((await w.call('GET', '/status', { token: 'old-token-0123456789abcdef' })).status).toBe(200)
    expect((await w.call('GET', '/status')).status).toBe(200)
    expect((await w.call('GET', '/status', { token: 'new-token-0123456789abcdef' })).status).toBe(401)
  })

  it('refuses weak or missing tokens when the app is built, naming the field', () => {
    const room = waitingRoom({ secret: TEST_SECRET })
    expect(() => waitingRoomAdmin(room, { token: 'short' })).toThrow(/waitingRoomAdmin: invalid option token: at least 16 characters/)
    expect(() => waitingRoomAdmin(room, { token: [TOKEN, 'short'] })).toThrow(/invalid option token\.1: at least 16 characters/)
    expect(() => waitingRoomAdmin(room, { token: [] })).toThrow(/invalid option token: at least one token/)
    expect(() => waitingRoomAdmin(room, {} as never)).toThrow(/invalid option token: missing/)
    // An unset environment variable type-checks (the README's snippet) and is refused when the admin is built.
    const unset: string | undefined = process.env.HONO_WAITING_ROOM_TEST_UNSET_TOKEN
    expect(() => waitingRoomAdmin(room, { token: unset })).toThrow(/^\[hono-waiting-room\] waitingRoomAdmin: invalid option token: missing \(undefined\).*environment variable/)
    expect(() => waitingRoomAdmin(room, { token: 'has spaces in it, sixteen+' })).toThrow(/invalid option token: only letters/)
    expect(() => waitingRoomAdmin(room, { token: TOKEN, metricsPrefix: 'bad-prefix' })).toThrow(/invalid option metricsPrefix/)
    expect(() => waitingRoomAdmin({} as never, { token: TOKEN })).toThrow(/value returned by waitingRoom\(\)/)
  })
})

describe('runtime settings', () => {
  it('a PATCH on one worker changes admissions on another within 5 s', async () => {
    const clock = freshClock()
    const storage = createStorage()
    const coordinator = memoryCoordinator()
    const shared = { storage, coordinator, totalActiveUsers: 1, newUsersPerMinute: 100, refreshIntervalSeconds: 5 }
    const a = worker(clock, shared)
    const b = worker(clock, shared)

    const first = await b.visit()
    const second = await b.visit()
    const third = await b.visit()
    expect([first.outcome, second.outcome, third.outcome]).toEqual(['admitted', 'queued', 'queued'])

    const patched = await a.call('PATCH', '/settings', { body: { totalActiveUsers: 3 } })
    expect(patched.status).toBe(200)
    expect(patched.json.overrides).toEqual({ totalActiveUsers: 3 })
    expect(patched.json.settings.totalActiveUsers).toBe(3)

    // Before the refresh is due, worker B still holds the old limit.
    clock.now += 4000
    await b.visit(first.cookie)
    expect(b.room.settings.at(clock.now).totalActiveUsers).toBe(1)

    // 5 s after the change: any request (here the admitted user browsing) starts B's reload...
    clock.now += 1000
    expect((await b.visit(first.cookie)).outcome).toBe('admitted')
    // ...and the queued users' next check-ins are decided with the new limit.
    expect((await b.visit(second.cookie)).outcome).toBe('admitted')
    expect((await b.visit(third.cookie)).outcome).toBe('admitted')
    expect((await b.visit()).outcome).toBe('queued') // 3 active: full again
  })

  it('without the PATCH the same queued users stay queued (the test above can fail)', async () => {
    const clock = freshClock()
    const shared = { storage: createStorage(), coordinator: memoryCoordinator(), totalActiveUsers: 1, newUsersPerMinute: 100, refreshIntervalSeconds: 5 }
    const b = worker(clock, shared)
    const first = await b.visit()
    const second = await b.visit()
    clock.now += 5000
    await b.visit(first.cookie)
    expect((await b.visit(second.cookie)).outcome).toBe('queued')
  })

  it('survive a restart: a new room over the same storage starts with the stored overrides', async () => {
    const clock = freshClock()
    const storage = createStorage()
    const before = worker(clock, { storage, totalActiveUsers: 1 })
    expect((await before.call('PATCH', '/settings', { body: { totalActiveUsers: 3, queueingStatusCode: 429 } })).status).toBe(200)

    const after = worker(clock, { storage, totalActiveUsers: 1, coordinator: memoryCoordinator() })
    const outcomes = []
    for (let i = 0; i < 4; i++) outcomes.push((await after.visit()).outcome)
    expect(outcomes).toEqual(['admitted', 'admitted', 'admitted', 'queued'])
    const response = await after.app.request('/')
    expect(response.status).toBe(429)
    const settings = await after.call('GET', '/settings')
    expect(settings.json.overrides).toEqual({ totalActiveUsers: 3, queueingStatusCode: 429 })
    expect(settings.json.settings).toMatchObject({ totalActiveUsers: 3, newUsersPerMinute: 200, queueingStatusCode: 429 })
  })

  it('refuses invalid bodies with 400 naming the field, and non-JSON with 415', async () => {
    const w = worker(freshClock(), { storage: createStorage() })
    const zero = await w.call('PATCH', '/settings', { body: { totalActiveUsers: 0 } })
    expect(zero.status).toBe(400)
    expect(zero.json).toEqual({ error: 'invalid', issues: [{ path: 'totalActiveUsers', message: expect.any(String) }] })
    const unknown = await w.call('PATCH', '/settings', { body: { totalActiveUser: 5 } })
    expect(unknown.status).toBe(400)
    expect(unknown.json.issues).toEqual([{ path: 'totalActiveUser', message: 'unknown field' }])
    const method = await w.call('PATCH', '/settings', { body: { queueingMethod: 'lifo', queueingStatusCode: 404 } })
    expect(method.json.issues.map((issue: { path: string }) => issue.path).sort()).toEqual(['queueingMethod', 'queueingStatusCode'])
    const malformed = await w.call('PATCH', '/settings', { body: '{"totalActiveUsers":' })
    expect(malformed.status).toBe(400)
    expect(malformed.json.error).toBe('invalid')
    const notJson = await w.call('PATCH', '/settings', { body: 'totalActiveUsers=5', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(notJson.status).toBe(415)
    expect((await w.call('GET', '/settings')).json.overrides).toEqual({})
  })
})

describe('events', () => {
  it('creates, lists and deletes events; overlap is a 409, a bad body a 400 naming the field', async () => {
    const clock = freshClock()
    const storage = createStorage()
    const w = worker(clock, { storage })
    expect((await w.call('GET', '/events')).json).toEqual({ events: [] })

    const created = await w.call('POST', '/events', { body: { id: 'launch', eventStartTime: at(10), eventEndTime: at(40), totalActiveUsers: 50, newUsersPerMinute: 50 } })
    expect(created.status).toBe(201)
    expect(created.json.event).toMatchObject({ id: 'launch', eventStartTime: START + 10 * MINUTE, eventEndTime: START + 40 * MINUTE, totalActiveUsers: 50 })
    const unnamed = await w.call('POST', '/events', { body: { eventStartTime: START + 60 * MINUTE, eventEndTime: START + 70 * MINUTE } })
    expect(unnamed.status).toBe(201)
    expect(unnamed.json.event.id).toBe(`event-${START + 60 * MINUTE}`)

    const overlap = await w.call('POST', '/events', { body: { id: 'encore', prequeueStartTime: at(30), eventStartTime: at(45), eventEndTime: at(50) } })
    expect(overlap.status).toBe(409)
    expect(overlap.json).toEqual({ error: 'conflict', message: expect.stringMatching(/events "launch" and "encore" overlap/) })
    const sameId = await w.call('POST', '/events', { body: { id: 'launch', eventStartTime: at(100), eventEndTime: at(110) } })
    expect(sameId.status).toBe(409)
    expect(sameId.json.message).toMatch(/"launch" already exists/)

    const backwards = await w.call('POST', '/events', { body: { eventStartTime: at(200), eventEndTime: at(190) } })
    expect(backwards.status).toBe(400)
    expect(backwards.json.issues).toEqual([{ path: 'eventEndTime', message: 'must be after eventStartTime' }])
    const missing = await w.call('POST', '/events', { body: { eventEndTime: at(190) } })
    expect(missing.json.issues.map((issue: { path: string }) => issue.path)).toEqual(['eventStartTime'])
    const badLimit = await w.call('POST', '/events', { body: { eventStartTime: at(200), eventEndTime: at(210), totalActiveUsers: 10, newUsersPerMinute: -1 } })
    expect(badLimit.json.issues.map((issue: { path: string }) => issue.path)).toEqual(['newUsersPerMinute'])

    const listed = await w.call('GET', '/events')
    expect(listed.json.events.map((e: { id: string }) => e.id)).toEqual(['launch', `event-${START + 60 * MINUTE}`])
    // Another worker (or a restarted one) reads them from the storage.
    const other = worker(clock, { storage })
    expect((await other.call('GET', '/events')).json.events).toHaveLength(2)

    const deleted = await w.call('DELETE', '/events/launch')
    expect(deleted.status).toBe(200)
    expect(deleted.json.deleted.id).toBe('launch')
    expect((await other.call('GET', '/events')).json.events.map((e: { id: string }) => e.id)).toEqual([`event-${START + 60 * MINUTE}`])
    const again = await w.call('DELETE', '/events/launch')
    expect(again.status).toBe(404)
    expect(again.json).toEqual({ error: 'not_found', message: 'no event with the id "launch"' })
  })
})

describe('GET /status', () => {
  it('reports not_queueing, then queueing with the users and the longest wait, then suspended', async () => {
    const clock = freshClock()
    const w = worker(clock, { storage: createStorage(), totalActiveUsers: 2, newUsersPerMinute: 100 })
    await w.visit()
    const calm = await w.call('GET', '/status')
    expect(calm.status).toBe(200)
    expect(calm.headers.get('cache-control')).toBe('no-store')
    expect(calm.json).toEqual({
      status: 'not_queueing',
      estimatedQueuedUsers: 0,
      estimatedTotalActiveUsers: 1,
      maxEstimatedTimeMinutes: 0,
      event: null,
      locations: { local: { activeUsers: 1, waitingUsers: 0, admittedThisMinute: 1 } },
    })

    await w.visit()
    const full = await w.call('GET', '/status')
    expect(full.json.status).toBe('queueing') // no waiting users yet, but no slot left
    expect(full.json.estimatedQueuedUsers).toBe(0)

    await w.visit()
    await w.visit()
    const busy = await w.call('GET', '/status')
    // No admissions in a completed minute yet, so the rate is the session turnover: 2 / (5 + 1) per minute;
    // both waiting users are ahead of a newcomer: ceil(2 / (1/3)) = 6 minutes.
    expect(busy.json).toMatchObject({ status: 'queueing', estimatedQueuedUsers: 2, estimatedTotalActiveUsers: 2, maxEstimatedTimeMinutes: 6 })
    expect(busy.json.locations.local).toEqual({ activeUsers: 2, waitingUsers: 2, admittedThisMinute: 2 })

    await w.call('PATCH', '/settings', { body: { suspended: true } })
    expect((await w.call('GET', '/status')).json).toMatchObject({ status: 'suspended', maxEstimatedTimeMinutes: 0 })
  })

  it('reports event_prequeueing with the event during its prequeue', async () => {
    const clock = freshClock()
    const w = worker(clock, { storage: createStorage() })
    await w.call('POST', '/events', { body: { id: 'drop', prequeueStartTime: at(1), eventStartTime: at(6), eventEndTime: at(30) } })
    expect((await w.call('GET', '/status')).json).toMatchObject({ status: 'not_queueing', event: null })
    clock.now += MINUTE + 1000
    await w.visit()
    const prequeue = await w.call('GET', '/status')
    expect(prequeue.json).toMatchObject({ status: 'event_prequeueing', estimatedQueuedUsers: 1, maxEstimatedTimeMinutes: 0 })
    expect(prequeue.json.event).toMatchObject({ id: 'drop', eventStartTime: START + 6 * MINUTE })
    clock.now += 5 * MINUTE
    expect((await w.call('GET', '/status')).json.event.id).toBe('drop') // active now
  })

  it('answers 503 when the coordinator is down', async () => {
    const w = worker(freshClock(), { storage: createStorage(), coordinator: brokenCoordinator() })
    const response = await w.call('GET', '/status')
    expect(response.status).toBe(503)
    expect(response.json.error).toBe('coordinator_unavailable')
  })
})

function brokenCoordinator(): Coordinator {
  const down = () => Promise.reject(new Error('connection refused'))
  return { name: 'broken', increment: down, sync: down }
}

/** Metric name, optional labels with escaped values, a value: the 0.0.4 sample line. */
const SAMPLE_LINE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")*\})? (?:-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|NaN|[+-]Inf)$/
const COMMENT_LINE = /^# (?:HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (?:counter|gauge))$/

function parseExposition(text: string): Map<string, number> {
  expect(text.endsWith('\n')).toBe(true)
  const samples = new Map<string, number>()
  for (const line of text.slice(0, -1).split('\n')) {
    if (line.startsWith('#')) {
      expect(line).toMatch(COMMENT_LINE)
      continue
    }
    expect(line).toMatch(SAMPLE_LINE)
    const space = line.lastIndexOf(' ')
    samples.set(line.slice(0, space), Number(line.slice(space + 1)))
  }
  return samples
}

describe('GET /metrics', () => {
  it('serves the Prometheus text format and counts decisions by outcome and reason', async () => {
    const clock = freshClock()
    const w = worker(clock, { storage: createStorage(), totalActiveUsers: 2, newUsersPerMinute: 100, location: () => 'edge "1"\\x' })
    const admitted = await w.visit()
    await w.visit()
    await w.visit() // queued
    await w.visit(admitted.cookie) // session

    const response = await w.call('GET', '/metrics')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8')
    const samples = parseExposition(response.text)
    const room = 'room="default"'
    expect(samples.get(`waiting_room_decisions_total{${room},outcome="admitted",reason="slot"}`)).toBe(2)
    expect(samples.get(`waiting_room_decisions_total{${room},outcome="admitted",reason="session"}`)).toBe(1)
    expect(samples.get(`waiting_room_decisions_total{${room},outcome="queued",reason="no-slot"}`)).toBe(1)
    expect(samples.get(`waiting_room_decisions_total{${room},outcome="rejected",reason="reject"}`)).toBe(0)
    // One counter call per new user: the third is refused by the counter itself (its sequence number is 2).
    expect(samples.get(`waiting_room_counter_round_trips_total{${room}}`)).toBe(3)
    expect(samples.get(`waiting_room_coordinator_errors_total{${room}}`)).toBe(0)
    const location = 'location="edge \\"1\\"\\\\x"'
    expect(samples.get(`waiting_room_active_users{${room},${location}}`)).toBe(2)
    expect(samples.get(`waiting_room_queued_users{${room},${location}}`)).toBe(1)
    expect(samples.get(`waiting_room_admissions_this_minute{${room},${location}}`)).toBe(2)
    expect(samples.get(`waiting_room_status{${room},status="queueing"}`)).toBe(1)
    expect(samples.get(`waiting_room_status{${room},status="not_queueing"}`)).toBe(0)
    expect(response.text).toContain('# TYPE waiting_room_decisions_total counter\n')
    expect(response.text).toContain('# TYPE waiting_room_active_users gauge\n')

    // A minute later the average admission rate is known.
    clock.now += MINUTE
    await w.visit(admitted.cookie)
    const later = parseExposition((await w.call('GET', '/metrics')).text)
    expect(later.get(`waiting_room_admissions_per_minute{${room}}`)).toBe(2)
    expect(later.get(`waiting_room_decisions_total{${room},outcome="admitted",reason="session"}`)).toBe(2)
  })

  it('still serves the counters when the coordinator is down, with the fail-open/closed fallbacks', async () => {
    const w = worker(freshClock(), { storage: createStorage(), coordinator: brokenCoordinator(), failMode: 'closed' })
    expect((await w.visit()).outcome).toBe('queued')
    expect((await w.visit()).outcome).toBe('queued')
    const response = await w.call('GET', '/metrics')
    expect(response.status).toBe(200)
    const samples = parseExposition(response.text)
    expect(samples.get('waiting_room_decisions_total{room="default",outcome="queued",reason="fail-closed"}')).toBe(2)
    expect(samples.get('waiting_room_coordinator_fallbacks_total{room="default",mode="closed"}')).toBe(2)
    expect(samples.get('waiting_room_coordinator_fallbacks_total{room="default",mode="open"}')).toBe(0)
    expect(samples.get('waiting_room_coordinator_errors_total{room="default"}')).toBeGreaterThanOrEqual(2)
    expect(response.text).not.toContain('waiting_room_active_users')
  })

  it('escapes label values and help text; refuses invalid names', () => {
    const text = renderPrometheus([
      { name: 'x_total', help: 'a \\ b\nc', type: 'counter', samples: [{ labels: { l: 'q"\\\n' }, value: 1 }, { value: Number.POSITIVE_INFINITY }] },
    ])
    expect(text).toBe('# HELP x_total a \\\\ b\\nc\n# TYPE x_total counter\nx_total{l="q\\"\\\\\\n"} 1\nx_total +Inf\n')
    parseExposition(text)
    expect(() => renderPrometheus([{ name: 'bad-name', help: '', type: 'gauge', samples: [] }])).toThrow(/invalid metric name/)
    expect(() => renderPrometheus([{ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { 'bad-label': '' }, value: 0 }] }])).toThrow(/invalid label name/)
  })
})

describe('GET|POST /preview', () => {
  it('renders the queue page with the chosen variables over defaults', async () => {
    const w = worker(freshClock(), { storage: createStorage() })
    const german = await w.call('GET', '/preview?waitTime=7&language=de')
    expect(german.status).toBe(200)
    expect(german.headers.get('content-type')).toMatch(/^text\/html/)
    expect(german.headers.get('content-language')).toBe('de')
    expect(german.text).toContain('Sie sind jetzt in der Warteschlange')
    expect(german.text).toContain('etwa 7 Minuten')

    const reject = await w.call('GET', '/preview?queueingMethod=reject')
    expect(reject.text).toContain('This site is not accepting visitors right now')

    const json = await w.call('GET', '/preview?queueingMethod=random&waitTime=4&isEventPrequeueing=false&queueAll=0', { headers: { accept: 'application/json' } })
    expect(json.json.waitingRoom).toMatchObject({
      queueingMethod: 'random',
      isRandomQueue: true,
      isFIFOQueue: false,
      waitTimeKnown: true,
      waitTime: 4,
      waitTime25Percentile: 2,
      waitTime50Percentile: 4,
      waitTime75Percentile: 8,
      isEventPrequeueing: false,
      queueAll: false,
      refreshIntervalSeconds: 20,
      lastUpdated: new Date(START).toISOString(),
    })
    const prequeue = await w.call('GET', '/preview?isEventPrequeueing=true', { headers: { accept: 'application/json' } })
    expect(prequeue.json.waitingRoom).toMatchObject({ isEventPrequeueing: true, waitTimeKnown: false, waitTimeFormatted: 'unavailable' })

    const custom = await w.call('POST', '/preview', {
      body: { template: '<p>{{waitTime}} min{{#isEventPrequeueing}}, prequeue{{/isEventPrequeueing}}</p>', waitTime: 12, waitTimeKnown: true, isEventPrequeueing: true },
    })
    expect(custom.status).toBe(200)
    expect(custom.text).toBe('<p>12 min, prequeue</p>')
  })

  it('refuses bad variables with 400 naming the field', async () => {
    const w = worker(freshClock(), { storage: createStorage() })
    const cases: [string, string][] = [
      ['/preview?waitTime=soon', 'waitTime'],
      ['/preview?isEventPrequeueing=maybe', 'isEventPrequeueing'],
      ['/preview?queueingMethod=lifo', 'queueingMethod'],
      ['/preview?language=xx', 'language'],
      ['/preview?waitTim=5', 'waitTim'],
    ]
    for (const [path, field] of cases) {
      const response = await w.call('GET', path)
      expect(response.status, path).toBe(400)
      expect(response.json.issues.map((issue: { path: string }) => issue.path), path).toEqual([field])
    }
    const template = await w.call('POST', '/preview', { body: { template: '{{#open}} never closed' } })
    expect(template.status).toBe(400)
    expect(template.json.issues[0].path).toBe('template')
  })
})
