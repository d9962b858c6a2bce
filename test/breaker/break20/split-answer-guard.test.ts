/// <reference types="node" />
/**
 * break20 — HELD (guard): an origin answer cut into two TCP packets at EVERY byte boundary (status line, inside a
 * header name, between CR and LF, between the blank line's CRLFs, inside a chunk-size line, its extension, the
 * chunk data, the last chunk, a 103's head) reaches the client exactly as the same answer sent in one packet:
 * status line, header lines (repeated Set-Cookie, a Latin-1 value), body. On the Node CLI, the CLI on Bun and
 * Bun.serve, through the fast path's own client (the new one-pass head reader, src/proxy/h1-head.ts).
 */
import { describe, expect, it } from 'vitest'
import { setTimeout as sleep } from 'node:timers/promises'
import { admitted } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from './targets.ts'

const SHAPES: Record<string, string> = {
  length: 'HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nX-Latin: caf\xe9\xff\r\nSet-Cookie: b=2\r\nContent-Length: 5\r\n\r\nhello',
  chunked: 'HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 201 Created\r\nX-B: two words\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\n\r\n',
}

/**
 * Date and the room's cookie aside (they tick), and this hop's framing aside: the body de-chunked when the proxy re-chunked it, and a
 * Content-Length the origin did not send (Bun.serve frames a body that came whole by its length, a streamed one chunked).
 */
function normal(answer: string, originLength: boolean): string {
  // The room's own renewal cookie aside too: a ticket comes due once a minute of the real clock.
  let text = answer.replace(/\r\ndate: [^\r]*/i, '').replace(/\r\nset-cookie: __wroom=[^\r]*/gi, '')
  if (!originLength) text = text.replace(/\r\ncontent-length: [^\r]*/i, '')
  const at = text.indexOf('\r\n\r\n')
  const head = text.slice(0, at)
  let rest = text.slice(at + 4)
  if (!/\r\ntransfer-encoding: chunked/i.test(head)) return text
  let body = ''
  for (let eol = rest.indexOf('\r\n'), size = parseInt(rest.slice(0, eol), 16); size > 0; eol = rest.indexOf('\r\n'), size = parseInt(rest.slice(0, eol), 16)) {
    body += rest.slice(eol + 2, eol + 2 + size)
    rest = rest.slice(eol + 4 + size)
  }
  return `${head.replace(/\r\ntransfer-encoding: chunked/i, '')}\r\n\r\n${body}`
}

for (const target of TARGETS) {
  describe(`break20 answers split at every byte (${target})`, () => {
    const p = proxied(target, async (socket, head) => {
      socket.setNoDelay(true)
      const url = new URL(head.split(' ')[1]!, 'http://x')
      const shape = SHAPES[url.searchParams.get('shape') ?? '']
      if (!shape) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      const bytes = Buffer.from(shape, 'latin1')
      const cut = Number(url.searchParams.get('cut') ?? bytes.length)
      socket.write(bytes.subarray(0, cut))
      await sleep(3)
      if (cut < bytes.length) socket.write(bytes.subarray(cut))
      })

    for (const [name, shape] of Object.entries(SHAPES)) {
      it(`${name}: every cut gives the client the answer the whole packet gives`, async () => {
        const framed = /\r\ncontent-length:/i.test(shape)
        const whole = normal(await admitted(p.port, p.ticket, `/s?shape=${name}`, { idleMs: 300 }), framed)
        expect(whole).toContain('hello')
        const differ: string[] = []
        for (let cut = 1; cut < shape.length; cut++) {
          const got = normal(await admitted(p.port, p.ticket, `/s?shape=${name}&cut=${cut}`, { idleMs: 300 }), framed)
          if (got !== whole) differ.push(`cut ${cut} (${JSON.stringify(shape.slice(Math.max(0, cut - 6), cut))}|${JSON.stringify(shape.slice(cut, cut + 6))}): ${JSON.stringify(got.slice(0, 160))}`)
        }
        expect(differ).toEqual([])
      }, 120_000)
    }
  })
}
