import { describe, expect, it } from 'vitest'
import type { Context } from 'hono'
import { cookieHeaderOf, isHttps, readCookie, serializeCookie } from '../src/ticket/cookie.ts'

describe('readCookie', () => {
  it.each([
    ['__wroom=abc', 'abc'],
    ['a=1; __wroom=abc; b=2', 'abc'],
    ['a=1;__wroom=abc', 'abc'],
    ['x__wroom=bad; __wroom=good', 'good'],
    ['__wroomx=bad', undefined],
    ['__wroom', undefined],
    ['', undefined],
    ['__wroom= spaced ', 'spaced'],
  ])('%j → %j', (header, value) => {
    expect(readCookie(header, '__wroom')).toBe(value)
  })
})

describe('cookieHeaderOf', () => {
  it("reads Node's incoming headers when @hono/node-server provides them, else the Fetch headers", () => {
    const node = { env: { incoming: { headers: { cookie: 'a=node' } } }, req: { raw: new Request('http://x/', { headers: { cookie: 'a=fetch' } }) } }
    const fetch = { env: {}, req: { raw: new Request('http://x/', { headers: { cookie: 'a=fetch' } }) } }
    expect(cookieHeaderOf(node as unknown as Context)).toBe('a=node')
    const raw = { env: { incoming: { rawHeaders: ['Host', 'x', 'Cookie', 'a=1', 'cookie', 'b=2'] } }, req: fetch.req }
    expect(cookieHeaderOf(raw as unknown as Context)).toBe('a=1; b=2')
    expect(cookieHeaderOf({ env: { incoming: { rawHeaders: ['Host', 'x'] } }, req: fetch.req } as unknown as Context)).toBeUndefined()
    expect(cookieHeaderOf(fetch as unknown as Context)).toBe('a=fetch')
  })
})

describe('serializeCookie', () => {
  const attributes = { sameSite: 'auto' as const, secure: 'auto' as const, domain: undefined }
  it('follows the auto rule: None + Secure over HTTPS, Lax otherwise; none always carries Secure', () => {
    expect(serializeCookie('n', 'v', 60, attributes, true)).toBe('n=v; Max-Age=60; Path=/; HttpOnly; SameSite=None; Secure')
    expect(serializeCookie('n', 'v', 60, attributes, false)).toBe('n=v; Max-Age=60; Path=/; HttpOnly; SameSite=Lax')
    expect(serializeCookie('n', 'v', 1.2, { ...attributes, sameSite: 'none', secure: 'auto' }, false)).toBe('n=v; Max-Age=2; Path=/; HttpOnly; SameSite=None; Secure')
    expect(serializeCookie('n', 'v', 60, { sameSite: 'lax', secure: 'never', domain: 'example.com' }, true)).toBe('n=v; Max-Age=60; Path=/; HttpOnly; SameSite=Lax; Domain=example.com')
  })
  it('trusts X-Forwarded-Proto from the proxy in front', () => {
    expect(isHttps('http://x/', 'https')).toBe(true)
    expect(isHttps('https://x/', 'http')).toBe(false)
    expect(isHttps('https://x/', undefined)).toBe(true)
  })
})

describe('partitioned cookies', () => {
  it('adds Partitioned only to SameSite=None cookies, when asked', () => {
    const partitioned = { sameSite: 'auto' as const, secure: 'auto' as const, domain: undefined, partitioned: true }
    expect(serializeCookie('n', 'v', 60, partitioned, true)).toBe('n=v; Max-Age=60; Path=/; HttpOnly; SameSite=None; Secure; Partitioned')
    expect(serializeCookie('n', 'v', 60, partitioned, false)).toBe('n=v; Max-Age=60; Path=/; HttpOnly; SameSite=Lax')
  })
})
