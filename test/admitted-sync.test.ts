/**
 * Issue 16: an admitted user with a remembered, live ticket reaches the origin with no await in the room
 * (session.ts `sessionNow`): the handler has run by the time the middleware's call returns. Everything that
 * has to wait still does, on the whole path: a renewal once a minute, a revoked ticket, a stale key's reseal.
 * Generated settings (revocation on/off, renewal on/off, covered paths, session lengths, moments in the minute).
 * Also: the epoch judgement's shortcut and the remembered coverage answers agree with a fresh computation.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { epochTag, sessionEpoch, splitTag, EPOCH_CLOCK_MARGIN_MS } from '../src/coordination/session-epoch.ts'
import type { RoomEpoch } from '../src/coordination/state.ts'
import { pathCoverage } from '../src/room/coverage.ts'
import { waitingRoom, type WaitingRoomEnv, type WaitingRoomOptions } from '../src/index.ts'
import type { Ticket } from '../src/ticket/ticket.ts'

const START = Date.UTC(2026, 10, 30, 12, 0, 0)
const OLD = 'admitted-sync-old-secret-0123456789abcdefgh'
const NEW = 'admitted-sync-new-secret-0123456789abcdefgh'

function server(clock: { now: number }, options: WaitingRoomOptions) {
  const app = new Hono<WaitingRoomEnv>()
  const seen = { reached: false, reason: '' }
  app.use('*', waitingRoom({ secret: OLD, clock: () => clock.now, totalActiveUsers: 100, newUsersPerMinute: 100, ...options }))
  app.all('*', (c) => {
    seen.reached = true
    seen.reason = c.get('waitingRoom').reason
    const command = c.req.header('x-command')
    if (command) c.header('Waiting-Room-Command', command)
    return c.text('origin')
  })
  const request = (cookie: string | undefined, path = '/shop/item', headers: Record<string, string> = {}) => {
    seen.reached = false
    const pending = Promise.resolve(app.request(path, { headers: cookie ? { ...headers, cookie: `__wroom=${cookie}` } : headers }))
    const reachedInCall = seen.reached
    return pending.then(async (res: Response) => {
      await res.arrayBuffer()
      const set = res.headers.getSetCookie().find((line: string) => line.startsWith('__wroom='))
      return { res, reachedInCall, reason: seen.reached ? seen.reason : undefined, set: set?.slice(8, set.indexOf(';')) }
    })
  }
  return { request }
}

const settings = fc.record({
  revoke: fc.boolean(),
  noRenewal: fc.boolean(),
  paths: fc.constantFrom<(string[] | undefined)[]>(undefined, ['/shop'], ['/shop', '/cart/*']),
  minutes: fc.integer({ min: 2, max: 30 }),
  offsetMs: fc.integer({ min: 0, max: 50_000 }), // the moment in the minute: room left for the repeats
})

describe('admitted users without an await', () => {
  it('generated settings: a remembered ticket reaches the origin within the call; renewal and revocation still happen', async () => {
    await fc.assert(
      fc.asyncProperty(settings, async ({ revoke, noRenewal, paths, minutes, offsetMs }) => {
        const clock = { now: START + offsetMs }
        const { request } = server(clock, {
          coordinator: memoryCoordinator(),
          sessionDurationMinutes: minutes,
          disableSessionRenewal: noRenewal,
          enabledOriginCommands: revoke ? ['revoke'] : [],
          ...(paths ? { paths } : {}),
        })
        const first = await request(undefined)
        expect(first.reason).toBe('slot')
        const cookie = first.set!
        // The first repeat opens the cookie (an await); from then on it is remembered.
        expect((await request(cookie)).reason).toBe('session')
        for (let i = 0; i < 3; i++) {
          clock.now += 1000
          const repeat = await request(cookie)
          expect(repeat).toMatchObject({ reachedInCall: true, reason: 'session', set: undefined })
        }
        if (paths) expect((await request(cookie, '/elsewhere')).reason).toBe('bypass') // not covered: never the session path
        if (revoke) {
          expect((await request(cookie, '/shop/item', { 'x-command': 'revoke' })).set).toBe('') // cleared
          const after = await request(cookie)
          expect(after.reason).not.toBe('session')
          return
        }
        clock.now += 60_000 // a new minute: the renewal (or, without renewal, the same ticket counted again)
        const next = await request(cookie) // may wait for the settings' reload after an idle minute, by design
        expect(next.reason).toBe('session')
        if (noRenewal) expect(next.set).toBeUndefined()
        else expect(next.set).toBeTruthy()
        const current = next.set || cookie
        await request(current) // a renewed cookie is opened once
        clock.now += 1000
        expect(await request(current)).toMatchObject({ reachedInCall: true, reason: 'session', set: undefined })
      }),
      { numRuns: 60, seed: 1616 },
    )
  })

  it('a remembered cookie of an older key is resealed on every request that carries it', async () => {
    const clock = { now: START + 5000 }
    const coordinator = memoryCoordinator()
    const old = server(clock, { coordinator })
    const rotated = server(clock, { coordinator, secret: [NEW, OLD] })
    const cookie = (await old.request(undefined)).set!
    for (let i = 0; i < 4; i++) {
      clock.now += 1000
      const repeat = await rotated.request(cookie)
      expect(repeat.reason).toBe('session')
      expect(repeat.set).toBeTruthy()
      expect(repeat.set).not.toBe(cookie)
    }
  })
})

/** sessionEpoch as it was before the shortcut (split the tag, compare, allocate): the reference. */
function reference(ticket: Pick<Ticket, 'epoch' | 'lastCheckInTime'>, epoch: RoomEpoch) {
  if (ticket.epoch !== undefined) {
    const sealed = splitTag(ticket.epoch)
    const other = sealed.epoch !== epochTag(epoch)
    if (!other && sealed.generation !== undefined) return { countedBefore: false, lost: false, generation: sealed.generation }
    if (!epoch.local) return { countedBefore: other, lost: other }
    return { countedBefore: other, lost: other && ticket.lastCheckInTime < epoch.startedAt + EPOCH_CLOCK_MARGIN_MS }
  }
  const countedBefore = ticket.lastCheckInTime < epoch.startedAt
  return { countedBefore, lost: countedBefore && ticket.lastCheckInTime < epoch.startedAt - EPOCH_CLOCK_MARGIN_MS }
}

