/** #14.5: requests other than GET/HEAD from users without a session never read as success (except a configured 202). */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { worker, memoryCoordinator, losable, START, type Coordinator } from './harness.ts'

const broken: Coordinator = { name: 'broken', increment: async () => { throw new Error('down') }, sync: async () => { throw new Error('down') } }

type Scenario = 'queue-all' | 'no-slot' | 'too-early' | 'recovering' | 'reject' | 'fail-closed' | 'prequeue' | 'random' | 'event-code'

async function setUp(scenario: Scenario, code: 200 | 202 | 429) {
  const clock = { now: START + 1000 }
  const { coordinator, lose } = losable()
  const base = { totalActiveUsers: 1, newUsersPerMinute: 100, queueingStatusCode: code, jsonResponseEnabled: false }
  const opts: any = { ...base }
  if (scenario === 'queue-all') opts.queueAll = true
  if (scenario === 'reject') opts.queueingMethod = 'reject'
  if (scenario === 'random') opts.queueingMethod = 'random'
  if (scenario === 'prequeue') opts.events = [{ prequeueStartTime: START - 60_000, eventStartTime: START + 3_600_000, eventEndTime: START + 7_200_000 }]
  if (scenario === 'event-code') opts.events = [{ eventStartTime: START - 60_000, eventEndTime: START + 7_200_000, queueingStatusCode: 200, totalActiveUsers: 1, newUsersPerMinute: 100 }]
  const w = worker(scenario === 'fail-closed' ? broken : coordinator, clock, opts)
  let cookie: string | undefined
  if (!['queue-all', 'reject', 'fail-closed', 'prequeue'].includes(scenario)) await w.request() // fills the room
  if (scenario === 'recovering') { lose(); clock.now += 6000; await w.request(); clock.now += 1000 }
  if (scenario === 'too-early') cookie = (await w.request()).cookie // queued; its next check-in is too early
  return { w, cookie, effectiveCode: scenario === 'event-code' ? 200 : code }
}

describe('non-GET while queued', () => {
  it('fast-check over scenarios × codes × methods × Accept', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Scenario>('queue-all', 'no-slot', 'too-early', 'recovering', 'reject', 'fail-closed', 'prequeue', 'random', 'event-code'),
        fc.constantFrom<200 | 202 | 429>(200, 202, 429),
        fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'patch', 'PROPFIND', 'QUERY', 'post', 'delete'),
        fc.constantFrom('', 'application/json', 'text/html, application/json;q=0.9', 'application/json; charset=utf-8', '*/*'),
        fc.boolean(),
        async (scenario, code, method, accept, withBody) => {
          const { w, cookie, effectiveCode } = await setUp(scenario, code)
          const headers: Record<string, string> = accept ? { accept } : {}
          const r = await w.request(cookie, { method, headers })
          const expected = effectiveCode === 200 ? 503 : effectiveCode
          const ctx = `${scenario} code=${code} ${method} accept=${accept} -> ${r.status} origin=${r.reason}`
          expect(r.reason, ctx).toBe(null)
          expect(r.status, ctx).toBe(expected)
          expect(Number(r.res.headers.get('retry-after')), ctx).toBeGreaterThan(0)
          if (accept.includes('application/json')) expect(r.res.headers.get('content-type'), ctx).toContain('application/json')
        },
      ),
      { numRuns: 300, seed: 5 },
    )
  })

  it('Accept: Application/JSON (media types are case-insensitive) gets JSON on a queued POST', async () => {
    const { w } = await setUp('queue-all', 200)
    const r = await w.request(undefined, { method: 'POST', headers: { accept: 'Application/JSON' } })
    console.log('POST with Accept: Application/JSON ->', r.status, r.res.headers.get('content-type'))
    expect(r.res.headers.get('content-type')).toContain('application/json')
  })
})
