/// <reference types="node" />
/**
 * What the proxy believes about a client, over real sockets (the rules themselves: proxy-trust.test.ts).
 * A client's X-Forwarded-* and Forwarded headers count only with `trustProxy`: they decide the origin's
 * X-Forwarded-*, the Secure flag of the room's ticket, and where redirects point. With `publicHosts`, a
 * request for another Host is refused before the room or the origin sees it. A client's
 * Waiting-Room-Command request header never reaches the origin.
 */
import { connect } from 'node:net'
import { request as httpRequest } from 'node:http'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Listening } from '../bin/listen.ts'
import fc from 'fast-check'
import { createProxyApp, fetchTransport, type ProxyOptions } from '../src/proxy/proxy.ts'
import { FORWARDING_CLAIMS } from '../src/proxy/headers.ts'
import { serveApp, serveProxy, TEST_SECRET } from './proxy-servers.ts'

let origin: Listening
let originHits = 0
const proxies: Listening[] = []

beforeAll(async () => {
  const app = new Hono()
  app.get('/redirect', (c) => {
    originHits++
    return c.redirect(`${origin.url}/landed`, 302)
  })
  app.all('*', (c) => {
    originHits++
    return c.json(Object.fromEntries(c.req.raw.headers))
  })
  origin = await serveApp(app)
})

afterAll(async () => {
  for (const proxy of proxies) await proxy.close()
  await origin?.close()
})

async function proxyWith(options: Partial<ProxyOptions>, host?: string): Promise<Listening> {
  const proxy = await serveProxy({ origin: origin.url, room: { totalActiveUsers: 1000, newUsersPerMinute: 1000 }, ...options }, host)
  proxies.push(proxy)
  return proxy
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** node:http, which can send any Host (fetch cannot). */
function get(url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers, agent: false }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }))
    })
      .on('error', reject)
      .end()
  })
}

