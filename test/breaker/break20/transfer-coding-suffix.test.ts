/// <reference types="node" />
/**
 * break20 — FAILING: an origin answer whose Transfer-Encoding's last coding merely ENDS in the letters "chunked"
 * (`xchunked`, `notchunked`, `gzip, x-chunked`) is read by the proxy's own HTTP/1.1 client as chunked
 * (src/proxy/h1-head.ts: `value…endsWith('chunked')`). RFC 9112 §6.3: when the final coding is not `chunked`,
 * the body runs until the connection closes — which is how the node:http path of the same proxy reads it. So the
 * fast path unframes bytes the origin never framed, and cuts the body at the first `0\r\n\r\n` inside it: the
 * client gets `ok` where the origin sent `2\r\nok\r\n0\r\n\r\nmore`, and the connection is judged reusable.
 * README: "body bytes passed on as sent"; "Anything it does not understand is an error …, never a guess".
 * Expected: the origin's bytes until close (as node:http) or a 502 — never a different body.
 */
import { describe, expect, it } from 'vitest'
import { admitted } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from './targets.ts'

const CODINGS = ['xchunked', 'notchunked', 'gzip, x-chunked']
const SENT = '2\r\nok\r\n0\r\n\r\nmore'

/** The body the client got: de-chunked when the proxy re-chunked it, else as sent. */
function bodyOf(answer: string): string {
  const at = answer.indexOf('\r\n\r\n')
  if (at === -1) return `(no head) ${JSON.stringify(answer)}`
  const head = answer.slice(0, at).toLowerCase()
  let rest = answer.slice(at + 4)
  if (!head.includes('\r\ntransfer-encoding: chunked')) return rest
  let out = ''
  for (;;) {
    const eol = rest.indexOf('\r\n')
    const size = parseInt(rest.slice(0, eol), 16)
    if (!(size > 0)) return out
    out += rest.slice(eol + 2, eol + 2 + size)
    rest = rest.slice(eol + 4 + size)
  }
}

for (const target of TARGETS) {
  describe(`break20 Transfer-Encoding ending in "chunked" but not chunked (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const k = new URL(head.split(' ')[1]!, 'http://x').searchParams.get('k')
      if (k === null) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      socket.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: ${CODINGS[Number(k)]}\r\n\r\n${SENT}`) // the body runs until close
      })

    CODINGS.forEach((coding, k) => {
      it(`Transfer-Encoding: ${coding}: the client gets the bytes the origin sent until close, or a 502`, async () => {
        if (target !== 'bun-serve') {
          const reference = await admitted(p.port, p.ticket, `/t?k=${k}`, { body: true, idleMs: 800 })
          expect(bodyOf(reference)).toBe(SENT) // the node:http path, as a control
        }
        const fast = await admitted(p.port, p.ticket, `/t?k=${k}`, { idleMs: 800 })
        const got = fast.startsWith('HTTP/1.1 502 ') ? SENT : bodyOf(fast)
        expect(got, JSON.stringify(fast.slice(0, 300))).toBe(SENT)
      }, 10_000)
    })
  })
}
