/**
 * Forwarding claims are a class of header names (src/proxy/headers.ts isForwardingClaim), not a list: generated
 * names in every family proxies and CDNs use for the client's address, host, scheme, port or path are claims;
 * ordinary request headers (and app headers that merely look similar) are not. The proxy-level behaviour on
 * both transports is proved by test/proxy-forwarding.test.ts and test/breaker/break14b/raw-proxy.test.ts.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FORWARDING_CLAIMS, isForwardingClaim } from '../src/proxy/headers.ts'

const tail = fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,2}$/)
const family = fc.constantFrom('x-forwarded-', 'forwarded-', 'x-original-', 'x-envoy-', 'x-arr-', 'x-real-', 'x-remote-', 'x-originating-', 'x-cluster-client-', 'cf-connecting-', 'cloudfront-', 'fly-', 'x-azure-', 'x-appengine-', 'x-ssl-')
const addressed = fc.tuple(fc.constantFrom('', 'x-', 'true-', 'akamai-'), tail, fc.constantFrom('-ip', '-ipv6', '-clientip', '-forwarded-for'))

describe('forwarding claims: a class of names', () => {
  it('every listed name, and the names the break14b breaker found, are claims', () => {
    for (const name of [...FORWARDING_CLAIMS, 'x-host', 'x-http-host-override', 'x-original-uri', 'x-envoy-original-path', 'x-envoy-external-address', 'x-arr-ssl', 'x-remote-ip', 'x-remote-addr', 'x-originating-ip']) {
      expect(isForwardingClaim(name), name).toBe(true)
    }
  })

  it('any name under a proxy-owned family, or stating an address, is a claim', () => {
    fc.assert(fc.property(family, tail, (prefix, rest) => isForwardingClaim(prefix + rest)), { numRuns: 500 })
    fc.assert(fc.property(addressed, ([prefix, middle, suffix]) => isForwardingClaim(prefix + middle + suffix)), { numRuns: 500 })
  })

  it('the same names with some or all dashes written as underscores are claims too (CGI/WSGI origins read both as one)', () => {
    // Which dashes become underscores: a bit per dash, generated.
    const underscored = (name: string, bits: number): string => {
      let k = 0
      return name.replace(/-/g, () => ((bits >> k++ & 1) === 1 ? '_' : '-'))
    }
    const mask = fc.integer({ min: 1, max: 0xff })
    fc.assert(fc.property(family, tail, mask, (prefix, rest, bits) => isForwardingClaim(underscored(prefix + rest, bits))), { numRuns: 500 })
    fc.assert(fc.property(addressed, mask, ([prefix, middle, suffix], bits) => isForwardingClaim(underscored(prefix + middle + suffix, bits))), { numRuns: 500 })
    for (const name of FORWARDING_CLAIMS.filter((n) => n.includes('-'))) expect(isForwardingClaim(name.replaceAll('-', '_')), name).toBe(true)
  })

  it('ordinary and app headers are not', () => {
    const ordinary = ['accept', 'accept-language', 'authorization', 'cookie', 'content-type', 'user-agent', 'referer', 'origin', 'x-request-id',
      'x-client-id', 'x-client-version', 'x-api-key', 'x-csrf-token', 'x-requested-with', 'sec-fetch-site', 'if-none-match', 'x-zip', 'x-skip', 'tip', 'x-trace-id', 'range']
    for (const name of ordinary) {
      expect(isForwardingClaim(name), name).toBe(false)
      expect(isForwardingClaim(name.replaceAll('-', '_')), name).toBe(false)
    }
  })
})
