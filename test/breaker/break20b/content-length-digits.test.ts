/// <reference types="node" />
/**
 * break20b — an origin's `Content-Length` with leading zeros (RFC 9110 §8.6 `Content-Length = 1*DIGIT`: any
 * number of digits; `0000000000000000002` is 2). README: "Framing is read as RFC 9112 writes it on every path"
 * — the fix for chunk sizes let any number of leading zeros through with the value bounded; the fast path's
 * own client (h1-head.ts `decimal`, at most 15 digits) still refuses a Content-Length of 16 or more digits and
 * answers 502, where the node:http path passes the answer. Expected: the client gets `ok` on every path.
 */
import { describe, expect, it } from 'vitest'
import { admitted } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from '../break20/targets.ts'

const DIGITS = [15, 16, 17, 20, 24]

for (const target of TARGETS) {
  describe(`break20b Content-Length with leading zeros (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const n = Number(/^\S+ \/cl\/(\d+)/.exec(head)?.[1] ?? 1)
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${'2'.padStart(n, '0')}\r\n\r\nok`)
    })
    for (const n of DIGITS) {
      for (const body of target === 'bun-serve' ? [false] : [false, true]) {
        it(`${n} digits, ${body ? 'node:http path' : 'fast path'}: the client gets the answer`, async () => {
          const answer = await admitted(p.port, p.ticket, `/cl/${n}`, { body, idleMs: 600 })
          expect(answer.slice(0, 15), JSON.stringify(answer.slice(0, 120))).toBe('HTTP/1.1 200 OK')
          expect(answer.endsWith('\r\n\r\nok')).toBe(true)
        }, 10_000)
      }
    }
  })
}
