/** #14.1 Host games: hosts: ['shop.test'] covers the shop host; the app routes by path only (the common case). */
import { serve } from '@hono/node-server'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shopApp } from './paths-app.ts'

let server: ReturnType<typeof serve>
let port = 0
beforeAll(async () => {
  await new Promise<void>((resolve) => {
    server = serve({ fetch: shopApp('regexp', { hosts: ['shop.test'] }).fetch, port: 0, hostname: '127.0.0.1' }, (info) => { port = info.port; resolve() })
  })
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

function raw(text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(Buffer.from(text, 'latin1')))
    let out = ''
    socket.setEncoding('latin1')
    socket.on('data', (d) => (out += d))
    socket.on('close', () => resolve(out))
    socket.on('error', () => resolve(out || 'ERROR'))
  })
}

describe('hosts coverage', () => {
  it('Host header spellings of the covered host are covered', async () => {
    for (const host of ['shop.test', 'SHOP.TEST', 'shop.test.', 'shop.test:80', 'shop.test:8080']) {
      const out = await raw(`GET /shop/product/1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
      expect(out, host).not.toMatch(/x-reached: shop/i)
    }
  })

  it('an absolute-form target naming another host, with Host: shop.test, is covered (fail-closed)', async () => {
    const out = await raw(`GET http://other.test/shop/product/1 HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n\r\n`)
    console.log('absolute-form other host, Host: shop.test ->', out.split('\r\n')[0], /x-reached: shop/i.test(out) ? 'REACHED /shop' : 'queued')
    expect(out).not.toMatch(/x-reached: shop/i)
  })

  it('X-Forwarded-Host is not consulted', async () => {
    const out = await raw(`GET /shop/product/1 HTTP/1.1\r\nHost: other.test\r\nX-Forwarded-Host: shop.test\r\nConnection: close\r\n\r\n`)
    console.log('Host other.test + XFH shop.test ->', /x-reached: shop/i.test(out) ? 'REACHED /shop' : 'queued')
  })
})