describe('the shortcuts agree with a fresh computation', () => {
  it('sessionEpoch: generated epochs and tags (own, own with generations, prefixes, others), interleaved', () => {
    const epochs: RoomEpoch[] = ['state-a', 'state-b', 'x'].flatMap((id) => [
      { id, startedAt: START },
      { id, startedAt: START, local: true },
    ])
    const tag = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(...epochs).chain((e) => fc.constantFrom(epochTag(e), `${epochTag(e)}.`, `${epochTag(e)}x`, `${epochTag(e)}.zz!`)),
      fc.tuple(fc.constantFrom(...epochs), fc.integer({ min: 0, max: 40 })).map(([e, g]) => `${epochTag(e)}.${g.toString(36)}`),
      fc.string({ maxLength: 12 }),
    )
    const asked = fc.record({ epoch: fc.constantFrom(...epochs), tag, at: fc.integer({ min: START - 20_000, max: START + 20_000 }) })
    fc.assert(
      fc.property(fc.array(asked, { minLength: 1, maxLength: 30 }), (sequence) => {
        for (const { epoch, tag, at } of sequence) {
          const ticket = { epoch: tag, lastCheckInTime: at } as Ticket
          expect({ ...sessionEpoch(ticket, epoch) }).toEqual(reference(ticket, epoch))
        }
      }),
      { numRuns: 300, seed: 16 },
    )
  })

  it('pathCoverage: remembered answers equal a fresh rule, through more distinct paths than it keeps', () => {
    const segment = fc.constantFrom('shop', 'SHOP', 'cart', 'x', 'static', '%2e', '..', '', 'a;b', '%41', 'é', 'item')
    const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`)
    const configs: [string[] | undefined, string[] | undefined][] = [[['/shop'], undefined], [['/shop', '/cart/*'], ['/shop/static']], [undefined, ['/static']]]
    for (const [paths, bypass] of configs) {
      const remembered = pathCoverage(paths, bypass)
      const many = Array.from({ length: 2500 }, (_, i) => `/p${i}/shop`)
      // A fresh rule has remembered nothing: its first answer for a path is computed.
      const agrees = (p: string) => expect(remembered(p, p)).toBe(pathCoverage(paths, bypass)(p, p))
      fc.assert(
        fc.property(fc.array(path, { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 2500 }), (asked, churn) => {
          asked.forEach(agrees)
          for (const p of many.slice(0, churn)) remembered(p, p) // turns the generations over
          asked.forEach(agrees)
        }),
        { numRuns: 30, seed: 1614 },
      )
    }
  })
})
