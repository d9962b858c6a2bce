/**
 * Tickets without the challenge claim (breaker `bots`, issue 17). A queued ticket minted before the challenge
 * was enabled (or by an `onFail: 'log'` room with the same secret) must answer before it is admitted or
 * counted under `onFail: 'infinite-queue'`, whatever `when` says — and, once it answers, it keeps its bucket, so
 * an honest user already in line keeps their place. Also: the `log` throttle is per room.
 */
import { Hono } from 'hono'
import { describe, expect, it, vi } from 'vitest'
import { CHALLENGE_HEADER, proofOfWork, solveChallenge, waitingRoom, type WaitingRoomEnv, type WaitingRoomOptions } from '../src/index.ts'
import { memoryCoordinator, MINUTE, SECRET, settle, START, worker } from './breaker/harness.ts'
import type { Coordinator } from '../src/index.ts'

const J = { accept: 'application/json' }
const rid = (p: string) => `${p}-${Math.random().toString(36).slice(2, 8)}`

/** A worker whose responses say the decision's bucket (`x-bucket`) and reason (`x-reason`), queued or not. */
function bucketWorker(coordinator: Coordinator, clock: { now: number }, options: WaitingRoomOptions) {
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', async (c, next) => {
    await next()
    const d = c.get('waitingRoom')
    c.header('x-bucket', String(d?.bucketId))
    c.header('x-reason', String(d?.reason))
  })
  app.use('*', waitingRoom({ secret: SECRET, clock: () => clock.now, coordinator, newUsersPerMinute: 100, jsonResponseEnabled: true, ...options }))
  app.all('*', (c) => c.text('origin'))
  return async (cookie?: string, headers: Record<string, string> = {}) => {
    const res = await app.request('/', { headers: { ...headers, ...(cookie && { cookie: `__wroom=${cookie}` }) } })
    const body = await res.text()
    await settle()
    const set = res.headers.get('set-cookie')
    const fresh = set?.startsWith('__wroom=') ? set.slice(8, set.indexOf(';')) : undefined
    return { body, admitted: body === 'origin', bucket: res.headers.get('x-bucket'), reason: res.headers.get('x-reason'), setCookie: fresh, cookie: fresh || cookie }
  }
}

describe('queued tickets without the challenge claim', () => {
  for (const when of ['queueing', 'always'] as const) {
    for (const capacity of [1, 3]) {
      it(`when ${when}, ${capacity} place(s): pre-challenge queued tickets are never admitted or given a ticket without answering`, async () => {
        const clock = { now: START }
        const co = memoryCoordinator()
        const roomId = rid('pre')
        // Sessions (and queued tickets) live 10 minutes: every ticket below stays live for the whole test.
        const base = { roomId, totalActiveUsers: capacity, sessionDurationMinutes: 10, refreshIntervalSeconds: 20 }
        const before = worker(co, clock, base)
        for (let i = 0; i < capacity; i++) expect((await before.request()).admitted).toBe(true)
        const bots: string[] = []
        for (let i = 0; i < 5; i++) bots.push((await before.request()).cookie!)
        // The challenge goes on, and the room grows: free places a queued ticket would take at its next check-in.
        const after = worker(co, clock, { ...base, totalActiveUsers: capacity + 10, challenge: { provider: proofOfWork({ difficulty: 4 }), when } })
        for (let t = 0; t < 12; t++) {
          clock.now += 30_000
          for (const [i, b] of bots.entries()) {
            const r = await after.request(b)
            expect(r.admitted, `bot ${i} at +${t * 30}s`).toBe(false)
            expect(r.cookie, 'no new ticket: its check-in counts nowhere').toBe(b)
          }
        }
        // Counted nowhere: with its last counted check-in long past, the room sees nobody waiting.
        expect((await after.status()).estimatedQueuedUsers ?? 0).toBe(0)
      })
    }
  }

  it('a pre-challenge queued user who answers keeps their bucket, and goes in before later arrivals', async () => {
    const clock = { now: START }
    const co = memoryCoordinator()
    const roomId = rid('keep')
    const base = { roomId, totalActiveUsers: 1, sessionDurationMinutes: 3, refreshIntervalSeconds: 20 }
    const before = bucketWorker(co, clock, base)
    expect((await before()).admitted).toBe(true)
    const early = await before()
    expect(early.admitted).toBe(false)
    const firstBucket = early.bucket
    const after = bucketWorker(co, clock, { ...base, challenge: { provider: proofOfWork({ difficulty: 4 }), when: 'queueing' } })
    clock.now += MINUTE + 5_000 // the next minute: a later arrival's bucket is a later one
    // Held: the page carries a challenge, no ticket is sealed.
    const held = await after(early.cookie, J)
    expect(held.reason).toBe('challenge')
    expect(held.setCookie).toBeUndefined()
    // A later arrival answers and queues behind.
    const late = await after(undefined, { ...J, [CHALLENGE_HEADER]: solveChallenge(JSON.parse((await after(undefined, J)).body).waitingRoom.challenge.challenge) })
    expect(late.admitted).toBe(false)
    // The early user answers: same bucket as before, the claim now sealed in.
    const answered = await after(early.cookie, { ...J, [CHALLENGE_HEADER]: solveChallenge(JSON.parse(held.body).waitingRoom.challenge.challenge) })
    expect(answered.admitted).toBe(false)
    expect(answered.setCookie).toBeDefined()
    expect(answered.bucket).toBe(firstBucket)
    expect(Number(answered.bucket)).toBeLessThan(Number(late.bucket))
    // A place frees (the holder's session ends): the early user takes it, without answering again.
    let admittedEarly = false
    for (let t = 0; t < 12 && !admittedEarly; t++) {
      clock.now += 30_000
      admittedEarly = (await after(answered.cookie)).admitted
      if (!admittedEarly) expect((await after(late.cookie)).admitted, 'the later arrival never goes first').toBe(false)
    }
    expect(admittedEarly).toBe(true)
  })

  it('an answer sent during a too-early check-in still seals the claim', async () => {
    const clock = { now: START }
    const co = memoryCoordinator()
    const roomId = rid('early')
    const base = { roomId, totalActiveUsers: 1, sessionDurationMinutes: 1, refreshIntervalSeconds: 60 }
    const before = bucketWorker(co, clock, base)
    await before()
    const queued = await before()
    const after = bucketWorker(co, clock, { ...base, challenge: { provider: proofOfWork({ difficulty: 4 }), when: 'queueing' } })
    clock.now += 5_000 // long before the ticket's next check-in is due
    const held = await after(queued.cookie, J)
    const answered = await after(queued.cookie, { ...J, [CHALLENGE_HEADER]: solveChallenge(JSON.parse(held.body).waitingRoom.challenge.challenge) })
    expect(answered.reason).toBe('too-early')
    expect(answered.setCookie).toBeDefined()
    clock.now += 60_000
    const next = await after(answered.cookie, J)
    expect(next.reason).not.toBe('challenge')
    expect(next.bucket).toBe(queued.bucket)
  })
})

