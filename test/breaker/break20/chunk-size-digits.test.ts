/// <reference types="node" />
/**
 * break20 — FAILING: a chunked origin answer whose chunk-size line has more than 12 hex digits (leading zeros:
 * RFC 9112 §7.1 `chunk-size = 1*HEXDIG`, no bound on its digits) reaches the client as NOTHING on the proxy's own
 * HTTP/1.1 client (src/proxy/h1.ts reads `^[0-9a-fA-F]{1,12}`): on the Node CLI the client's socket closes with
 * no byte, on the Bun CLI it gets a stray "\r\n", behind Bun.serve nothing — while the node:http path of the same
 * proxy (a request with a body) passes the very same answer as 200 with its body. README: the answer's "body bytes
 * passed on as sent"; "Anything it does not understand is an error (the proxy answers 502), never a guess" — here
 * neither the body nor a 502. Generated: sizes 1-300, 13-20 digits, upper and lower case.
 */
import { describe, expect, it } from 'vitest'
import { admitted } from '../breakh1/helpers.ts'
import { proxied, seededRandom, TARGETS } from './targets.ts'


const cases = Array.from({ length: 6 }, (_, i) => {
  const r = seededRandom(`break20-chunk-${i}`)
  const size = 1 + Math.floor(r() * 300)
  const digits = 13 + Math.floor(r() * 8)
  const hex = size.toString(16)
  const line = (r() < 0.5 ? hex.toUpperCase() : hex).padStart(digits, '0')
  const body = 'b'.repeat(size)
  return { size, line, body, reply: `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${line}\r\n${body}\r\n0\r\n\r\n` }
})

for (const target of TARGETS) {
  describe(`break20 chunk sizes with leading zeros (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const k = Number(new URL(head.split(' ')[1]!, 'http://x').searchParams.get('k'))
      socket.write(cases[k]?.reply ?? 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      })

    cases.forEach(({ size, line, body }, k) => {
      it(`chunk-size line ${line} (${size} bytes): the client gets 200 and the body, as on the node:http path`, async () => {
        const reference = await admitted(p.port, p.ticket, `/c?k=${k}`, { body: true, idleMs: 800 })
        const fast = await admitted(p.port, p.ticket, `/c?k=${k}`, { idleMs: 800 })
        const decoded = (a: string) => a.split('\r\n')[0] + ' ' + (a.includes(body) ? 'body' : 'no body')
        if (target !== 'bun-serve') expect(decoded(reference)).toBe('HTTP/1.1 200 OK body') // the node:http path, as a control (Bun.serve answers a GET with a body 501)
        expect(decoded(fast), JSON.stringify(fast.slice(0, 200))).toBe('HTTP/1.1 200 OK body')
      }, 10_000)
    })
  })
}
