/**
 * #14.6 probe: behind a load balancer that appends X-Forwarded-For but does not set X-Forwarded-Host (AWS ALB,
 * nginx's default proxy_set_header), `--trust-proxy 1` makes the client's own X-Forwarded-Host "trusted". With the
 * public host pinned (`--public-host shop.test`), a forwarded host that is not a public host must still be refused
 * (421), never told to the origin nor used to rewrite Location. Here the test is the LB (peer 127.0.0.1).
 */
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { killAllStarted, startProxy, type Proxy } from '../break14b/procs.ts'
import { raw } from './support.ts'

let origin: Server
let originUrl = ''
let proxy: Proxy
let port = 0
const seen: { url: string; headers: Record<string, unknown> }[] = []

beforeAll(async () => {
  origin = createServer((req, res) => {
    seen.push({ url: req.url!, headers: req.headers })
    req.resume()
    if (req.url === '/redirect') return res.writeHead(302, { location: `${originUrl}/landed` }).end()
    res.writeHead(200, { 'x-origin': 'yes' }).end('ORIGIN')
  })
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r))
  originUrl = `http://127.0.0.1:${(origin.address() as any).port}`
  proxy = await startProxy(['--origin', originUrl, '--total-active-users', '5', '--new-users-per-minute', '5', '--public-host', 'shop.test', '--trust-proxy', '1'])
  port = Number(new URL(proxy.url).port)
}, 40_000)
afterAll(() => { killAllStarted(); origin?.close() })


describe('--trust-proxy 1 with --public-host: a client-chosen X-Forwarded-Host passed through by the LB', () => {
  it('sanity: Host shop.test through the LB is served', async () => {
    const out = await raw(port, 'GET / HTTP/1.1\r\nHost: shop.test\r\nX-Forwarded-For: 203.0.113.9\r\nConnection: close\r\n\r\n')
    expect(out).toMatch(/x-origin: yes/i)
  })

  for (const xfh of ['evil.test', 'shop.test.evil.test', 'evil.test:443', 'evil.test, shop.test']) {
    it(`X-Forwarded-Host: ${xfh}`, async () => {
      const mark = seen.length
      const out = await raw(port, `GET /redirect HTTP/1.1\r\nHost: shop.test\r\nX-Forwarded-For: 203.0.113.9\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: ${xfh}\r\nConnection: close\r\n\r\n`)
      const got = seen.slice(mark)
      const location = /location: (\S+)/i.exec(out)?.[1]
      console.log(`XFH ${xfh}: ${out.split('\r\n')[0]} location=${location} origin saw x-forwarded-host=${JSON.stringify(got.map((g) => g.headers['x-forwarded-host']))}`)
      const leak = got.some((g) => /evil/.test(String(g.headers['x-forwarded-host']))) || /evil/.test(String(location))
      expect(leak).toBe(false)
    })
  }
})
