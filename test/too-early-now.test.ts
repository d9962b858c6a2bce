/**
 * A queued user's too-early check-in is answered in one synchronous step (src/room/pipeline/too-early.ts) when
 * nothing on the way would wait: the same answer — status, every header, the page's bytes — as the whole way
 * through the session and decide stages gives at the same moment, over generated rooms and check-in times.
 */
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { roomHarness } from './support/room-harness.ts'

const fast = vi.hoisted(() => ({ on: true, answered: 0 }))
vi.mock('../src/room/pipeline/too-early.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/room/pipeline/too-early.ts')>()
  return {
    ...real,
    tooEarlyNow: (...args: Parameters<typeof real.tooEarlyNow>) => {
      if (!fast.on) return undefined // the whole way: readTicket, decide, the middleware's queue answer
      const answer = real.tooEarlyNow(...args)
      if (answer !== undefined) fast.answered++
      return answer
    },
  }
})

const headersOf = (response: Response): [string, string][] => [...response.headers]

describe('a too-early check-in without the awaits', () => {
  it('answers exactly as the whole pipeline does, and takes the short way only for a remembered too-early ticket', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          refreshIntervalSeconds: fc.integer({ min: 5, max: 300 }),
          queueingMethod: fc.constantFrom('fifo' as const, 'random' as const),
          revoke: fc.boolean(),
          early: fc.double({ min: 0, max: 0.999, noNaN: true }),
          accept: fc.constantFrom('text/html', 'application/json', '*/*'),
          language: fc.constantFrom('en', 'de-DE,de;q=0.9', 'fr', 'ja'),
          method: fc.constantFrom('GET', 'POST'),
        }),
        async ({ refreshIntervalSeconds, queueingMethod, revoke, early, accept, language, method }) => {
          const h = roomHarness({
            totalActiveUsers: 1, newUsersPerMinute: 1, refreshIntervalSeconds, queueingMethod, jsonResponseEnabled: true,
            enabledOriginCommands: revoke ? ['revoke'] : [],
          })
          expect((await h.visit()).outcome).toBe('admitted') // the one place
          const queued = await h.visit()
          expect(queued.outcome).toBe('queued')
          const refresh = Number(queued.response.headers.get('refresh'))
          h.advance(Math.floor(early * (refresh * 1000 - 1000)))
          const init = { method, headers: { accept, 'accept-language': language } }
          fast.on = false
          fast.answered = 0
          const whole = await h.visit(queued.cookie, init)
          fast.on = true
          const short = await h.visit(queued.cookie, init)
          expect(fast.answered).toBe(1)
          expect(short.status).toBe(whole.status)
          expect(headersOf(short.response)).toEqual(headersOf(whole.response))
          expect(short.body).toBe(whole.body)
          expect(short.response.headers.get('set-cookie')).toBeNull() // nothing sealed, nothing counted
        },
      ),
      { numRuns: 40 },
    )
  })

  it('leaves every other request the whole way: a new user, a check-in that counts, a cookie never opened', async () => {
    const h = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 1, refreshIntervalSeconds: 20 })
    fast.answered = 0
    await h.visit()
    const queued = await h.visit()
    expect(fast.answered).toBe(0)
    const refresh = Number(queued.response.headers.get('refresh'))
    const other = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 1, refreshIntervalSeconds: 20 })
    await other.visit(queued.cookie) // this worker never opened it: the whole way opens it
    expect(fast.answered).toBe(0)
    h.advance(refresh * 1000)
    const counted = await h.visit(queued.cookie) // due: counted, the whole way
    expect(counted.outcome).toBe('queued')
    expect(fast.answered).toBe(0)
    await h.visit(counted.cookie) // a fresh cookie: opened the whole way (too early), then remembered
    expect(fast.answered).toBe(0)
    await h.visit(counted.cookie)
    expect(fast.answered).toBe(1)
  })
})