const ticketOf = (answer: Answer): string | undefined => ([] as string[]).concat(answer.headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith('__wroom='))
const FORGED = { 'x-forwarded-for': '203.0.113.66', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example', forwarded: 'for=203.0.113.66;proto=https' }

describe('proxy: forwarding headers from the client', () => {
  it('without trustProxy, replaces them all with what the proxy saw, and the ticket is not Secure', async () => {
    const proxy = await proxyWith({})
    const answer = await get(`${proxy.url}/echo`, FORGED)
    const seen = JSON.parse(answer.body) as Record<string, string>
    expect(seen['x-forwarded-for']).toBe('127.0.0.1')
    expect(seen['x-forwarded-proto']).toBe('http')
    expect(seen['x-forwarded-host']).toBe(new URL(proxy.url).host)
    expect(seen.forwarded).toBeUndefined()
    expect(ticketOf(answer)).not.toContain('Secure')

    const redirect = await get(`${proxy.url}/redirect`, FORGED)
    expect(redirect.headers.location).toBe(`${proxy.url}/landed`)
  })

  it.each([
    ['a hop count', 1],
    ['the loopback range', '127.0.0.0/8, ::1'],
  ] as const)('with trustProxy as %s, believes them: origin headers, Secure ticket, redirects', async (_, trustProxy) => {
    const proxy = await proxyWith({ trustProxy })
    const answer = await get(`${proxy.url}/echo`, FORGED)
    const seen = JSON.parse(answer.body) as Record<string, string>
    expect(seen['x-forwarded-for']).toBe('203.0.113.66, 127.0.0.1')
    expect(seen['x-forwarded-proto']).toBe('https')
    expect(seen['x-forwarded-host']).toBe('evil.example')
    expect(seen.forwarded).toBe(FORGED.forwarded)
    expect(ticketOf(answer)).toContain('; Secure')

    const redirect = await get(`${proxy.url}/redirect`, FORGED)
    expect(redirect.headers.location).toBe('https://evil.example/landed')
  })

  it('with trustProxy ranges that do not hold the peer, believes none of them', async () => {
    const proxy = await proxyWith({ trustProxy: ['10.0.0.0/8', 'fc00::/7'] })
    const answer = await get(`${proxy.url}/echo`, FORGED)
    const seen = JSON.parse(answer.body) as Record<string, string>
    expect(seen['x-forwarded-for']).toBe('127.0.0.1')
    expect(seen['x-forwarded-proto']).toBe('http')
    expect(ticketOf(answer)).not.toContain('Secure')
  })

  it("never passes on a client's Waiting-Room-Command", async () => {
    const proxy = await proxyWith({ trustProxy: 1, room: { enabledOriginCommands: ['revoke'] } })
    const answer = await get(`${proxy.url}/echo`, { 'waiting-room-command': 'revoke' })
    expect((JSON.parse(answer.body) as Record<string, string>)['waiting-room-command']).toBeUndefined()
  })
})

/** Every forwarding claim, its name in a generated case, with a value an origin would believe. */
const claims = fc.array(fc.constantFrom('lower', 'upper', 'title'), { minLength: FORWARDING_CLAIMS.length, maxLength: FORWARDING_CLAIMS.length }).map((cases) =>
  Object.fromEntries(
    FORWARDING_CLAIMS.map((name, i) => {
      const spelled = cases[i] === 'upper' ? name.toUpperCase() : cases[i] === 'title' ? name.replace(/(^|-)[a-z]/g, (part) => part.toUpperCase()) : name
      return [spelled, /ip|for/.test(name) ? '203.0.113.66' : /ssl|https/.test(name) ? 'on' : /scheme|proto/.test(name) ? 'https' : '/admin']
    }),
  ),
)

describe('proxy: the rest of the forwarding family (X-Real-IP, X-Forwarded-Ssl, True-Client-IP, …)', () => {
  it.each([
    ['node:http', undefined],
    ['fetch', fetchTransport()],
  ] as const)('on the %s transport, an untrusted client sends none of them on; trusted proxies do', async (_, transport) => {
    const untrusted = await proxyWith({ transport })
    const trusted = await proxyWith({ transport, trustProxy: 1 })
    await fc.assert(
      fc.asyncProperty(claims, async (sent) => {
        const dropped = JSON.parse((await get(`${untrusted.url}/echo`, sent)).body) as Record<string, string>
        expect(Object.keys(dropped).filter((name) => FORWARDING_CLAIMS.includes(name))).toEqual([])
        expect(dropped['x-forwarded-for']).toBe('127.0.0.1')
        const kept = JSON.parse((await get(`${trusted.url}/echo`, sent)).body) as Record<string, string>
        for (const [name, value] of Object.entries(sent)) expect(kept[name.toLowerCase()], name).toBe(value)
      }),
      { numRuns: 8, seed: 2026 },
    )
  })
})

describe('proxy: a dual-stack listener', () => {
  it('reports an IPv4 client as IPv4, not IPv4-mapped IPv6 (::ffff:127.0.0.1)', async () => {
    const proxy = await proxyWith({}, '::')
    const answer = await get(`http://127.0.0.1:${proxy.port}/echo`, {})
    expect((JSON.parse(answer.body) as Record<string, string>)['x-forwarded-for']).toBe('127.0.0.1')
    // An IPv6 client stays IPv6.
    const v6 = await get(`http://[::1]:${proxy.port}/echo`, {})
    expect((JSON.parse(v6.body) as Record<string, string>)['x-forwarded-for']).toBe('::1')
  })
})

describe('proxy: pinned public hosts', () => {
  it('serves its hosts on any port and case, and answers 421 for any other without reaching room or origin', async () => {
    const proxy = await proxyWith({ publicHosts: ['shop.example', '*.shop.example'] })
    const port = new URL(proxy.url).port
    for (const host of ['shop.example', `SHOP.example:${port}`, 'www.shop.example']) {
      expect((await get(`${proxy.url}/echo`, { host })).status, host).toBe(200)
    }
    const before = originHits
    for (const host of ['evil.example', `127.0.0.1:${port}`, 'shop.example.evil.example', 'xshop.example']) {
      const refused = await get(`${proxy.url}/echo`, { host })
      expect(refused.status, host).toBe(421)
      expect(refused.body).toContain('does not serve')
      expect(ticketOf(refused)).toBeUndefined() // the room never ran
    }
    expect(originHits).toBe(before)
  })

  it('checks the host trusted proxies report, and rewrites redirects to it', async () => {
    const proxy = await proxyWith({ publicHosts: 'shop.example', trustProxy: 1 })
    const answer = await get(`${proxy.url}/redirect`, { 'x-forwarded-host': 'shop.example', 'x-forwarded-proto': 'https' })
    expect(answer.headers.location).toBe('https://shop.example/landed')
    expect((await get(`${proxy.url}/echo`, { 'x-forwarded-host': 'evil.example' })).status).toBe(421)
  })

  it('answers 400 to a request with no Host at all', async () => {
    const proxy = await proxyWith({ publicHosts: 'shop.example' })
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(proxy.url).port), '127.0.0.1', () => socket.end('GET /echo HTTP/1.0\r\n\r\n'))
      let text = ''
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      socket.on('end', () => resolve(text))
      socket.on('error', reject)
    })
    expect(reply).toMatch(/^HTTP\/1\.[01] 400 /)
    // A runtime whose Request has no Host header (app.request here) gets the same.
    const app = createProxyApp({ origin: origin.url, publicHosts: 'shop.example', room: { secret: TEST_SECRET } })
    expect((await app.request('http://shop.example/echo')).status).toBe(400)
    expect((await app.request('http://shop.example/echo', { headers: { host: 'shop.example' } })).status).not.toBe(421)
  })
})
