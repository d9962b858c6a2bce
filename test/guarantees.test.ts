/**
 * Guarantees that hold under attack and crashes (issue #14), on the middleware with the memory coordinator;
 * each adapter proves the coordinator half (grants count admissions, once keys, epochs) in the conformance
 * suite, in its own runtime.
 */
import { Hono } from 'hono'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { losableMemory } from './support/losable.ts'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { waitingRoom, type Coordinator, type WaitingRoomEnv, type WaitingRoomOptions } from '../src/index.ts'
import { roomHarness, settle, START, TEST_SECRET } from './support/room-harness.ts'

const MINUTE = 60_000

/** A worker of a room over `coordinator`, with its own link, as one process of a fleet. */
function worker(coordinator: Coordinator, clock: { now: number }, options: WaitingRoomOptions = {}) {
  const app = new Hono<WaitingRoomEnv>()
  const room = waitingRoom({ secret: TEST_SECRET, clock: () => clock.now, coordinator, totalActiveUsers: 3, newUsersPerMinute: 100, ...options })
  app.use('*', room)
  app.all('*', (c) => {
    const command = c.req.header('x-command')
    if (command) c.header('Waiting-Room-Command', command)
    return c.text(c.get('waitingRoom').reason)
  })
  const request = async (cookie?: string, headers: Record<string, string> = {}) => {
    const response = await app.request('/', { headers: cookie ? { ...headers, cookie: `__wroom=${cookie}` } : headers })
    const text = await response.text()
    await settle()
    const set = response.headers.get('set-cookie')
    const fresh = set?.startsWith('__wroom=') ? set.slice(8, set.indexOf(';')) : undefined
    return { admitted: text === 'slot' || text === 'session', reason: text, cookie: fresh || cookie, response }
  }
  return { app, room, request }
}

/** Active users in the coordinator's stored state (the sum of every location's `a{m}` fields). */
async function activeCount(coordinator: Coordinator, now: number): Promise<number> {
  const state = await coordinator.sync({ id: `probe-${Math.random()}`, roomId: 'default', location: 'probe', at: now, keepMinutes: 10, deltas: {} })
  let sum = 0
  for (const { counts } of Object.values(state.locations)) for (const [field, n] of Object.entries(counts)) if (/^a\d+$/.test(field)) sum += n
  return sum
}

describe('a revocation frees one place, however often it is sent (#14.2)', () => {
  it('20 concurrent revoking requests with one ticket, on two workers, free exactly one place', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 30 }), fc.integer({ min: 1, max: 4 }), async (copies, workers) => {
        const clock = { now: START }
        const coordinator = memoryCoordinator()
        const fleet = Array.from({ length: workers }, () => worker(coordinator, clock, { enabledOriginCommands: ['revoke'] }))
        const users: { admitted: boolean; cookie: string | undefined }[] = []
        for (let i = 0; i < 3; i++) users.push(await fleet[i % workers]!.request())
        expect(users.every((u) => u.admitted)).toBe(true)
        // One admitted user fires `copies` revoking requests at once, spread over every worker.
        // A copy a worker sees after the revocation is a new user; one admitted revokes its own new ticket too.
        await Promise.all(Array.from({ length: copies }, (_, i) => fleet[i % workers]!.request(users[0]!.cookie, { 'x-command': 'revoke' })))
        for (const w of fleet) await w.room.room.flush()
        // Exactly one place is free in the coordinator's count; it goes to a newcomer, or, under FIFO, to a copy
        // that was queued (a worker that had seen the revocation) and checks in first: never to more than one.
        expect(await activeCount(coordinator, clock.now)).toBe(2)
        clock.now += 6000 // past the snapshot age: every worker sees the room as it is now
        const newcomers = []
        for (let i = 0; i < 10; i++) newcomers.push(await fleet[i % workers]!.request())
        expect(newcomers.filter((n) => n.admitted).length).toBeLessThanOrEqual(1)
      }),
      { numRuns: 15 },
    )
  })
})

describe('an admission is counted by the step that grants it (#14.3)', () => {
  it('a worker that dies before reporting leaves its admissions counted', async () => {
    for (const syncIntervalMs of [60_000, 5_000]) {
      const clock = { now: START }
      const coordinator = memoryCoordinator()
      // This worker never gets to report: its process is killed right after admitting.
      const doomed = worker(coordinator, clock, { syncIntervalMs, totalActiveUsers: 7, newUsersPerMinute: 7 })
      const admitted = []
      for (let i = 0; i < 7; i++) admitted.push(await doomed.request())
      expect(admitted.every((a) => a.admitted)).toBe(true)
      // A fresh worker (the restarted process) in each of the next minutes admits nobody while the 7 browse.
      const next = worker(coordinator, clock, { syncIntervalMs, totalActiveUsers: 7, newUsersPerMinute: 7 })
      for (let minute = 1; minute <= 4; minute++) {
        clock.now = START + minute * MINUTE + 1000
        for (const user of admitted) expect((await next.request(user.cookie)).admitted).toBe(true)
        await next.room.room.flush()
        for (let i = 0; i < 5; i++) expect((await next.request()).admitted).toBe(false)
      }
    }
  })
})


