/// <reference types="node" />
/**
 * break20 — FAILING on every path (the fast path's own client and node:http alike, Node CLI, Bun CLI, Bun.serve):
 * an origin answer with `Transfer-Encoding: gzip, chunked` (a transfer coding: this hop's, RFC 9112 §6.1) reaches the
 * client with the chunk framing taken off and re-chunked, the Transfer-Encoding header dropped as hop-by-hop — but
 * the gzip coding neither decoded nor stated. The client reads the gzip bytes as the body itself (`\x1f\x8b…`
 * instead of `hello, world`), with no Content-Encoding or Transfer-Encoding to tell it. README: bodies pass
 * "as sent" and compressed ones keep their label. Expected: the body the origin meant, decoded by the proxy, or
 * its gzip bytes still labelled (either header), or a 502 — never unlabelled gzip.
 */
import { gunzipSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { admitted } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from './targets.ts'

const TEXT = 'hello, world '.repeat(20)
const GZ = gzipSync(TEXT)

/** What a client makes of an answer: the text, gunzipped when a header says gzip. */
function meaning(answer: string): string {
  if (answer.startsWith('HTTP/1.1 502 ')) return TEXT
  const at = answer.indexOf('\r\n\r\n')
  const head = answer.slice(0, at).toLowerCase()
  let rest = Buffer.from(answer.slice(at + 4), 'latin1')
  if (/\r\ntransfer-encoding: *chunked/.test(head)) {
    const parts: Buffer[] = []
    for (;;) {
      const eol = rest.indexOf('\r\n')
      const size = parseInt(rest.subarray(0, eol).toString('latin1'), 16)
      if (!(size > 0)) break
      parts.push(rest.subarray(eol + 2, eol + 2 + size))
      rest = rest.subarray(eol + 4 + size)
    }
    rest = Buffer.concat(parts)
  }
  const labelled = /\r\n(content-encoding: *gzip|transfer-encoding: *gzip)/.test(head)
  return labelled ? gunzipSync(rest).toString('latin1') : rest.toString('latin1')
}

for (const target of TARGETS) {
  describe(`break20 Transfer-Encoding: gzip, chunked (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      if (!head.includes('/gz')) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: gzip, chunked\r\n\r\n${GZ.length.toString(16)}\r\n`), GZ, Buffer.from('\r\n0\r\n\r\n')]))
      })

    for (const body of target === 'bun-serve' ? [false] : [false, true]) {
      it(`${body ? 'the node:http path' : 'the fast path'}: the client can read the text the origin sent`, async () => {
        const answer = await admitted(p.port, p.ticket, '/gz', { body, idleMs: 800 })
        expect(meaning(answer), JSON.stringify(answer.slice(0, 200))).toBe(TEXT)
      }, 10_000)
    }
  })
}
