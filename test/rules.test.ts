/**
 * Runtime bypass rules: the language (validated by zod), its evaluation against an independent reference
 * evaluator over generated rule trees and requests (fast-check, several seeds), and the whole path — rules
 * posted to the admin API, stored in the settings storage, seen by another worker within one refresh, applied
 * by the middleware (IP from the platform, country from `CF-IPCountry`), counted per rule in `/metrics`.
 */
import fc from 'fast-check'
import { createStorage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { compileCondition, type RequestFacts, type Truth } from '../src/rules/evaluate.ts'
import { conditionSchema, ruleSchema, type Condition, type StringTest } from '../src/rules/language.ts'
import { parseAddress } from '../src/proxy/ip.ts'
import { adminWorker } from './support/admin-worker.ts'
import { START } from './support/room-harness.ts'

// ---- the reference: plain code, written apart from src/rules ----

/** An address as a 128-bit BigInt, IPv4 as ::ffff:a.b.c.d. Handles the forms the generators produce. */
function refAddress(text: string): bigint {
  if (!text.includes(':')) return (0xffffn << 32n) | text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(part), 0n)
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined]
  const h = head ? head.split(':') : []
  const t = tail ? tail.split(':') : []
  const words = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t]
  return words.reduce((acc, word) => (acc << 16n) | BigInt(parseInt(word, 16)), 0n)
}
function refInRange(address: bigint, range: string): boolean {
  const [base, bitsText] = range.split('/')
  const v4 = !base!.includes(':')
  const bits = BigInt((bitsText === undefined ? (v4 ? 32 : 128) : Number(bitsText)) + (v4 ? 96 : 0))
  const shift = 128n - bits
  return address >> shift === refAddress(base!) >> shift
}
function refString(test: StringTest, value: string | undefined): boolean {
  if (value === undefined) return false
  const f = (s: string) => (test.ignoreCase ? s.toLowerCase() : s)
  if (test.equals !== undefined) return f(value) === f(test.equals)
  if (test.startsWith !== undefined) return f(value).startsWith(f(test.startsWith))
  if (test.endsWith !== undefined) return f(value).endsWith(f(test.endsWith))
  if (test.contains !== undefined) return f(value).includes(f(test.contains))
  return true
}
interface RefRequest {
  ip?: string | undefined
  country?: string | undefined
  method: string
  path: string | undefined
  query: Record<string, string>
  headers: Record<string, string>
}
/** Kleene's three-valued logic: 'u' for unknown. */
function reference(c: Condition, r: RefRequest): boolean | 'u' {
  if ('and' in c) {
    const values = c.and.map((x) => reference(x, r))
    return values.includes(false) ? false : values.includes('u') ? 'u' : true
  }
  if ('or' in c) {
    const values = c.or.map((x) => reference(x, r))
    return values.includes(true) ? true : values.includes('u') ? 'u' : false
  }
  if ('not' in c) {
    const value = reference(c.not, r)
    return value === 'u' ? 'u' : !value
  }
  if ('ip' in c) return r.ip === undefined ? 'u' : c.ip.some((range) => refInRange(refAddress(r.ip!), range))
  if ('country' in c) return r.country === undefined ? 'u' : c.country.map((x) => x.toUpperCase()).includes(r.country)
  if ('method' in c) return c.method.some((m) => m.toUpperCase() === r.method || (r.method === 'HEAD' && m.toUpperCase() === 'GET'))
  if ('path' in c) return r.path === undefined ? 'u' : refString(c.path, r.path)
  if ('query' in c) return refString(c.query, r.query[c.query.name])
  if ('header' in c) return refString(c.header, r.headers[c.header.name.toLowerCase()])
  return refString(c.userAgent, r.headers['user-agent'])
}

// ---- generators ----

