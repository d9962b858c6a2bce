/**
 * break14b — issue #14 item 7 (origin commands through the CLI proxy, --origin-commands revoke) and item 8 (non-GET
 * answers through the CLI proxy). The origin answers `Waiting-Room-Command` with the value and on the kind of
 * response the test asks for. Claims: the command header never reaches the client; a revoke ends the session.
 */
import { createServer, type Server } from 'node:http'
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { killAllStarted, sleep, startProxy, type Proxy } from './procs.ts'

let origin: Server
let originHits: { url: string; method: string; bodyBytes: number }[] = []
let proxy: Proxy
let full: Proxy

beforeAll(async () => {
  origin = createServer((req, res) => {
    let bytes = 0
    req.on('data', (d) => (bytes += d.length))
    req.on('end', async () => {
      originHits.push({ url: req.url!, method: req.method!, bodyBytes: bytes })
      const value = req.headers['x-cmd'] as string | undefined
      const kind = String(req.headers['x-kind'] ?? 'plain')
      const headers: Record<string, string | string[]> = { 'x-origin': 'yes', 'content-type': 'text/plain' }
      if (value !== undefined) headers[String(req.headers['x-cmd-name'] ?? 'Waiting-Room-Command')] = value.includes('|') ? value.split('|') : value
      if (kind === '304') { res.writeHead(304, headers); return res.end() }
      if (kind === 'stream') { res.writeHead(200, headers); res.write('part1'); await sleep(300); return res.end('part2') }
      if (kind === 'redirect') { res.writeHead(302, { ...headers, location: '/elsewhere' }); return res.end() }
      res.writeHead(200, headers); res.end('ORIGIN')
    })
  })
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(origin.address() as any).port}`
  proxy = await startProxy(['--origin', url, '--total-active-users', '1000', '--new-users-per-minute', '1000', '--origin-commands', 'revoke'])
  full = await startProxy(['--origin', url, '--total-active-users', '1', '--new-users-per-minute', '1', '--status-code', '200', '--json'])
  await fetch(`${full.url}/fill`).then((r) => r.text())
}, 30_000)
afterAll(() => { killAllStarted(); origin?.close() })

const cookieOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom='))

describe('break14b: origin commands through the CLI proxy', () => {
  const cases: [string, Record<string, string>][] = [
    ['revoke', {}], ['REVOKE (value case)', { 'x-cmd': 'REVOKE' }], ['" revoke " (whitespace)', { 'x-cmd': ' revoke ' }],
    ['on a 302', { 'x-kind': 'redirect' }], ['on a 304', { 'x-kind': '304' }], ['on a streamed body', { 'x-kind': 'stream' }],
    ['twice (two header lines)', { 'x-cmd': 'revoke|revoke' }], ['header name lower case', { 'x-cmd-name': 'waiting-room-command' }],
  ]
  for (const [name, extra] of cases) {
    it(`${name}: the header never reaches the client and the session ends`, async () => {
      const first = await fetch(`${proxy.url}/a`)
      await first.text()
      const cookie = cookieOf(first)!
      const res = await fetch(`${proxy.url}/b`, { headers: { cookie, 'x-cmd': 'revoke', ...extra }, redirect: 'manual' })
      await res.text()
      const leaked = [...res.headers.keys()].filter((k) => /room-command/i.test(k))
      const after = cookieOf(res)
      // The session ended: the ticket the client now holds (cleared, or the old one) no longer passes as that user.
      const again = await fetch(`${proxy.url}/c`, { headers: after && after !== '__wroom=' ? { cookie: after } : { cookie } })
      await again.text()
      const reissued = cookieOf(again)
      console.log(`${name}: status ${res.status}, leaked ${JSON.stringify(leaked)}, set-cookie after ${after?.slice(0, 20)}, next request re-ticketed: ${!!reissued}`)
      expect(leaked).toEqual([])
      expect(reissued, 'the revoked user is a new user on the next request (a new ticket)').toBeTruthy()
    })
  }
})

describe('break14b: non-GET requests of users without a session, through the CLI proxy (room full, --status-code 200)', () => {
  const raw = (text: string, body?: Buffer, waitMs = 2000) => new Promise<string>((resolve) => {
    const port = Number(new URL(full.url).port)
    const s = connect(port, '127.0.0.1')
    let out = ''
    const t = setTimeout(() => { s.destroy(); resolve(out) }, waitMs)
    s.on('data', (d) => (out += d.toString('latin1')))
    s.on('close', () => { clearTimeout(t); resolve(out) })
    s.on('error', () => {})
    s.write(text)
    if (body) setTimeout(() => s.write(body), 300)
  })
  const cases: [string, string, Buffer?][] = [
    ['POST with Expect: 100-continue and 5 MB', 'POST /e HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5242880\r\nConnection: close\r\n\r\n', Buffer.alloc(5 * 1024 * 1024, 97)],
    ['PURGE', 'PURGE /e HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['PROPFIND', 'PROPFIND /e HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    ['chunked DELETE', 'DELETE /e HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n'],
    ['POST as a form (a browser, Accept text/html)', 'POST /e HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\nConnection: close\r\n\r\na=1'],
    ['PATCH, Accept: application/problem+json', 'PATCH /e HTTP/1.1\r\nHost: x\r\nAccept: application/problem+json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'],
  ]
  for (const [name, text, body] of cases) {
    it(`${name}: not a success, Retry-After, nothing reaches the origin`, async () => {
      const before = originHits.length
      const out = await raw(text, body)
      const statuses = [...out.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => Number(m[1]))
      const final = statuses.filter((s) => s >= 200)[0]
      console.log(`${name}: ${JSON.stringify(statuses)} retry-after ${/retry-after: (\S+)/i.exec(out)?.[1]} ctype ${/content-type: ([^\r]+)/i.exec(out)?.[1]}`)
      expect(originHits.slice(before)).toEqual([])
      expect(final).toBeDefined()
      expect(final! >= 200 && final! < 300).toBe(false)
      expect(out).toMatch(/retry-after: \d+/i)
    })
  }
})
