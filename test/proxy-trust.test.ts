/**
 * The proxy's trust decisions as pure functions, over generated inputs: CIDR parsing and matching for
 * IPv4 and IPv6, `trustProxy` and `publicHosts` validation, and which client, scheme and host a request's
 * forwarding headers may claim under each policy. The same rules over real sockets: proxy-forwarding.test.ts.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { WaitingRoomError } from '../src/errors.ts'
import { inCidr, parseAddress, parseCidr, plainAddress } from '../src/proxy/ip.ts'
import { FORWARDING_CLAIMS, originRequestHeaderObject, originRequestHeaders } from '../src/proxy/headers.ts'
import { parsePublicHosts } from '../src/proxy/hosts.ts'
import { parseTrustProxy, resolveForwarded, type TrustPolicy } from '../src/proxy/trust.ts'

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
const v6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 })
const v4Text = (bytes: number[]): string => bytes.join('.')
const v6Text = (words: number[]): string => words.map((word) => word.toString(16)).join(':')

/** The bits of `bytes` after the first `bits` set to zero. */
function masked(bytes: number[], bits: number, width: number): number[] {
  return bytes.map((value, i) => {
    const keep = Math.max(0, Math.min(width, bits - i * width))
    return keep === 0 ? 0 : value & (((1 << width) - 1) ^ ((1 << (width - keep)) - 1))
  })
}

describe('IP addresses and CIDR ranges', () => {
  it('an address lies in every prefix of itself, and not in one with any prefix bit flipped (IPv4)', () => {
    fc.assert(
      fc.property(v4, fc.integer({ min: 0, max: 32 }), fc.nat(31), (bytes, bits, flip) => {
        const address = parseAddress(v4Text(bytes))!
        const range = parseCidr(`${v4Text(masked(bytes, bits, 8))}/${bits}`)
        expect(inCidr(address, range)).toBe(true)
        // IPv4-mapped IPv6, as Node reports a peer on a dual-stack socket, is the same address.
        expect(inCidr(parseAddress(`::ffff:${v4Text(bytes)}`)!, range)).toBe(true)
        if (flip < bits) {
          const other = [...bytes]
          other[flip >> 3]! ^= 0x80 >> (flip & 7)
          expect(inCidr(parseAddress(v4Text(other))!, range)).toBe(false)
        }
      }),
    )
  })

  it('the same for IPv6, whatever the spelling (compressed, upper case, bracketed, with a zone)', () => {
    fc.assert(
      fc.property(v6, fc.integer({ min: 0, max: 128 }), fc.nat(127), (words, bits, flip) => {
        const range = parseCidr(`${v6Text(masked(words, bits, 16))}/${bits}`)
        const spellings = [v6Text(words), v6Text(words).toUpperCase(), `[${v6Text(words)}]:443`, `${v6Text(words)}%eth0`]
        if (words.includes(0)) spellings.push(v6Text(words).replace(/(^|:)0(:|$)/, '::').replace(':::', '::'))
        for (const spelling of spellings) expect(inCidr(parseAddress(spelling)!, range), spelling).toBe(true)
        if (flip < bits) {
          const other = [...words]
          other[flip >> 4]! ^= 0x8000 >> (flip & 15)
          expect(inCidr(parseAddress(v6Text(other))!, range)).toBe(false)
        }
      }),
    )
  })

  it('IPv4 ranges never match IPv6 addresses outside ::ffff:0:0/96, nor the reverse', () => {
    expect(inCidr(parseAddress('::1')!, parseCidr('0.0.0.0/0'))).toBe(false)
    expect(inCidr(parseAddress('127.0.0.1')!, parseCidr('::1'))).toBe(false)
    expect(inCidr(parseAddress('127.0.0.1')!, parseCidr('::/0'))).toBe(true) // ::/0 is every address, mapped IPv4 too
  })

  it.each([
    ['10.0.0.0/33', /prefix length: expected \/0 to \/32/],
    ['::/129', /prefix length: expected \/0 to \/128/],
    ['10.1.2.3/8', /bits set after the \/8 prefix: did you mean 10\.0\.0\.0\/8\?/],
    ['fd00::/7', /did you mean fc00::\/7\?/],
    ['2001:db8::1/32', /did you mean 2001:db8::\/32\?/],
    ['010.0.0.1', /not an IP address/],
    ['256.0.0.1', /not an IP address/],
    ['example.com', /not an IP address/],
    ['1:2:3:4:5:6:7:8:9', /not an IP address/],
    ['[::1]', /not an IP address/],
    ['10.0.0.0/x', /prefix length/],
  ])('rejects %j saying why', (text, message) => {
    expect(() => parseCidr(text)).toThrow(message)
  })
})

