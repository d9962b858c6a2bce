/**
 * #14.6/#14.7 probe against the real CLI (`--public-host shop.test`, `--admin-token`, default admin path /_room):
 * upgrades by an admitted user to spellings of the admin path must never reach the origin (README: the CLI never
 * forwards a path under --admin-path), and upgrades with a Host that is not the public host get 421 like plain
 * requests. The origin records every upgrade.
 */
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { killAllStarted, startProxy, type Proxy } from '../break14b/procs.ts'
import { raw, UPGRADE } from './support.ts'

let origin: Server
let proxy: Proxy
let port = 0
const seen: string[] = []
let cookie = ''


beforeAll(async () => {
  origin = createServer((req, res) => { seen.push(`http ${req.url}`); req.resume(); res.writeHead(200, { 'x-origin': 'yes' }).end('ORIGIN') })
  origin.on('upgrade', (req, socket) => { seen.push(`upgrade ${req.url}`); socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n') })
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r))
  proxy = await startProxy(['--origin', `http://127.0.0.1:${(origin.address() as any).port}`, '--total-active-users', '5', '--new-users-per-minute', '5', '--public-host', 'shop.test'])
  port = Number(new URL(proxy.url).port)
  const first = await raw(port, 'GET / HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n')
  cookie = /set-cookie: (__wroom=[^;]+)/i.exec(first)![1]!
}, 40_000)
afterAll(() => { killAllStarted(); origin?.close() })

describe('CLI upgrades: admin path and public host', () => {
  it('sanity: an admitted upgrade to /ws is tunnelled', async () => {
    const mark = seen.length
    const out = await raw(port, `GET /ws HTTP/1.1\r\nHost: shop.test\r\nCookie: ${cookie}\r\n${UPGRADE}\r\n`)
    expect(out.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols')
    expect(seen.slice(mark)).toEqual(['upgrade /ws'])
  })

  it('no spelling of the admin path is forwarded as an upgrade', async () => {
    const bad: string[] = []
    for (const p of ['/_room', '/_room/', '/_room/api/status', '/_ROOM/x', '/_room%2Fx', '//_room/x', '/_room;x', '/x/../_room/x', '/%5Froom/x', '/_room/..%2Fx', '/_room%00', '/_room.', 'http://shop.test/_room/x']) {
      const mark = seen.length
      const out = await raw(port, `GET ${p} HTTP/1.1\r\nHost: shop.test\r\nCookie: ${cookie}\r\n${UPGRADE}\r\n`)
      const got = seen.slice(mark)
      if (got.some((s) => /_room|%5froom/i.test(s))) bad.push(`${p} -> ${out.split('\r\n')[0]} origin got ${JSON.stringify(got)}`)
    }
    console.log(bad.join('\n') || 'none forwarded')
    expect(bad).toEqual([])
  })

  it('an upgrade with a Host that is not the public host gets 421, never the origin', async () => {
    const bad: string[] = []
    for (const host of ['evil.test', 'shop.test.evil', 'shop.test@evil', 'evil.test#shop.test', 'shop.test/x', 'evil.test?shop.test', '']) {
      const mark = seen.length
      const out = await raw(port, `GET /ws HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n${UPGRADE}\r\n`)
      if (seen.length > mark) bad.push(`Host ${JSON.stringify(host)} -> ${out.split('\r\n')[0]} origin got ${JSON.stringify(seen.slice(mark))}`)
    }
    console.log(bad.join('\n') || 'none forwarded')
    expect(bad).toEqual([])
  })
})