describe("onFail 'log'", () => {
  it('each room has its own log throttle', async () => {
    const lines: string[] = []
    const spy = vi.spyOn(console, 'warn').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')))
    try {
      const clock = { now: START }
      const opts = (p: string) => ({ roomId: rid(p), totalActiveUsers: 1, challenge: { provider: proofOfWork({ difficulty: 4 }), onFail: 'log' as const } })
      const a = worker(memoryCoordinator(), clock, opts('log-a'))
      const b = worker(memoryCoordinator(), clock, opts('log-b'))
      await a.request(undefined, { headers: { [CHALLENGE_HEADER]: 'junk' } })
      clock.now += 1000
      for (let i = 0; i < 3; i++) await b.request(undefined, { headers: { [CHALLENGE_HEADER]: 'junk' } })
      clock.now += 11_000
      await a.request(undefined, { headers: { [CHALLENGE_HEADER]: 'junk' } })
      const mine = lines.filter((l) => l.includes('challenge answer'))
      expect(mine.filter((l) => l.includes('room log-b'))).toEqual([expect.stringContaining(': 1 challenge answer(s) refused')])
      expect(mine.filter((l) => l.includes('room log-a')).map((l) => l.match(/: (\d+) challenge/)![1])).toEqual(['1', '1'])
    } finally {
      spy.mockRestore()
    }
  })
})

describe('a solved ticket is a bearer cookie (README "Bots")', () => {
  it('copies of one solved ticket share one place: admitted together, counted as one active user', async () => {
    const clock = { now: START }
    const co = memoryCoordinator()
    const opts = { roomId: rid('clone'), jsonResponseEnabled: true, totalActiveUsers: 1, sessionDurationMinutes: 1, refreshIntervalSeconds: 20, challenge: { provider: proofOfWork({ difficulty: 4 }), when: 'always' as const } }
    const w1 = worker(co, clock, opts)
    const w2 = worker(co, clock, opts)
    const solve = async () => solveChallenge(JSON.parse((await w1.request(undefined, { headers: J })).body).waitingRoom.challenge.challenge)
    expect((await w1.request(undefined, { headers: { [CHALLENGE_HEADER]: await solve() } })).admitted).toBe(true)
    const queued = await w1.request(undefined, { headers: { [CHALLENGE_HEADER]: await solve() } })
    expect(queued.admitted).toBe(false)
    let admitted = 0
    let cookie = queued.cookie!
    for (let step = 0; step < 12 && admitted === 0; step++) {
      clock.now += 20_000
      const copies = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? w1 : w2).request(cookie, { headers: J, noSettle: true })))
      admitted = copies.filter((r) => r.admitted).length
      for (const r of copies) expect(r.body, 'a copy is never asked again').not.toContain('"challenge":{')
      cookie = copies.find((r) => r.res.headers.get('set-cookie'))?.cookie ?? cookie
    }
    expect(admitted).toBeGreaterThan(0)
    await settle()
    clock.now += 10_000
    const status = await w1.status()
    expect(status.estimatedTotalActiveUsers, JSON.stringify(status)).toBe(1)
  })
})
