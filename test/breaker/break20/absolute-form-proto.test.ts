/// <reference types="node" />
/**
 * break20 — FAILING on the CLI (Node, and the CLI on Bun); Bun.serve holds: a client on the proxy's plain-http
 * listener, WITHOUT --trust-proxy, claims HTTPS by sending its request target in absolute form
 * (`GET https://shop.example/x HTTP/1.1`). The proxy believes the scheme: the origin is told
 * `X-Forwarded-Proto: https`, the room's cookie comes back `SameSite=None; Secure`, and an origin redirect to itself is
 * rewritten to `https://…`. README ("What the proxy believes"): without --trust-proxy "a client's forwarding
 * headers … are replaced by what the proxy sees itself — a client cannot claim HTTPS to get a Secure cookie";
 * issue 14 item 6. The request line is the client's to write as much as X-Forwarded-Proto is. Expected: what the
 * listener is (http), whatever scheme the request target names.
 */
import { describe, expect, it } from 'vitest'
import { raw } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from './targets.ts'

const FORMS = ['https://shop.example/x', 'HTTPS://shop.example/x', 'https://shop.example:443/x?q=1', 'https://evil.example/x']

for (const target of TARGETS) {
  describe(`break20 an absolute-form https target on a plain-http listener (${target})`, () => {
    const p = proxied(target, (socket) => void socket.write(`HTTP/1.1 302 Found\r\nLocation: ${p.origin.url}/next\r\nContent-Length: 2\r\n\r\nok`))

    for (const form of FORMS) {
      for (const user of ['new', 'admitted'] as const) {
        it(`${user} user, GET ${form}: the origin is told http, no Secure cookie, an http Location`, async () => {
          const before = p.origin.heads.length
          const cookie = user === 'admitted' ? `Cookie: __wroom=${p.ticket}\r\n` : ''
          const answer = await raw(p.port, `GET ${form} HTTP/1.1\r\nHost: shop.example\r\n${cookie}Connection: close\r\n\r\n`, 800)
          if (answer.startsWith('HTTP/1.1 400 ')) return // refusing the form outright is fair too
          expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 302 Found')
          const told = p.origin.heads.slice(before).map(([, head]) => /\r\nX-Forwarded-Proto: ([^\r]*)/i.exec(head)?.[1])
          expect(told).toEqual(['http'])
          expect(/\r\nlocation: ([^\r]*)/i.exec(answer)?.[1]).toBe('http://shop.example/next')
          const setCookie = /\r\nset-cookie: (__wroom=[^\r]*)/i.exec(answer)?.[1]
          if (user === 'new') expect(setCookie).toBeDefined()
          expect(setCookie ?? '').not.toMatch(/;\s*secure/i)
        }, 10_000)
      }
    }
  })
}