const ADDRESSES = ['10.0.0.1', '10.1.2.3', '192.168.1.10', '203.0.113.77', '2001:db8::1', '2001:db8:ffff::2', 'fd00::abcd', '::1']
const RANGES = ['10.0.0.0/8', '10.0.0.0/16', '192.168.1.10', '203.0.113.0/24', '0.0.0.0/0', '2001:db8::/32', '2001:db8::/48', 'fd00::/8', '::1', '::/0']
const WORDS = ['shop', 'Shop', 'api', 'beta', 'x']
const stringTestArb: fc.Arbitrary<StringTest> = fc.record(
  { op: fc.constantFrom('equals', 'startsWith', 'endsWith', 'contains', 'present'), value: fc.constantFrom('/shop', '/api', 'shop', 'Beta', 'bot', 'a'), ignoreCase: fc.boolean() },
).map(({ op, value, ignoreCase }) => (op === 'present' ? { ignoreCase } : { [op]: value, ignoreCase }))
const leaf: fc.Arbitrary<Condition> = fc.oneof(
  fc.uniqueArray(fc.constantFrom(...RANGES), { minLength: 1, maxLength: 3 }).map((ip) => ({ ip })),
  fc.uniqueArray(fc.constantFrom('US', 'de', 'FR', 'JP'), { minLength: 1, maxLength: 2 }).map((country) => ({ country })),
  fc.uniqueArray(fc.constantFrom('GET', 'post', 'HEAD', 'OPTIONS'), { minLength: 1, maxLength: 2 }).map((method) => ({ method })),
  stringTestArb.map((path) => ({ path })),
  fc.tuple(fc.constantFrom(...WORDS), stringTestArb).map(([name, test]) => ({ query: { name, ...test } })),
  fc.tuple(fc.constantFrom('X-Beta', 'x-api', 'Accept'), stringTestArb).map(([name, test]) => ({ header: { name, ...test } })),
  stringTestArb.map((userAgent) => ({ userAgent })),
)
const { tree } = fc.letrec<{ tree: Condition }>((self) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(self('tree'), { minLength: 1, maxLength: 3 }).map((and) => ({ and })),
    fc.array(self('tree'), { minLength: 1, maxLength: 3 }).map((or) => ({ or })),
    self('tree').map((not) => ({ not })),
  ),
}))
const requestArb: fc.Arbitrary<RefRequest> = fc.record({
  ip: fc.option(fc.constantFrom(...ADDRESSES), { nil: undefined }),
  country: fc.option(fc.constantFrom('US', 'DE', 'FR', 'BR'), { nil: undefined }),
  method: fc.constantFrom('GET', 'HEAD', 'POST', 'OPTIONS'),
  path: fc.option(fc.constantFrom('/shop', '/shop/cart', '/api/v1', '/SHOP', '/a', '/beta/shop'), { nil: undefined }),
  query: fc.dictionary(fc.constantFrom(...WORDS), fc.constantFrom('1', 'shop', 'Beta', '')),
  headers: fc.dictionary(fc.constantFrom('x-beta', 'x-api', 'accept', 'user-agent'), fc.constantFrom('bot', 'Mozilla', 'shop', 'beta-tester', 'A')),
})
const factsOf = (r: RefRequest): RequestFacts => ({
  ip: r.ip === undefined ? undefined : parseAddress(r.ip),
  country: r.country,
  method: r.method,
  path: r.path,
  query: (name) => r.query[name],
  header: (name) => r.headers[name],
})
const asRef = (t: Truth) => (t === 2 ? 'u' : t === 1)

describe('the rule language', () => {
  it.each([1, 19, 2026])('compiled conditions agree with the reference evaluator (seed %i)', (seed) => {
    fc.assert(
      fc.property(tree, requestArb, (condition, request) => {
        expect(conditionSchema.safeParse(condition).success).toBe(true)
        expect(asRef(compileCondition(condition)(factsOf(request)))).toBe(reference(condition, request))
      }),
      { numRuns: 600, seed },
    )
  })

  it('an unknown fact never lets `not` bypass: no address, no country, an ambiguous path', () => {
    const facts = factsOf({ method: 'GET', path: undefined, query: {}, headers: {} })
    for (const condition of [{ not: { ip: ['10.0.0.0/8'] } }, { not: { country: ['US'] } }, { not: { path: { startsWith: '/admin' } } }] as Condition[]) {
      expect(compileCondition(condition)(facts)).toBe(2)
    }
  })

  it.each([
    [{ id: 'a', when: { ip: ['10.0.0.0/33'] } }, 'when'],
    [{ id: 'a', when: { ip: ['10.0.0.1/8'] } }, 'when'],
    [{ id: 'a', when: { country: ['USA'] } }, 'when'],
    [{ id: 'a', when: { path: { equals: '/a', startsWith: '/b' } } }, 'when'],
    [{ id: 'a', when: { header: { name: 'bad name', equals: 'x' } } }, 'when'],
    [{ id: 'a', when: { and: [] } }, 'when'],
    [{ id: 'a', when: { regex: '.*' } }, 'when'],
    [{ id: 'a b', when: { method: ['GET'] } }, 'id'],
    [{ id: 'a', when: { method: ['GET'] }, extra: 1 }, ''],
  ])('refuses %j', (rule, path) => {
    const result = ruleSchema.safeParse(rule)
    expect(result.success).toBe(false)
    expect(result.error!.issues[0]!.path.join('.').startsWith(path)).toBe(true)
  })

  it('refuses trees nested deeper than 8', () => {
    let when: Condition = { method: ['GET'] }
    for (let i = 0; i < 8; i++) when = { not: when }
    expect(ruleSchema.safeParse({ id: 'deep', when }).success).toBe(false)
    expect(ruleSchema.safeParse({ id: 'ok', when: (when as { not: Condition }).not }).success).toBe(true)
  })
})