describe('a backend that comes back empty does not reopen the room (#14.4)', () => {
  it('workers that knew the old state keep the room full until its sessions have expired, then count what checked in', async () => {
    for (const failMode of ['closed', 'open'] as const) {
      const clock = { now: START }
      const { coordinator, lose } = losableMemory()
      const w = worker(coordinator, clock, { failMode })
      const users = [await w.request(), await w.request(), await w.request()]
      expect(users.every((u) => u.admitted)).toBe(true)
      lose()
      clock.now += 6000 // past the snapshot's age: the next request syncs and sees the new epoch
      await w.request()
      clock.now += 1000
      const during = []
      for (let i = 0; i < 5; i++) during.push(await w.request())
      if (failMode === 'open') {
        expect(during.filter((d) => d.admitted).length).toBeGreaterThan(0) // the operator chose availability over the limit
        continue
      }
      expect(during.some((d) => d.admitted)).toBe(false)
      expect(w.room.room.metrics.decisions.recovering).toBeGreaterThan(0)
      // Two of the three keep browsing, once a minute; the third leaves. The five queued users check in too.
      for (let minute = 1; minute <= 7; minute++) {
        clock.now = START + minute * MINUTE + 2000
        for (const user of users.slice(0, 2)) {
          const again = await w.request(user.cookie)
          expect(again.admitted).toBe(true)
          user.cookie = again.cookie
        }
        await w.room.room.flush()
        let admittedNow = 0
        for (const queued of during) {
          const again = await w.request(queued.cookie)
          queued.cookie = again.cookie
          if (again.admitted) admittedNow++
        }
        // Full while sessions from before the loss may live (through minute 0 + 5); then the one free place is used.
        expect(admittedNow).toBe(minute >= 7 ? 1 : 0)
      }
    }
  })

  it('a fleet that restarted with the backend learns of the loss from the first older session', async () => {
    const clock = { now: START }
    const first = memoryCoordinator()
    const before = worker(first, clock)
    const users = [await before.request(), await before.request(), await before.request()]
    clock.now += 30_000
    // Everything restarts: a new process on a new (empty) backend, same secret.
    const after = worker(memoryCoordinator(), clock)
    await after.request() // a cold start: the new backend's epoch begins now, and this newcomer fills a place
    expect((await after.request(users[0]!.cookie)).admitted).toBe(true)
    await after.room.room.flush()
    for (let i = 0; i < 4; i++) expect((await after.request()).admitted).toBe(false)
  })
})

describe('requests that are not GET or HEAD never read as success while queued (#14.8)', () => {
  const cases = [
    { code: 200 as const, expected: 503 },
    { code: 202 as const, expected: 202 },
    { code: 429 as const, expected: 429 },
  ]
  for (const { code, expected } of cases) {
    it(`queueingStatusCode ${code}: POST/PUT/DELETE/PATCH get ${expected} with Retry-After; GET gets ${code}`, async () => {
      const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 1, queueingStatusCode: code })
      expect((await room.visit()).outcome).toBe('admitted')
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const visit = await room.visit(undefined, { method })
        expect(visit.status).toBe(expected)
        expect(visit.response.headers.get('x-origin')).toBe(null)
        expect(Number(visit.response.headers.get('retry-after'))).toBeGreaterThan(0)
        const json = await room.visit(undefined, { method, headers: { accept: 'application/json' } })
        expect(json.response.headers.get('content-type')).toContain('application/json')
        expect(typeof JSON.parse(json.body).waitingRoom.waitTime).toBe('number')
      }
      expect((await room.visit()).status).toBe(code)
      expect((await room.visit(undefined, { method: 'HEAD' })).status).toBe(code)
    })
  }

  it('OPTIONS preflights can be let through with bypass.methods', async () => {
    const room = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 1, bypass: { methods: ['OPTIONS'] } })
    await room.visit()
    expect((await room.visit(undefined, { method: 'OPTIONS' })).response.headers.get('x-origin')).toBe('bypass')
    expect((await room.visit(undefined, { method: 'POST' })).status).toBe(503)
  })
})
