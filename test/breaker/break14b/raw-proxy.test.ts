/**
 * break14b — issue #14 items 6, 7, 8 (and 1 through the proxy) over raw sockets against the real CLI proxy: a room
 * of 1 filled by one admitted user, --public-host shop.test, --origin-commands revoke. An origin records every
 * request and upgrade it receives. A user without a session must never reach the origin, whatever the request
 * line, upgrade or headers; client forwarding headers must never reach it untrusted.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { killAllStarted, sleep, startProxy, type Proxy } from './procs.ts'

let origin: Server
let originUrl = ''
const seen: { kind: string; method: string; url: string; headers: IncomingHttpHeaders; cookie: boolean }[] = []
let proxy: Proxy
let port = 0
let admittedCookie = ''

beforeAll(async () => {
  origin = createServer((req, res) => {
    seen.push({ kind: 'http', method: req.method!, url: req.url!, headers: req.headers, cookie: /__wroom=/.test(String(req.headers.cookie ?? '')) })
    req.resume()
    req.on('end', () => {
      if (req.url === '/redirect') { res.writeHead(302, { location: `${originUrl}/landed` }); return res.end() }
      res.writeHead(200, { 'content-type': 'text/plain', 'x-origin': 'yes' }); res.end('ORIGIN')
    })
  })
  origin.on('upgrade', (req, socket) => {
    seen.push({ kind: 'upgrade', method: req.method!, url: req.url!, headers: req.headers, cookie: /__wroom=/.test(String(req.headers.cookie ?? '')) })
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: ' + req.headers.upgrade + '\r\nConnection: Upgrade\r\n\r\n')
    socket.on('data', (d) => socket.write(d))
  })
  origin.on('connect', (req, socket) => {
    seen.push({ kind: 'connect', method: req.method!, url: req.url!, headers: req.headers, cookie: false })
    socket.end('HTTP/1.1 200 Connection Established\r\n\r\n')
  })
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r))
  originUrl = `http://127.0.0.1:${(origin.address() as any).port}`
  proxy = await startProxy(['--origin', originUrl, '--total-active-users', '1', '--new-users-per-minute', '1', '--public-host', 'shop.test', '--origin-commands', 'revoke', '--status-code', '200'])
  port = Number(new URL(proxy.url).port)
  const first = await raw('GET /first HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n')
  if (!/x-origin: yes/i.test(first)) throw new Error(`setup: first user not admitted: ${first.slice(0, 300)}`)
  admittedCookie = /set-cookie: (__wroom=[^;]+)/i.exec(first)![1]!
  const second = await raw('GET /second HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n')
  if (/x-origin: yes/i.test(second)) throw new Error('setup: room not full')
}, 30_000)
afterAll(() => { killAllStarted(); origin?.close() })

function raw(text: string | Buffer, waitMs = 1500): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1')
    let out = ''
    const done = () => { s.destroy(); resolve(out) }
    const timer = setTimeout(done, waitMs)
    s.on('data', (d) => (out += d.toString('latin1')))
    s.on('error', () => { clearTimeout(timer); resolve(out) })
    s.on('close', () => { clearTimeout(timer); resolve(out) })
    s.write(text)
  })
}

/** Requests the origin received since `mark` from users without a session (no cookie, or not our admitted one). */
const since = (mark: number) => seen.slice(mark)