describe('rules at runtime (admin API → storage → every worker)', () => {
  const full = { totalActiveUsers: 1, newUsersPerMinute: 1 }

  it('POST /rules lets matching requests through on every worker within one refresh, counted per rule', async () => {
    const clock = { now: START }
    const storage = createStorage()
    const one = adminWorker(clock, { storage, ...full })
    const two = adminWorker(clock, { storage, ...full })
    await one.reasonFor('/') // fills the room
    await two.reasonFor('/') // the other worker has loaded its (empty) rules
    const office = { incoming: { socket: { remoteAddress: '::ffff:203.0.113.9' } } } // @hono/node-server's env
    expect(await one.reasonFor('/', {}, office)).toBe('queued')

    const posted = await one.call('POST', '/rules', { id: 'office', description: 'our office', when: { and: [{ ip: ['203.0.113.0/24', '2001:db8::/32'] }, { not: { path: { startsWith: '/checkout' } } }] } })
    expect(posted.status).toBe(201)
    expect(await one.reasonFor('/', {}, office)).toBe('bypass')
    expect(await one.reasonFor('/checkout', {}, office)).toBe('queued')
    expect(await one.reasonFor('/', {}, { incoming: { socket: { remoteAddress: '198.51.100.1' } } })).toBe('queued')
    expect(await one.reasonFor('/')).toBe('queued') // no address known: an ip test is unknown, never a bypass

    // The other worker still has its last load; within one refresh it reads the rule from storage.
    expect(await two.reasonFor('/', {}, office)).toBe('queued')
    clock.now += 5_000
    await two.reasonFor('/x', {}, office) // starts the background reload
    expect(await two.reasonFor('/', {}, office)).toBe('bypass')

    const listed = await one.call('GET', '/rules')
    expect(listed.json.rules).toEqual([expect.objectContaining({ id: 'office', description: 'our office', hits: 1 })])
    const metrics = await one.call('GET', '/metrics')
    expect(metrics.text).toContain('waiting_room_rule_hits_total{room="default",rule="office"} 1')

    expect((await one.call('POST', '/rules', { id: 'office', when: { method: ['GET'] } })).status).toBe(409)
    expect((await one.call('DELETE', '/rules/office')).status).toBe(200)
    expect((await one.call('DELETE', '/rules/office')).status).toBe(404)
    expect(await one.reasonFor('/', {}, office)).toBe('queued')
  })

  it('country from CF-IPCountry, user agent, query and method conditions; invalid bodies are 400 naming the field', async () => {
    const w = adminWorker({ now: START }, { storage: createStorage(), ...full })
    await w.reasonFor('/')
    await w.call('POST', '/rules', { id: 'monitor', when: { or: [{ and: [{ country: ['DE'] }, { userAgent: { contains: 'uptime', ignoreCase: true } }] }, { and: [{ method: ['GET'] }, { query: { name: 'preview', equals: 'staff' } }] }] } })
    expect(await w.reasonFor('/', { headers: { 'cf-ipcountry': 'DE', 'user-agent': 'UptimeBot/1.0' } })).toBe('bypass')
    expect(await w.reasonFor('/', { headers: { 'cf-ipcountry': 'US', 'user-agent': 'UptimeBot/1.0' } })).toBe('queued')
    expect(await w.reasonFor('/?preview=staff')).toBe('bypass')
    expect(await w.reasonFor('/?preview=staff', { method: 'POST' })).toBe('queued')
    const bad = await w.call('POST', '/rules', { id: 'x', when: { ip: ['300.0.0.0/8'] } })
    expect(bad.status).toBe(400)
    expect(bad.json.issues[0].path).toMatch(/^when/)
    expect((await w.call('POST', '/rules', 'not json', { 'content-type': 'text/plain' })).status).toBe(415)
  })

  it('rules given in code (the bypass option) still apply beside runtime rules', async () => {
    const w = adminWorker({ now: START }, { storage: createStorage(), ...full, bypass: { paths: ['/health'] } })
    await w.reasonFor('/')
    expect(await w.reasonFor('/health')).toBe('bypass')
    expect(await w.reasonFor('/other')).toBe('queued')
  })
})