describe('trustProxy and publicHosts validation', () => {
  it.each([
    [-1, /trustProxy: expected a whole number of proxies in front, 0 to 32, got -1/],
    [1.5, /got 1\.5/],
    [33, /got 33/],
    ['', /got an empty list/],
    [[' ', ','], /got an empty list/],
    ['10.0.0.0/8, nonsense', /trustProxy: "nonsense" is not an IP address or CIDR range/],
    [['fc00::/7', '10.0.0.1/40'], /trustProxy: "10\.0\.0\.1\/40" has an invalid prefix length/],
  ] as const)('trustProxy %j throws naming the option', (value, message) => {
    expect(() => parseTrustProxy(value as never)).toThrow(WaitingRoomError)
    expect(() => parseTrustProxy(value as never)).toThrow(message)
  })

  it('accepts hop counts, and ranges as a list or one comma list', () => {
    expect(parseTrustProxy(undefined)).toEqual({ hops: 0 })
    expect(parseTrustProxy(2)).toEqual({ hops: 2 })
    expect((parseTrustProxy('10.0.0.0/8, ::1') as { ranges: unknown[] }).ranges).toHaveLength(2)
    expect((parseTrustProxy(['192.168.0.0/16']) as { ranges: unknown[] }).ranges).toHaveLength(1)
  })

  it.each(['https://shop.example', 'shop.example/path', 'shop example', 'a*.example', ''])('publicHosts %j is refused or ignored', (entry) => {
    if (entry === '') expect(parsePublicHosts([entry])).toBeUndefined()
    else expect(() => parsePublicHosts([entry])).toThrow(/invalid option publicHosts: .* is not a host name/)
  })

  it('matches names case-insensitively, any port unless one is given, and wildcards one or more labels deep', () => {
    const matches = parsePublicHosts('Shop.Example, api.example:8443, *.cdn.example, [::1]:8787')!
    for (const host of ['shop.example', 'SHOP.EXAMPLE:8787', 'shop.example.', 'api.example:8443', 'a.cdn.example', 'a.b.cdn.example:1', '[::1]:8787']) {
      expect(matches(host), host).toBe(true)
    }
    for (const host of ['evil.example', 'shop.example.evil', 'api.example', 'api.example:443', 'cdn.example', 'xcdn.example', '[::1]:1']) {
      expect(matches(host), host).toBe(false)
    }
  })
})

const own = { peer: '192.0.2.10', proto: 'http', host: 'proxy.example' }
const headersOf = (entries: Record<string, string>): Headers => new Headers(entries)
const ip = v4.map(v4Text)

describe('resolveForwarded', () => {
  it('without trust, no forwarding header changes anything', () => {
    fc.assert(
      fc.property(fc.array(ip, { maxLength: 5 }), fc.constantFrom('https', 'http', 'HTTPS, http'), fc.string(), (chain, proto, host) => {
        const headers = headersOf({ 'x-forwarded-for': chain.join(', '), 'x-forwarded-proto': proto, 'x-forwarded-host': host })
        expect(resolveForwarded(headers, own, { hops: 0 })).toEqual({ clientAddress: own.peer, chain: [own.peer], proto: 'http', host: own.host, trusted: false })
      }),
    )
  })

  it('with N hops trusted, the client is the address N places left of the peer, and the chain starts there', () => {
    fc.assert(
      fc.property(fc.array(ip, { maxLength: 6 }), fc.integer({ min: 1, max: 8 }), (reported, hops) => {
        const forwarded = resolveForwarded(headersOf({ 'x-forwarded-for': reported.join(', ') }), own, { hops })
        const all = [...reported, own.peer]
        const client = Math.max(0, all.length - 1 - hops)
        expect(forwarded.clientAddress).toBe(all[client])
        expect(forwarded.chain).toEqual(all.slice(client))
        expect(forwarded.trusted).toBe(true)
      }),
    )
  })

  it('with ranges trusted, walks left from the peer over trusted addresses only', () => {
    const policy = parseTrustProxy('10.0.0.0/8, 2001:db8::/32') as TrustPolicy
    const trustedIp = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `10.${a}.${b}.${c}`)
    const outsideIp = ip.filter((address) => !address.startsWith('10.'))
    fc.assert(
      fc.property(fc.array(ip, { maxLength: 3 }), outsideIp, fc.array(trustedIp, { maxLength: 3 }), trustedIp, (forged, client, proxies, peer) => {
        const headers = headersOf({ 'x-forwarded-for': [...forged, client, ...proxies].join(', ') })
        const forwarded = resolveForwarded(headers, { ...own, peer }, policy)
        expect(forwarded.clientAddress).toBe(client)
        expect(forwarded.chain).toEqual([client, ...proxies, peer])
      }),
    )
    // A peer outside the ranges is the client, whatever it claims.
    const direct = resolveForwarded(headersOf({ 'x-forwarded-for': '10.0.0.1', 'x-forwarded-proto': 'https' }), own, policy)
    expect(direct).toMatchObject({ clientAddress: own.peer, proto: 'http', trusted: false })
  })

  it("takes the scheme and host the farthest trusted proxy saw, and ignores values that are not one", () => {
    const two = { hops: 2 }
    const appended = headersOf({ 'x-forwarded-for': '203.0.113.1, 10.0.0.1', 'x-forwarded-proto': 'http, https, http', 'x-forwarded-host': 'forged.example, shop.example, lb.internal' })
    expect(resolveForwarded(appended, own, two)).toMatchObject({ clientAddress: '203.0.113.1', proto: 'https', host: 'shop.example' })
    const overwritten = headersOf({ 'x-forwarded-proto': 'HTTPS', 'x-forwarded-host': 'shop.example:8443' })
    expect(resolveForwarded(overwritten, own, two)).toMatchObject({ proto: 'https', host: 'shop.example:8443' })
    const junk = headersOf({ 'x-forwarded-proto': 'gopher', 'x-forwarded-host': 'a b/c' })
    expect(resolveForwarded(junk, own, { hops: 1 })).toMatchObject({ proto: 'http', host: own.host })
  })

  it('trusts no range when the runtime does not tell the peer, but still counts hops', () => {
    const headers = headersOf({ 'x-forwarded-for': '203.0.113.5', 'x-forwarded-proto': 'https' })
    expect(resolveForwarded(headers, { ...own, peer: undefined }, parseTrustProxy('0.0.0.0/0'))).toMatchObject({ trusted: false, proto: 'http', chain: [] })
    expect(resolveForwarded(headers, { ...own, peer: undefined }, { hops: 1 })).toMatchObject({ clientAddress: '203.0.113.5', chain: ['203.0.113.5'], proto: 'https' })
  })
})

