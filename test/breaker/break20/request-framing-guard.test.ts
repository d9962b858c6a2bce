/// <reference types="node" />
/**
 * break20 — HELD (guard): request smuggling through the proxy. An admitted client's request whose framing two
 * parsers could read apart (Transfer-Encoding with Content-Length, in either order; `identity, chunked`; an unknown
 * coding; two Content-Lengths; two Transfer-Encodings), carrying a whole second request in its body, gets 400 from
 * the proxy on every target (the Node CLI, the CLI on Bun, Bun.serve): the origin never sees the hidden request,
 * and the next request goes through as usual.
 */
import { describe, expect, it } from 'vitest'
import { raw } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from './targets.ts'

const HIDDEN = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n'
const CHUNKED = `${HIDDEN.length.toString(16)}\r\n${HIDDEN}\r\n0\r\n\r\n`
const FRAMINGS: Record<string, string> = {
  'TE then CL 0': `Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n${CHUNKED}`,
  'CL 0 then TE': `Content-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n${CHUNKED}`,
  'TE and a short CL': `Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n${CHUNKED}`,
  'identity, chunked': `Transfer-Encoding: identity, chunked\r\nContent-Length: 0\r\n\r\n${CHUNKED}`,
  'unknown coding': `Transfer-Encoding: xchunked\r\nContent-Length: 0\r\n\r\n${CHUNKED}`,
  'two Content-Lengths': `Content-Length: 0\r\nContent-Length: ${HIDDEN.length}\r\n\r\n${HIDDEN}`,
  'two Transfer-Encodings': `Transfer-Encoding: chunked\r\nTransfer-Encoding: x\r\n\r\n${CHUNKED}`,
}

for (const target of TARGETS) {
  describe(`break20 ambiguous request framing (${target})`, () => {
    const p = proxied(target, (socket) => void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'))

    for (const [name, framing] of Object.entries(FRAMINGS)) {
      for (const method of ['POST', 'GET']) {
        it(`${method} with ${name}: 400, and the origin never sees the hidden request`, async () => {
          const before = p.origin.heads.length
          const answer = await raw(p.port, `${method} /s HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\n${framing}`, 400)
          const after = await raw(p.port, `GET /after HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\nConnection: close\r\n\r\n`, 300)
          expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request')
          expect(after.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
          expect(p.origin.heads.slice(before).map(([, head]) => head.split('\r\n')[0])).toEqual(['GET /after HTTP/1.1'])
        }, 10_000)
      }
    }
  })
}