describe('break14b: refused users over raw sockets never reach the origin (room of 1, full)', () => {
  const probes: [string, string][] = [
    ['absolute-form target', `GET http://shop.test:${0}/x HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n`],
    ['absolute-form target naming the origin', 'GET ORIGIN/x HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n'],
    ['asterisk-form OPTIONS', 'OPTIONS * HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n'],
    ['CONNECT', 'CONNECT shop.test:80 HTTP/1.1\r\nHost: shop.test\r\n\r\n'],
    ['HTTP/1.0 without Host', 'GET /x HTTP/1.0\r\n\r\n'],
    ['websocket upgrade', 'GET /ws HTTP/1.1\r\nHost: shop.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'],
    ['h2c upgrade (smuggling)', 'GET /x HTTP/1.1\r\nHost: shop.test\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n'],
    ['upgrade with keep-alive, Upgrade and a body', 'POST /ws HTTP/1.1\r\nHost: shop.test\r\nConnection: keep-alive, Upgrade\r\nUpgrade: WebSocket\r\nContent-Length: 5\r\n\r\nhello'],
    ['revoked-looking command header from the client', 'GET /x HTTP/1.1\r\nHost: shop.test\r\nWaiting-Room-Command: revoke\r\nConnection: close\r\n\r\n'],
    ['pipelined: admitted then cookieless on one connection', `GET /a HTTP/1.1\r\nHost: shop.test\r\nCookie: COOKIE\r\n\r\nGET /pipelined-no-cookie HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n`],
    ['TE + CL smuggling', 'POST /a HTTP/1.1\r\nHost: shop.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: shop.test\r\n\r\n'],
  ]
  for (const [name, text] of probes) {
    it(name, async () => {
      const mark = seen.length
      const out = await raw(text.replace('ORIGIN', originUrl).replace(':0/', `:${port}/`).replace('COOKIE', admittedCookie))
      await sleep(100)
      const leaked = since(mark).filter((r) => !r.cookie)
      const status = out.split('\r\n')[0]
      console.log(`${name}: ${status} | origin got: ${JSON.stringify(since(mark).map((r) => `${r.kind} ${r.method} ${r.url} cookie=${r.cookie}`))}`)
      expect(leaked.map((r) => `${r.kind} ${r.method} ${r.url}`)).toEqual([])
      expect(out).not.toMatch(/^HTTP\/1\.[01] 101/)
    })
  }
})

