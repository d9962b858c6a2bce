/// <reference types="node" />
/**
 * break20b — FAILING on the Node CLI and the CLI on Bun (Bun.serve holds): an absolute-form request target
 * whose scheme is written in upper or mixed case (`GET HTTP://shop.example/a HTTP/1.1`, `Https://…`) is
 * answered 400, while the same target in lower case is forwarded. RFC 9112 §3.2.2: a server MUST accept the
 * absolute-form; RFC 3986 §3.1 / RFC 9110 §4.2.3: the scheme is case-insensitive. README: "of an absolute-form
 * target (`GET https://shop.example/x HTTP/1.1`) only the path counts — the scheme is the listener's". (The 400
 * is @hono/node-server's: it takes a target as absolute only when it starts with lower-case `http://` or
 * `https://`, and otherwise fails to build a URL from it.) Expected: the origin gets `GET /a`, with
 * X-Forwarded-Proto of the listener (http), as for the lower-case spelling.
 */
import { describe, expect, it } from 'vitest'
import { raw } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from '../break20/targets.ts'

const SPELLINGS = ['http', 'HTTP', 'Http', 'https', 'HTTPS', 'hTTpS']

for (const target of TARGETS) {
  describe(`break20b absolute-form scheme case (${target})`, () => {
    const p = proxied(target, (socket) => void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'))
    for (const scheme of SPELLINGS) {
      it(`GET ${scheme}://shop.example/a is forwarded as GET /a, X-Forwarded-Proto: http`, async () => {
        const n = p.origin.heads.length
        const answer = await raw(p.port, `GET ${scheme}://shop.example/a HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\nConnection: close\r\n\r\n`, 600)
        const seen = p.origin.heads.slice(n).map(([, h]) => `${h.split('\r\n')[0]} XFP=${/\r\nx-forwarded-proto: *(\S+)/i.exec(h)?.[1]}`)
        expect({ status: answer.split('\r\n')[0], seen }).toEqual({ status: 'HTTP/1.1 200 OK', seen: ['GET /a HTTP/1.1 XFP=http'] })
      }, 10_000)
    }
  })
}
