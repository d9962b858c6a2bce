/**
 * Route and `hosts` host names in any spelling a reader would write: an IPv6 address bare (`::1`,
 * `2001:db8::1`), bracketed, with a port, in upper case or uncompressed covers requests to that address; a
 * host name with a port or trailing dot covers the name. A malformed IPv6 host is refused at build time naming
 * the field. Generated addresses × spellings × request forms.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { waitingRoom } from '../src/index.ts'
import { TEST_SECRET } from './support/room-harness.ts'

let seq = 0
const groupsArb = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })

/** Spellings of one address: full, zero-padded, upper case, compressed by the URL parser. */
function spellings(groups: number[]): string[] {
  const full = groups.map((g) => g.toString(16)).join(':')
  const padded = groups.map((g) => g.toString(16).padStart(4, '0')).join(':')
  const canonical = new URL(`http://[${full}]/`).hostname.slice(1, -1)
  return [full, padded, padded.toUpperCase(), canonical, `[${canonical}]`, `[${full}]:8443`, `[${canonical.toUpperCase()}]`]
}

function app(host: string, field: 'routes' | 'hosts') {
  const a = new Hono()
  const base = { roomId: `rh-${++seq}`, secret: TEST_SECRET, queueAll: true }
  a.use('*', waitingRoom(field === 'routes' ? { ...base, routes: [{ host, path: '/' }] } : { ...base, hosts: [host] }))
  a.all('*', (c) => c.text('REACHED'))
  return a
}

describe('IPv6 route hosts', () => {
  it('a bare or bracketed IPv6 host, in any spelling, covers requests to that address (and only it)', async () => {
    await fc.assert(
      fc.asyncProperty(groupsArb, fc.nat(), fc.constantFrom('routes', 'hosts') as fc.Arbitrary<'routes' | 'hosts'>, fc.boolean(), async (groups, pick, field, withPort) => {
        const options = spellings(groups)
        const spelled = options[pick % options.length]!
        const a = app(spelled, field)
        const canonical = new URL(`http://[${groups.map((g) => g.toString(16)).join(':')}]/`).hostname
        const target = `http://${canonical}${withPort ? ':8080' : ''}/page`
        expect(await (await a.request(target, { headers: { host: `${canonical}${withPort ? ':8080' : ''}` } })).text(), `${spelled} → ${target}`).not.toBe('REACHED')
        const other = groups.map((g, i) => (i === 7 ? (g + 1) % 0x10000 : g).toString(16)).join(':')
        const otherHost = new URL(`http://[${other}]/`).hostname
        expect(await (await a.request(`http://${otherHost}/page`, { headers: { host: otherHost } })).text(), `${spelled} vs ${otherHost}`).toBe('REACHED')
      }),
      { numRuns: 100, seed: 6 },
    )
  })

  it('the reported hosts: ::1 and 2001:db8::1', async () => {
    for (const [host, url] of [['::1', 'http://[::1]:8787/'], ['2001:db8::1', 'http://[2001:db8::1]/'], ['2001:DB8:0:0:0:0:0:1', 'http://[2001:db8::1]/']]) {
      for (const field of ['routes', 'hosts'] as const) expect(await (await app(host!, field).request(url!)).text(), `${field} ${host}`).not.toBe('REACHED')
    }
  })

  it('host names keep working: port and trailing dot ignored, other hosts not covered', async () => {
    for (const host of ['shop.test', 'SHOP.test', 'shop.test.', 'shop.test:8080']) {
      for (const field of ['routes', 'hosts'] as const) {
        const a = app(host, field)
        expect(await (await a.request('http://shop.test/')).text(), `${field} ${host}`).not.toBe('REACHED')
        expect(await (await a.request('http://other.test/')).text(), `${field} ${host}`).toBe('REACHED')
      }
    }
  })

  it('a malformed IPv6 host is refused at build time, naming the field and the bracketed form', () => {
    for (const host of ['1::2::3', '[::1', '::1]', '[::g]', 'fe80::1::']) {
      expect(() => waitingRoom({ secret: TEST_SECRET, routes: [{ host }] }), host).toThrow(/routes\[0\]\.host.*\[::1\]/)
      expect(() => waitingRoom({ secret: TEST_SECRET, hosts: ['ok.test', host] }), host).toThrow(/hosts\[1\].*\[::1\]/)
    }
  })
})
