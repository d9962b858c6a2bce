/// <reference types="node" />
/**
 * break20b: README — "a chunk-size line may have any number of leading zeros (a size above 2^48−1 is refused: a
 * 502 when it comes with the head, else a broken body)", framing "read as RFC 9112 writes it on every path".
 * The origin sends its head and a first chunk-size line in one packet, then a few bytes and closes. Expected:
 * above 2^48−1 (with or without leading zeros) a 502; at or below it, the head reaches the client and its body
 * is broken (no last chunk) — never a complete answer. FAILING on the node:http path (a request with a body; Node
 * CLI and CLI on Bun): above the bound the client gets the 200 head and a broken body, or no byte, or a lone
 * `\r\n` — never the 502 (node:http's parser takes sizes up to 2^64; the bound is the fast path's own reader's).
 * The fast path holds everywhere, and within the bound both paths hold.
 */
import { describe, expect, it } from 'vitest'
import { admitted } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from '../break20/targets.ts'
import { bodyOf } from './answers.ts'

const ABOVE = ['1000000000000', '0001000000000000', 'ffffffffffffffff', '1' + '0'.repeat(20)]
const WITHIN = ['ffffffffffff', '0000ffffffffffff', '000000000000000000000000000000ffff']

for (const target of TARGETS) {
  describe(`break20b chunk size bound (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const size = /^\S+ \/size\/(\w+)/.exec(head)?.[1]
      if (!size) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      socket.end(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n${size}\r\nsome bytes`)
    })
    for (const body of target === 'bun-serve' ? [false] : [false, true]) {
      for (const size of ABOVE) {
        it(`${size}, ${body ? 'node:http path' : 'fast path'}: 502`, async () => {
          const answer = await admitted(p.port, p.ticket, `/size/${size}`, { body, idleMs: 800 })
          expect(answer.split('\r\n')[0], JSON.stringify(answer.slice(0, 200))).toBe('HTTP/1.1 502 Bad Gateway')
        }, 10_000)
      }
      for (const size of WITHIN) {
        it(`${size}, ${body ? 'node:http path' : 'fast path'}: a 200 whose body is broken`, async () => {
          const answer = await admitted(p.port, p.ticket, `/size/${size}`, { body, idleMs: 800 })
          const read = bodyOf(answer)
          expect({ status: answer.split('\r\n')[0], complete: read.complete }, JSON.stringify(answer.slice(0, 200))).toEqual({ status: 'HTTP/1.1 200 OK', complete: false })
        }, 10_000)
      }
    }
  })
}
