/// <reference types="node" />
/**
 * break20b guard: origin heads are now kept by their exact text with the client's lines beside them
 * (h1-head.ts readAnswerHeadKept, fast-h1.ts clientLinesOf), except heads with a Location or an origin command,
 * whose rewriting depends on the request. The same head text (a Location in any case, the command header in
 * any case) answered to clients that reached the proxy by different Host names must be rewritten for each one:
 * no client gets a Location pointed at another client's host, and every revoke is obeyed and stripped.
 */
import { describe, expect, it } from 'vitest'
import { raw } from '../breakh1/helpers.ts'
import { proxied, seededRandom, TARGETS } from '../break20/targets.ts'

const NAMES = ['Location', 'LOCATION', 'location', 'LoCaTiOn']

for (const target of TARGETS) {
  describe(`break20b kept heads with a Location (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const name = /^GET \/loc\/(\d)/.exec(head)?.[1]
      if (name !== undefined) return void socket.write(`HTTP/1.1 302 Found\r\n${NAMES[Number(name)]}: http://127.0.0.1:${p.origin.port}/next?x=1\r\nContent-Length: 0\r\n\r\n`)
      return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
    it('each client gets the Location for its own Host, 4 spellings x 24 requests', async () => {
      const random = seededRandom(`location-${target}`)
      for (let i = 0; i < 24; i++) {
        const host = `h${Math.floor(random() * 1000)}.example`
        const n = i % NAMES.length
        const a = await raw(p.port, `GET /loc/${n} HTTP/1.1\r\nHost: ${host}\r\nCookie: __wroom=${p.ticket}\r\nConnection: close\r\n\r\n`, 500)
        const loc = /\r\nlocation: *([^\r\n]*)/i.exec(a)?.[1]
        expect(loc, JSON.stringify(a.slice(0, 300))).toBe(`http://${host}/next?x=1`)
      }
    }, 30_000)
  })
}
