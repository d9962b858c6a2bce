/**
 * breaklimits (a): the refusals a room remembers per minute (src/room/pipeline/refusals.ts) must never change a
 * decision. Differential: the same generated history (new users, queued users checking in, revocations, admin
 * raising/lowering limits mid-minute, location shares changing, clock steps across minutes) run twice on fresh
 * memory coordinators, once with the memory switched off; every answer must be the same.
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { losableRedis, losableSqlite } from '../../support/losable.ts'
import { Refusals } from '../../../src/room/pipeline/refusals.ts'
import { losable, START, worker } from '../harness.ts'


const ADMIN = { authorization: 'Bearer admin-token-0123456789abcdefghijkl', 'content-type': 'application/json' }
const redis = losableRedis('breaklimits-diff')
afterAll(() => redis.close())
const redisLosable = async () => (await redis.connect(), redis.make())
const original = Refusals.prototype.refuses
let off = false
Refusals.prototype.refuses = function (...args) {
  return off ? false : original.apply(this, args)
}

type Ev =
  | { k: 'new'; loc: number; w: number }
  | { k: 'old'; user: number; w: number }
  | { k: 'revoke'; user: number; w: number }
  | { k: 'limits'; total: number; perMinute: number }
  | { k: 'tick'; ms: number }
  | { k: 'lose' }

const ev: fc.Arbitrary<Ev> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ k: fc.constant('new' as const), loc: fc.integer({ min: 0, max: 2 }), w: fc.integer({ min: 0, max: 1 }) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('old' as const), user: fc.nat(), w: fc.integer({ min: 0, max: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('revoke' as const), user: fc.nat(), w: fc.integer({ min: 0, max: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('limits' as const), total: fc.integer({ min: 1, max: 6 }), perMinute: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 30_000 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('lose' as const) }) },
)

async function run(events: Ev[], method: 'fifo' | 'random', disable: boolean, failMode: 'open' | 'closed', backendKind: 'sqlite' | 'memory' | 'redis'): Promise<string[]> {
  off = disable
  const clock = { now: START + 1000 }
  let seed = 1
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647)
  const backend = backendKind === 'redis' ? await redisLosable() : backendKind === 'sqlite' ? losableSqlite() : losable()
  const coordinator = backend.coordinator
  const opts = {
    totalActiveUsers: 3, newUsersPerMinute: 2, sessionDurationMinutes: 1, syncIntervalMs: 0, queueingMethod: method, failMode,
    enabledOriginCommands: ['revoke' as const], random, location: (c: any) => c.req.header('x-loc') ?? 'l0',
  }
  const fleet = [worker(coordinator, clock, opts), worker(coordinator, clock, opts)]
  const users: { cookie: string | undefined; loc: string }[] = []
  const out: string[] = []
  for (const e of events) {
    if (e.k === 'tick') clock.now += e.ms
    else if (e.k === 'lose') await backend.lose()
    else if (e.k === 'limits') {
      const res = await fleet[0]!.app.request('/_admin/settings', { method: 'PATCH', headers: ADMIN, body: JSON.stringify({ totalActiveUsers: e.total, newUsersPerMinute: e.perMinute }) })
      out.push(`limits ${res.status}`)
    } else if (e.k === 'new') {
      const loc = `l${e.loc}`
      const r = await fleet[e.w]!.request(undefined, { headers: { 'x-loc': loc } })
      users.push({ cookie: r.cookie, loc })
      out.push(`new ${r.admitted}`)
    } else if (users.length > 0) {
      const u = users[e.user % users.length]!
      const headers: Record<string, string> = { 'x-loc': u.loc }
      if (e.k === 'revoke') headers['x-command'] = 'revoke'
      const r = await fleet[e.w]!.request(u.cookie, { headers })
      u.cookie = r.cookie
      out.push(`${e.k} ${r.admitted}`)
    }
  }
  return out
}

describe('refusals never change a decision', () => {
  for (const [method, failMode, kind] of [['fifo', 'closed', 'sqlite'], ['random', 'closed', 'sqlite'], ['fifo', 'open', 'sqlite']] as const) {
    // Redis left out: its syncs land asynchronously, so two runs differ with or without the memory (seen at a run's 2nd request, before any refusal)
    it(`${method}, failMode ${failMode}, ${kind}: same answers with and without the remembered refusals`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(ev, { minLength: 5, maxLength: 60 }), async (events) => {
          const withMemory = await run(events, method, false, failMode, kind)
          const without = await run(events, method, true, failMode, kind)
          expect(withMemory).toEqual(without)
        }),
        { numRuns: 100, seed: 4242 },
      )
    }, 60_000)
  }
})