describe('IPv4-mapped peers', () => {
  it('an IPv4 peer reported as ::ffff:a.b.c.d (any case, hex words, leading zeros) is the IPv4 address; anything else is unchanged', () => {
    fc.assert(
      fc.property(v4, v6, (bytes, words) => {
        const text = v4Text(bytes)
        const hex = `${((bytes[0]! << 8) | bytes[1]!).toString(16)}:${((bytes[2]! << 8) | bytes[3]!).toString(16)}`
        for (const mapped of [`::ffff:${text}`, `::FFFF:${text}`, `::ffff:${hex}`, `::ffff:${hex.split(':').map((word) => word.padStart(4, '0')).join(':')}`]) expect(plainAddress(mapped), mapped).toBe(text)
        expect(plainAddress(text)).toBe(text)
        const other = v6Text(words)
        if (!(words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff)) expect(plainAddress(other)).toBe(other)
        const forwarded = resolveForwarded(new Headers(), { ...own, peer: `::ffff:${text}` }, { hops: 0 })
        expect(forwarded).toMatchObject({ clientAddress: text, chain: [text] })
      }),
    )
  })
})

describe('forwarding claims from the client', () => {
  const name = fc.oneof(fc.constantFrom(...FORWARDING_CLAIMS, 'X-Forwarded-For', 'Accept', 'X-Request-Id'), fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/))
  const list = fc.array(fc.tuple(name.chain((n) => fc.constantFrom(n, n.toUpperCase())), fc.stringMatching(/^[!-~]{1,12}$/)), { maxLength: 10 })
  it('are dropped from an untrusted client and kept from trusted proxies, the same on both header paths', () => {
    fc.assert(
      fc.property(list, fc.boolean(), (pairs, trusted) => {
        const forwarded = { clientAddress: '192.0.2.1', chain: ['192.0.2.1'], proto: 'http', host: 'proxy.example', trusted }
        const fromList = originRequestHeaders(pairs.flat(), forwarded, 'origin.example')
        const names = fromList.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase())
        for (const [sent] of pairs) {
          const lower = sent.toLowerCase()
          if (!FORWARDING_CLAIMS.includes(lower) || lower === 'x-forwarded-for') continue
          expect(names.includes(lower), sent).toBe(trusted)
        }
        // The fetch transport's path (a Headers, names deleted rather than iterated) agrees.
        const incoming = new Headers()
        for (const [n, v] of pairs) incoming.append(n, v)
        const fromObject = originRequestHeaderObject(incoming, forwarded)
        const expected = new Headers()
        for (let i = 0; i < fromList.length; i += 2) if (fromList[i]!.toLowerCase() !== 'host') expected.append(fromList[i]!, fromList[i + 1]!)
        expect([...fromObject].sort()).toEqual([...expected].sort())
      }),
      { seed: 2026, numRuns: 300 },
    )
  })
})
