/// <reference types="node" />
/**
 * `turnstile()`'s checks beyond `success` (breaker `bots`, issue 17): the `hostname` siteverify reports must be
 * one the room serves (default the request's own host), and `remoteip` comes from the room's own conclusion
 * about the client's address, never from a header a client can write. A local server stands in for siteverify.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHALLENGE_HEADER, turnstile, waitingRoom, type WaitingRoomEnv, type WaitingRoomOptions } from '../src/index.ts'
import { memoryCoordinator } from '../adapters/memory/index.ts'

let server: Server
let url = ''
const forms: Record<string, string>[] = []
/** The hostname siteverify says each token was solved on (token `host:<name>`). */
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body))
      forms.push(form)
      const token = form.response ?? ''
      res.writeHead(200, { 'content-type': 'application/json' })
      if (!token.startsWith('host:')) return res.end(JSON.stringify({ success: false, 'error-codes': ['invalid-input-response'] }))
      const hostname = token.slice(5)
      res.end(JSON.stringify({ success: true, 'error-codes': [], challenge_ts: new Date().toISOString(), ...(hostname !== '-' && { hostname }), action: '', cdata: '' }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/siteverify`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

function app(provider: Partial<Parameters<typeof turnstile>[0]> = {}, room: WaitingRoomOptions = {}) {
  const a = new Hono<WaitingRoomEnv>()
  a.use('*', waitingRoom({
    roomId: `tsc-${Math.random().toString(36).slice(2)}`,
    secret: 'turnstile-checks-secret-0123456789-abcdef',
    coordinator: memoryCoordinator(),
    totalActiveUsers: 100,
    challenge: { provider: turnstile({ siteKey: '1x00000000000000000000AA', secretKey: 'sk', siteverifyUrl: url, ...provider }), when: 'always' },
    ...room,
  }))
  a.all('*', (c) => c.text('origin'))
  return async (token: string, init: { url?: string; headers?: Record<string, string>; env?: unknown; cf?: object } = {}) => {
    const request = new Request(init.url ?? 'http://localhost/', { headers: { [CHALLENGE_HEADER]: token, ...init.headers } })
    if (init.cf) Object.defineProperty(request, 'cf', { value: init.cf })
    const body = await (await a.request(request, undefined, init.env as never)).text()
    return body === 'origin'
  }
}

describe('turnstile() hostname', () => {
  it("by default a token must come from the request's own host", async () => {
    const visit = app()
    expect(await visit('host:evil.example')).toBe(false)
    expect(await visit('host:-'), 'no hostname in the answer').toBe(false)
    expect(await visit('host:shop.example', { url: 'http://localhost/' })).toBe(false)
    expect(await visit('host:localhost')).toBe(true)
    expect(await visit('host:Shop.Example', { url: 'https://shop.example/cart' })).toBe(true)
  })

  it('a configured hostname or list replaces the default; false turns the check off', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.domain(), { minLength: 1, maxLength: 4 }), fc.domain(), fc.boolean(), async (names, other, asString) => {
        const visit = app({ hostname: asString ? names[0]! : names })
        const allowed = asString ? [names[0]!] : names
        expect(await visit(`host:${names[names.length - 1]!.toUpperCase()}`)).toBe(allowed.includes(names[names.length - 1]!))
        expect(await visit(`host:${other}`)).toBe(allowed.includes(other.toLowerCase()))
        expect(await visit('host:localhost'), 'the request host is not added to a configured list').toBe(allowed.includes('localhost'))
      }),
      { numRuns: 20, seed: 4 },
    )
    const open = app({ hostname: false })
    expect(await open('host:anything.example')).toBe(true)
  })

  it('a bad hostname option throws at build time, naming the field', () => {
    for (const hostname of ['', [], ['ok.example', ''], 'has space', 42, true, ['a/b']]) {
      expect(() => turnstile({ siteKey: 'k', secretKey: 's', hostname: hostname as never }), JSON.stringify(hostname)).toThrow(/challenge\.provider hostname/)
    }
  })
})

describe('turnstile() remoteip', () => {
  it("never from a client's X-Forwarded-For or an unvouched CF-Connecting-IP", async () => {
    const visit = app()
    forms.length = 0
    await visit('host:localhost', { headers: { 'x-forwarded-for': '6.6.6.6', 'cf-connecting-ip': '7.7.7.7' } })
    expect(forms[0]).toBeDefined()
    expect(forms[0]!.remoteip).toBeUndefined()
  })

  it("from the room's client address: the clientIp option, CF-Connecting-IP on Workers, the socket's peer", async () => {
    const spoof = { 'x-forwarded-for': '6.6.6.6' }
    const cases: [ReturnType<typeof app>, Parameters<ReturnType<typeof app>>[1], string][] = [
      [app({}, { clientIp: (c) => c.req.header('x-real-ip') }), { headers: { ...spoof, 'x-real-ip': '198.51.100.7' } }, '198.51.100.7'],
      [app(), { headers: { ...spoof, 'cf-connecting-ip': '203.0.113.9' }, cf: { country: 'DE' } }, '203.0.113.9'],
      [app(), { headers: spoof, env: { incoming: { socket: { remoteAddress: '192.0.2.44' } } } }, '192.0.2.44'],
    ]
    for (const [visit, init, expected] of cases) {
      forms.length = 0
      expect(await visit('host:localhost', init)).toBe(true)
      expect(forms[0]!.remoteip).toBe(expected)
    }
  })
})
