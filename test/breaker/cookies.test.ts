/** #14.7: a bad cookie makes a new user, never a 500; options errors name the field. */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { worker, memoryCoordinator, waitingRoom, START, SECRET } from './harness.ts'

describe('bad cookies', () => {
  it('fast-check: arbitrary cookie headers never 500 and make a new user', async () => {
    const clock = { now: START + 1000 }
    const w = worker(memoryCoordinator(), clock, { totalActiveUsers: 1000 })
    const good = (await w.request()).cookie!
    const parts = good.split('.')
    const mutate = fc.oneof(
      fc.string({ maxLength: 2000 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.array(fc.oneof(fc.constant(''), fc.base64String({ maxLength: 80 }), fc.constantFrom(...parts)), { minLength: 1, maxLength: 7 }).map((a) => a.join('.')),
      fc.tuple(fc.nat(good.length - 1), fc.integer({ min: 33, max: 126 })).map(([i, ch]) => good.slice(0, i) + String.fromCharCode(ch) + good.slice(i + 1)),
      fc.constantFrom(good + '=', good + ';', '"' + good + '"', good.toUpperCase(), good + '.', '.'.repeat(4), 'e30..AAAAAAAAAAAAAAAA.AA.AAAAAAAAAAAAAAAAAAAAAA', '%00', '\u2028'),
    )
    await fc.assert(
      fc.asyncProperty(mutate, fc.constantFrom('plain', 'dup', 'spaces', 'other-first'), async (value, shape) => {
        const header = shape === 'dup' ? `__wroom=${value}; __wroom=${good}` : shape === 'spaces' ? `  __wroom =  ${value}  ` : shape === 'other-first' ? `x__wroom=${good}; __wroom=${value}` : `__wroom=${value}`
        let res: Response
        try {
          res = await w.app.request('/', { headers: { cookie: header } })
        } catch (e) {
          if (/Headers|header|ByteString|invalid/i.test(String(e))) return // not a valid header value at all
          throw e
        }
        expect(res.status, JSON.stringify(header).slice(0, 200)).toBeLessThan(500)
        await res.text()
      }),
      { numRuns: 1500, seed: 7 },
    )
  })

  it('a ticket sealed for another room id (same secret) is a new user', async () => {
    const clock = { now: START + 1000 }
    const a = worker(memoryCoordinator(), clock, { roomId: 'a' })
    const b = worker(memoryCoordinator(), clock, { roomId: 'b', totalActiveUsers: 1 })
    await b.request()
    const fromA = (await a.request()).cookie!
    const r = await b.request(fromA)
    expect(r.reason).toBe(null)
  })
})

describe('options errors name the field', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['totalActiveUsers NaN', { totalActiveUsers: Number.NaN }, 'totalActiveUsers'],
    ['totalActiveUsers string', { totalActiveUsers: '10' }, 'totalActiveUsers'],
    ['newUsersPerMinute 0', { newUsersPerMinute: 0 }, 'newUsersPerMinute'],
    ['sessionDurationMinutes 31', { sessionDurationMinutes: 31 }, 'sessionDurationMinutes'],
    ['refreshIntervalSeconds 1', { refreshIntervalSeconds: 1 }, 'refreshIntervalSeconds'],
    ['queueingStatusCode 201', { queueingStatusCode: 201 }, 'queueingStatusCode'],
    ['queueingMethod', { queueingMethod: 'lifo' }, 'queueingMethod'],
    ['typo key', { totalActiveUser: 5 }, 'totalActiveUser'],
    ['cookie.name', { cookie: { name: 'a b' } }, 'cookie.name'],
    ['cookie typo', { cookie: { samesite: 'lax' } }, 'samesite'],
    ['secret short', { secret: 'short' }, 'secret'],
    ['secret array item', { secret: [SECRET, 'short'] }, 'secret.1'],
    ['paths relative', { paths: ['shop'] }, 'paths'],
    ['paths with ?', { paths: ['/shop?x'] }, 'paths[0]'],
    ['paths with %2F', { paths: ['/a%2Fb'] }, 'paths'],
    ['bypass.paths ..', { bypass: { paths: ['/static/../shop'] } }, 'bypass.paths'],
    ['bypass.methods', { bypass: { methods: ['GET POST'] } }, 'bypass.methods'],
    ['hosts empty', { hosts: [] }, 'hosts'],
    ['events bad time', { events: [{ eventStartTime: 'tomorrow', eventEndTime: 5 }] }, 'events'],
    ['events end before start', { events: [{ eventStartTime: 10_000, eventEndTime: 5_000 }] }, 'events.0.eventEndTime'],
    ['location not fn', { location: 'eu' }, 'location'],
    ['coordinator object', { coordinator: {} }, 'coordinator'],
    ['failMode', { failMode: 'half' }, 'failMode'],
    ['defaultTemplateLanguage', { defaultTemplateLanguage: 'xx' }, 'defaultTemplateLanguage'],
    ['template unbalanced', { template: '<p>{{#inWaitingRoom}}queued</p>' }, 'template'],
    ['template unclosed tag', { template: '<p>{{waitTime</p>' }, 'template'],
    ['event template unbalanced', { events: [{ eventStartTime: 1, eventEndTime: 2, template: '{{#x}}' }] }, 'events.0.template'],
    ['roomId', { roomId: 'a b' }, 'roomId'],
    ['sameSite none + never', { cookie: { sameSite: 'none', secure: 'never' } }, 'cookie.sameSite'],
    ['coordinatorTimeoutMs 0', { coordinatorTimeoutMs: 0 }, 'coordinatorTimeoutMs'],
    ['options not an object', 42 as never, '(options)'],
  ]
  for (const [name, options, field] of cases) {
    it(name, () => {
      let error: unknown
      try {
        waitingRoom(options as never)
      } catch (e) {
        error = e
      }
      expect(error, `${name}: no error at build time`).toBeDefined()
      expect(String((error as Error).message), String(error)).toContain(field)
    })
  }

  it('an unbalanced template is refused when the room is built', async () => {
    let room
    try { room = waitingRoom({ secret: SECRET, queueAll: true, template: '<p>{{#inWaitingRoom}}queued</p>' }) } catch { return }
    const app = new Hono().use('*', room).get('*', (c) => c.text('origin'))
    const res = await app.request('/')
    console.log('unbalanced template accepted at build time; queued user gets', res.status)
    expect(res.status).toBeLessThan(500)
  })

  it('admin PATCH /settings with an unbalanced template: refused (400) rather than stored and 500 for every queued user', async () => {
    const clock = { now: START + 1000 }
    const w = worker(memoryCoordinator(), clock, { queueAll: true })
    const res = await w.app.request('/_admin/settings', { method: 'PATCH', headers: { authorization: 'Bearer admin-token-0123456789abcdefghijkl', 'content-type': 'application/json' }, body: JSON.stringify({ template: '<p>{{#inWaitingRoom}}</p>' }) })
    const queued = await w.request()
    console.log('admin PATCH bad template ->', res.status, '; then a queued user gets', queued.status)
    expect(queued.status).toBeLessThan(500)
  })
})
