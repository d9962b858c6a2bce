/**
 * #14.8 probe against the real CLI over raw sockets (the proxy's fast path runs there, not in the in-process tests):
 * a full room (1 of 1), users without a session sending non-GET requests with bodies, with each queueing status
 * code the CLI accepts. Must hold: never a success (2xx other than the room's 202), 429/202 kept else 503,
 * Retry-After present, JSON when Accept asks for it, and the origin never sees the request.
 */
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { killAllStarted, startProxy, type Proxy } from '../break14b/procs.ts'
import { raw } from './support.ts'

let origin: Server
const seen: string[] = []
afterAll(() => { killAllStarted(); origin?.close() })
beforeAll(async () => {
  origin = createServer((req, res) => { seen.push(`${req.method} ${req.url}`); req.resume(); res.writeHead(200, { 'x-origin': 'yes' }).end('ORIGIN') })
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r))
})


const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'MKCOL', 'LOCK', 'SEARCH', 'QUERY'] // an unknown method (FOO) gets Node's own 400 before the proxy
// (`application/problem+json` with text/html;q=0.1 gets the HTML page: only application/json asks for JSON.)
const ACCEPTS = ['', 'Accept: application/json\r\n', 'Accept: Application/JSON; q=1\r\n', 'Accept: */*\r\n', 'Accept: text/html;q=0.1, application/json\r\n']

describe('CLI: non-GET requests from users without a session, full room', () => {
  for (const code of [200, 202, 429]) {
    it(`--status-code ${code}`, async () => {
      const proxy: Proxy = await startProxy(['--origin', `http://127.0.0.1:${(origin.address() as any).port}`, '--total-active-users', '1', '--new-users-per-minute', '1', '--status-code', String(code)])
      const port = Number(new URL(proxy.url).port)
      const first = await raw(port, 'GET / HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n')
      expect(first).toMatch(/x-origin: yes/i)
      const expected = code === 429 || code === 202 ? code : 503
      const bad: string[] = []
      const mark = seen.length
      for (const method of METHODS) for (const accept of ACCEPTS) {
        const body = '{"order":1}'
        const out = await raw(port, `${method} /api/order HTTP/1.1\r\nHost: shop.test\r\n${accept}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
        const head = out.slice(0, out.indexOf('\r\n\r\n'))
        const status = Number(/^HTTP\/1\.1 (\d+)/.exec(out)?.[1])
        const json = /content-type: application\/json/i.test(head)
        const wantsJson = /json/i.test(accept)
        const problems = []
        if (status !== expected) problems.push(`status ${status}`)
        if (!/retry-after: \d+/i.test(head)) problems.push('no Retry-After')
        if (wantsJson && !json) problems.push('not JSON')
        if (problems.length) bad.push(`${method} ${JSON.stringify(accept.trim())}: ${problems.join(', ')}`)
      }
      const reached = seen.slice(mark)
      console.log(`--status-code ${code}: ${bad.length} bad, origin got ${reached.length}\n${bad.slice(0, 15).join('\n')}`)
      expect({ bad, reached }).toEqual({ bad: [], reached: [] })
      proxy.child.kill('SIGKILL')
    }, 60_000)
  }
})