describe('break14b: untrusted forwarding headers (no --trust-proxy), admitted user', () => {
  it('none of the client\'s forwarding, path-override or command headers reach the origin', async () => {
    const mark = seen.length
    const hdrs = [
      'X-Forwarded-Proto: https', 'X-Forwarded-Host: evil.test', 'X-Forwarded-For: 6.6.6.6', 'Forwarded: for=6.6.6.6;proto=https;host=evil.test',
      'X-Real-IP: 6.6.6.6', 'X-Forwarded-Port: 443', 'X-Forwarded-Prefix: /evil', 'X-Original-URL: /admin', 'X-Rewrite-URL: /admin', 'X-Original-Host: evil.test',
      'True-Client-IP: 6.6.6.6', 'CF-Connecting-IP: 6.6.6.6', 'X-Client-IP: 6.6.6.6', 'X-Forwarded-Server: evil.test', 'X-Forwarded-Scheme: https', 'X-Url-Scheme: https', 'Front-End-Https: on', 'X-Forwarded-Ssl: on',
      'Waiting-Room-Command: revoke', 'waiting-room-command : revoke', 'Cf-Waiting-Room-Command: revoke',
    ]
    const out = await raw(`GET /h HTTP/1.1\r\nHost: shop.test\r\nCookie: ${admittedCookie}\r\n${hdrs.filter((h) => !h.includes(' :')).join('\r\n')}\r\nConnection: close\r\n\r\n`)
    await sleep(100)
    const got = since(mark).find((r) => r.url === '/h')
    console.log('status', out.split('\r\n')[0], 'origin headers', JSON.stringify(got?.headers))
    expect(got).toBeDefined()
    const h = got!.headers
    const bad: string[] = []
    if (h['x-forwarded-proto'] === 'https') bad.push('x-forwarded-proto https')
    if (String(h['x-forwarded-host'] ?? '').includes('evil')) bad.push('x-forwarded-host evil')
    if (String(h['x-forwarded-for'] ?? '').includes('6.6.6.6')) bad.push('x-forwarded-for 6.6.6.6')
    if (String(h.forwarded ?? '').includes('6.6.6.6') || String(h.forwarded ?? '').includes('evil')) bad.push('forwarded')
    for (const name of ['x-real-ip', 'x-forwarded-port', 'x-forwarded-prefix', 'x-original-url', 'x-rewrite-url', 'x-original-host', 'true-client-ip', 'cf-connecting-ip', 'x-client-ip', 'x-forwarded-server', 'x-forwarded-scheme', 'x-url-scheme', 'front-end-https', 'x-forwarded-ssl', 'waiting-room-command', 'cf-waiting-room-command'])
      if (h[name] !== undefined && !/^127\.0\.0\.1$|^http$/.test(String(h[name]))) bad.push(`${name}: ${h[name]}`)
    expect(bad).toEqual([])
  })

  // The proxy drops a list of forwarding claims (src/proxy/headers.ts FORWARDING_CLAIMS): a deny-list. These are
  // further names origins and frameworks read as the client's host, path, scheme or address.
  const MORE_CLAIMS: Record<string, string> = {
    'x-host': 'evil.test', // cache-poisoning classic (Param Miner), read by some frameworks as the host
    'x-http-host-override': 'evil.test', // Symfony/ASP.NET-style host override
    'x-original-uri': '/admin', // nginx auth_request convention, read as the original path
    'x-envoy-original-path': '/admin', // Envoy's original path
    'x-envoy-external-address': '6.6.6.6', // Envoy's client address
    'x-arr-ssl': 'on', // IIS ARR: the request came over TLS
    'x-remote-ip': '6.6.6.6',
    'x-remote-addr': '6.6.6.6',
    'x-originating-ip': '6.6.6.6',
  }
  it(`less common forwarding claims from an untrusted client are dropped: ${Object.keys(MORE_CLAIMS).join(', ')}`, async () => {
    const mark = seen.length
    const lines = Object.entries(MORE_CLAIMS).map(([k, v]) => `${k}: ${v}`).join('\r\n')
    await raw(`GET /claims HTTP/1.1\r\nHost: shop.test\r\nCookie: ${admittedCookie}\r\n${lines}\r\nConnection: close\r\n\r\n`)
    await sleep(100)
    const got = since(mark).find((r) => r.url === '/claims')
    expect(got).toBeDefined()
    expect(Object.keys(MORE_CLAIMS).filter((k) => got!.headers[k] !== undefined)).toEqual([])
  })

  it('an unknown Host gets 421 and never reaches the origin (spellings of the public host)', async () => {
    const results: string[] = []
    for (const host of ['evil.test', 'shop.test.evil.test', 'shop.test@evil.test', 'evil.test#shop.test', 'shop.test\tevil', 'xshop.test', 'shop.tes', 'shop_test']) {
      const mark = seen.length
      const out = await raw(`GET /host-${results.length} HTTP/1.1\r\nHost: ${host}\r\nCookie: ${admittedCookie}\r\nConnection: close\r\n\r\n`)
      await sleep(50)
      if (since(mark).length > 0) results.push(`${JSON.stringify(host)} -> ${out.split('\r\n')[0]} reached origin`)
    }
    expect(results).toEqual([])
  })

  it('an absolute-form target naming another host, Host: shop.test: the origin is told shop.test, never the other host', async () => {
    const mark = seen.length
    await raw(`GET http://evil.test/abs HTTP/1.1\r\nHost: shop.test\r\nCookie: ${admittedCookie}\r\nConnection: close\r\n\r\n`)
    await sleep(100)
    const got = since(mark)
    console.log('absolute-form other host ->', JSON.stringify(got.map((r) => [r.url, r.headers.host, r.headers['x-forwarded-host']])))
    for (const r of got) expect(JSON.stringify([r.headers['x-forwarded-host'], r.headers.forwarded])).not.toContain('evil')
  })

  it("the origin's redirect Location is rewritten to a public host, never a client-chosen one (absolute-form target)", async () => {
    const out = await raw(`GET http://evil.test/redirect HTTP/1.1\r\nHost: shop.test\r\nCookie: ${admittedCookie}\r\nConnection: close\r\n\r\n`)
    const location = /\r\nlocation: ([^\r]+)/i.exec(out)?.[1]
    console.log('redirect via absolute-form ->', out.split('\r\n')[0], location)
    expect(location ?? '').not.toContain('evil')
  })
})
