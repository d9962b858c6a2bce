/**
 * `createProxyApp` in-process with a recording `fetch` in place of the network: what exactly it asks the
 * origin for, and its build-time option checks. The socket-level behaviour is in proxy.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { WaitingRoomError } from '../src/errors.ts'
import { createProxyApp, type ProxyOptions } from '../src/proxy/proxy.ts'
import { TEST_SECRET } from './proxy-servers.ts'

interface Forwarded {
  url: string
  method: string
  headers: Headers
  body: string | null
  redirect: RequestRedirect | undefined
}

function recordingProxy(options: Partial<ProxyOptions> = {}, answer: () => Response = () => new Response('ok')) {
  const forwarded: Forwarded[] = []
  const app = createProxyApp({
    origin: 'http://origin.internal:8080',
    room: { secret: TEST_SECRET, totalActiveUsers: 1000, newUsersPerMinute: 1000 },
    ...options,
    fetch: async (input, init) => {
      const body = init?.body ? await new Response(init.body as ReadableStream).text() : null
      forwarded.push({ url: String(input), method: init!.method!, headers: new Headers(init!.headers), body, redirect: init!.redirect })
      return answer()
    },
  })
  return { app, forwarded }
}

describe('createProxyApp: the request to the origin', () => {
  it('keeps the origin base path and the query, and does not follow redirects', async () => {
    const { app, forwarded } = recordingProxy({ origin: 'http://origin.internal:8080/app/' })
    await app.request('http://proxy.example/a/b?c=1&d=2')
    expect(forwarded[0]!.url).toBe('http://origin.internal:8080/app/a/b?c=1&d=2')
    expect(forwarded[0]!.redirect).toBe('manual')
  })

  it('forwards HEAD as HEAD and keeps the length the origin states', async () => {
    const { app, forwarded } = recordingProxy({}, () => new Response(null, { headers: { 'content-length': '1234' } }))
    const response = await app.request('http://proxy.example/file', { method: 'HEAD' })
    expect(forwarded[0]!.method).toBe('HEAD')
    expect(response.headers.get('content-length')).toBe('1234')
  })

  it('never lets the request path change the origin host', async () => {
    const { app, forwarded } = recordingProxy()
    await app.request('http://proxy.example//evil.example/steal?x=1')
    await app.request(new Request('http://proxy.example/%2F%2Fevil.example/'))
    for (const request of forwarded) expect(new URL(request.url).host).toBe('origin.internal:8080')
    expect(forwarded[0]!.url).toBe('http://origin.internal:8080//evil.example/steal?x=1')
  })

  it('sends no body for a bodiless DELETE or a Content-Length 0 POST, and a streamed body intact', async () => {
    const { app, forwarded } = recordingProxy()
    const empty = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() })
    await app.request('http://proxy.example/x', { method: 'DELETE', body: empty, duplex: 'half' } as RequestInit)
    await app.request('http://proxy.example/x', { method: 'POST', headers: { 'content-length': '0' }, body: '' })
    const parts = ['one ', 'two ', 'three']
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const part = parts.shift()
        if (part === undefined) controller.close()
        else controller.enqueue(new TextEncoder().encode(part))
      },
    })
    await app.request('http://proxy.example/x', { method: 'PUT', body: stream, duplex: 'half' } as RequestInit)
    expect(forwarded.map((request) => [request.method, request.body])).toEqual([
      ['DELETE', null],
      ['POST', null],
      ['PUT', 'one two three'],
    ])
  })

  it('offers the origin only content codings that fetch decodes', async () => {
    const { app, forwarded } = recordingProxy()
    await app.request('http://proxy.example/', { headers: { 'accept-encoding': 'zstd, br;q=0.9, gzip, compress' } })
    await app.request('http://proxy.example/', { headers: { 'accept-encoding': 'zstd' } })
    await app.request('http://proxy.example/', { headers: { 'accept-encoding': '*' } })
    expect(forwarded.map((request) => request.headers.get('accept-encoding'))).toEqual(['br;q=0.9, gzip', null, 'gzip, deflate, br'])
  })
})

describe('createProxyApp: upgrades and commands with the fetch transport', () => {
  it('answers 501 to an upgrade it cannot tunnel, never a plain GET to the origin', async () => {
    const { app, forwarded } = recordingProxy()
    const response = await app.request('http://proxy.example/live', { headers: { connection: 'keep-alive, Upgrade', upgrade: 'websocket' } })
    expect(response.status).toBe(501)
    expect(await response.text()).toContain('Upgrade: websocket')
    expect(forwarded).toHaveLength(0)
  })

  it("strips a client's Waiting-Room-Command and the forwarding headers it is not trusted for", async () => {
    const { app, forwarded } = recordingProxy()
    await app.request('http://proxy.example/', {
      headers: { 'waiting-room-command': 'revoke', forwarded: 'for=1.2.3.4', 'x-forwarded-for': '1.2.3.4', 'x-forwarded-proto': 'https' },
    })
    const headers = forwarded[0]!.headers
    expect(headers.get('waiting-room-command')).toBeNull()
    expect(headers.get('forwarded')).toBeNull()
    expect(headers.get('x-forwarded-for')).toBeNull() // the peer is unknown to app.request: no address at all
    expect(headers.get('x-forwarded-proto')).toBe('http')
  })
})

describe('createProxyApp: the response to the client', () => {
  it('rewrites a Location on the origin (base path included) to the proxy', async () => {
    const { app } = recordingProxy({ origin: 'http://origin.internal:8080/app' }, () =>
      new Response(null, { status: 303, headers: { location: 'http://origin.internal:8080/app/next?step=2' } }),
    )
    const response = await app.request('https://proxy.example/form', { method: 'POST', body: 'x=1' })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('https://proxy.example/next?step=2')
  })

  it('leaves a Location outside the origin base path alone', async () => {
    const { app } = recordingProxy({ origin: 'http://origin.internal:8080/app' }, () =>
      new Response(null, { status: 302, headers: { location: 'http://origin.internal:8080/application' } }),
    )
    const response = await app.request('http://proxy.example/')
    expect(response.headers.get('location')).toBe('http://origin.internal:8080/application')
  })
})

describe('createProxyApp: options', () => {
  it.each([
    ['not a url', /invalid option origin: expected an http\(s\) URL/],
    ['ftp://files.example', /invalid option origin: expected an http\(s\) URL, got ftp:/],
    ['http://origin.example/?x=1', /invalid option origin: a base URL takes no query/],
  ])('rejects origin %j at build time', (origin, message) => {
    expect(() => createProxyApp({ origin })).toThrow(WaitingRoomError)
    expect(() => createProxyApp({ origin })).toThrow(message)
  })

  it("rejects a bad room option at build time with the core's message", () => {
    expect(() => createProxyApp({ origin: 'http://o.example', room: { totalActiveUsers: 0 } })).toThrow(/totalActiveUsers/)
  })

  it.each([
    [{ trustProxy: -1 }, /invalid option trustProxy/],
    [{ trustProxy: '10.0.0.0/99' }, /invalid option trustProxy: "10\.0\.0\.0\/99"/],
    [{ publicHosts: ['http://shop.example'] }, /invalid option publicHosts/],
  ] as const)('rejects %j at build time', (options, message) => {
    expect(() => createProxyApp({ origin: 'http://o.example', ...options })).toThrow(message)
  })

  it('rejects a bad originTimeoutMs', () => {
    expect(() => createProxyApp({ origin: 'http://o.example', originTimeoutMs: 0 })).toThrow(/originTimeoutMs/)
  })
})
