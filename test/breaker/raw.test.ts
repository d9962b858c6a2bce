/** #14.1 over a real socket (@hono/node-server): request targets app.request cannot express. */
import { serve } from '@hono/node-server'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shopApp } from './paths-app.ts'

let server: ReturnType<typeof serve>
let port = 0
beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server = serve({ fetch: shopApp('regexp').fetch, port: 0, hostname: '127.0.0.1' }, (info) => { port = info.port; resolve() })
  })
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

/** Sends raw bytes, returns the raw response (latin1). */
function raw(bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(bytes))
    let out = ''
    socket.setEncoding('latin1')
    socket.on('data', (d) => (out += d))
    socket.on('close', () => resolve(out))
    socket.on('error', () => resolve(out || 'ERROR'))
    socket.setTimeout(2000, () => socket.destroy())
  })
}
const req = (method: string, target: string, host = 'shop.test', extra = '') =>
  Buffer.from(`${method} ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n${extra}\r\n`, 'latin1')

describe('raw socket', () => {
  it('sanity: /static passes, /shop is queued', async () => {
    expect(await raw(req('GET', '/static/a.css'))).toContain('static /static/a.css')
    const shop = await raw(req('GET', '/shop/product/1'))
    expect(shop).not.toContain('x-reached')
    expect(shop).toContain('HTTP/1.1 200') // the queue page
  })

  it('targets, hosts and methods', async () => {
    const targets = [
      '/shop', '/static/../shop', '/static/%2e%2e/shop', '/static/..%2fshop', '/static#/../shop', '/static/x#/../../shop', '/static\\..\\shop',
      '/static/..;/shop', '/static/%2e%2e;/shop', '/%73hop', '/static/\xc0\xae\xc0\xae/shop', '/static/\xef\xbc\x8e\xef\xbc\x8e/shop', '/sh\x00op',
      '/static/../shop?x#y', 'http://evil.test/shop', 'http://shop.test/static/../shop', 'http://shop.test/static/%2e%2e/shop', 'https://x/static/..%2fshop',
      'http://user:pass@x/shop', 'http://x:8080/static/../shop', 'HTTP://x/shop', '//shop', '///shop', 'shop', '*', '/static/' + '../'.repeat(300) + 'shop',
      '/static/\t/../shop', '/static/%09/../shop', '/\xdf/../shop', '/static/..\x2f\x2fshop', '/static/.\x2e/shop', '/s%68op/product/1', '/static/%2E%2e/shop',
      '/static/..%5Cshop', '/ｓｈｏｐ', '/static/?/../shop',
    ]
    const hosts = ['shop.test', 'SHOP.test', 'a/static', 'a#', 'a?', 'a/..', '\xdf/static', '\xdf/abcde', 'x:80/static/..', 'user@x', '[::1]', '127.0.0.1:' + port, '']
    const bad: string[] = []
    for (const method of ['GET', 'HEAD', 'OPTIONS']) for (const target of targets) for (const host of hosts) {
      const out = await raw(req(method, target, host))
      if (/x-reached: shop/i.test(out)) bad.push(`${method} ${JSON.stringify(target)} Host:${JSON.stringify(host)} -> ${out.split('\r\n')[0]} | ${out.slice(out.indexOf('\r\n\r\n') + 4, out.indexOf('\r\n\r\n') + 80)}`)
    }
    if (bad.length) console.log(bad.slice(0, 20).join('\n'))
    expect(bad).toEqual([])
  })

  it('Host can prepend path segments on node-server (room follows the same URL)', async () => {
    // 'ß' is punycoded to xn--zca (7 chars): a Host of the same length passes node-server's check.
    const out = await raw(req('GET', '/product/1', '\xdf/shop'))
    console.log('Host "ß/shop" + GET /product/1 ->', out.split('\r\n')[0], '|', out.slice(out.indexOf('\r\n\r\n') + 4, out.indexOf('\r\n\r\n') + 60).replace(/\s+/g, ' '))
  })
})
