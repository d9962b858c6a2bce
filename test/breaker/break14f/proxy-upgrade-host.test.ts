/**
 * #14.1/#14.7 probe: the proxy over real sockets with `paths: ['/shop']` and `bypass.paths: ['/static']`, room full,
 * no public host pinned (the default), upgrades on (as the CLI listens). Requests and WebSocket upgrades from a
 * client without a ticket, with Host values that can move the path (`a?`, `a#`, `a/static`, ...). The origin
 * records what it receives: nothing under /shop may reach it.
 */
import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listen, type Listening } from '../../../bin/listen.ts'
import { nodeTransport } from '../../../src/proxy/node.ts'
import { createProxyApp } from '../../../src/proxy/proxy.ts'
import { raw, UPGRADE } from './support.ts'

const SECRET = 'break14f-secret-0123456789-abcdefghijklmn'
let origin: Server
let proxy: Listening
const seen: string[] = []

beforeAll(async () => {
  origin = createServer((req, res) => {
    seen.push(`http ${req.method} ${req.url}`)
    req.resume()
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ORIGIN')
  })
  origin.on('upgrade', (req, socket) => {
    seen.push(`upgrade ${req.method} ${req.url}`)
    socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n')
  })
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r))
  const originUrl = `http://127.0.0.1:${(origin.address() as any).port}`
  const app = createProxyApp({ origin: originUrl, room: { secret: SECRET, queueAll: true, paths: ['/shop'], bypass: { paths: ['/static'] } }, transport: nodeTransport(), onOriginError: () => {} })
  proxy = await listen(app.fetch as never, 0, '127.0.0.1', { upgrades: true, fastPath: app.fastPath })
})
afterAll(async () => {
  await proxy?.close()
  origin?.close()
})


const HOSTS = ['shop.test', 'a?', 'a#', 'a/static', 'a/static/..', 'a/..', 'a\\', 'a%2f', 'a@b', 'a:1?', 'a:1#', '[::1]?', '\xdf/static', 'a/static?', 'a/static#']
const TARGETS = ['/shop/ws', '/shop/product/1', '/static/../shop/ws', '//shop/ws', 'http://x/shop/ws', '/shop']

describe('proxy, paths [/shop], no public host: Host values that move the path never let a user without a ticket reach /shop', () => {
  it('sanity: /static reaches the origin, plain and upgraded', async () => {
    const mark = seen.length
    await raw(proxy.port, 'GET /static/x HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n')
    console.log('upgrade /static/ws ->', JSON.stringify((await raw(proxy.port, `GET /static/ws HTTP/1.1\r\nHost: shop.test\r\n${UPGRADE}\r\n`)).slice(0, 400)))
    expect(seen.slice(mark)).toEqual(['http GET /static/x', 'upgrade GET /static/ws'])
  })
  for (const kind of ['plain', 'upgrade'] as const) {
    it(kind, async () => {
      const bad: string[] = []
      for (const host of HOSTS) for (const target of TARGETS) {
        const mark = seen.length
        const out = await raw(proxy.port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n${kind === 'upgrade' ? UPGRADE : 'Connection: close\r\n'}\r\n`)
        const got = seen.slice(mark)
        if (kind === 'plain' && host === 'a?' && target === '/shop/ws') console.log('plain Host a? ->', out.split('\r\n')[0], JSON.stringify(got))
        // The path the origin routes: before ? or #, dot segments resolved, percent escapes decoded.
        const reached = got.filter((s) => {
          const path = s.split(' ')[2]!.split(/[?#]/)[0]!
          return /^\/+shop(\/|$)/i.test(decodeURIComponent(new URL(path.replace(/^\/+/, '/'), 'http://o').pathname))
        })
        if (reached.length > 0) bad.push(`${kind} ${target} Host:${JSON.stringify(host)} -> ${out.split('\r\n')[0]} origin got ${JSON.stringify(got)}`)
      }
      console.log(bad.join('\n') || `${kind}: none reached`)
      expect(bad).toEqual([])
    }, 60_000)
  }
})
