/// <reference types="node" />
/**
 * break20b: transfer codings the proxy says it undoes (README: "the proxy undoes gzip and deflate … the client
 * gets the body the origin meant") in the forms RFC 9112 §6.1/§7 allows: stacked codings, x-gzip, any case,
 * parameters, several Transfer-Encoding lines, a close-delimited body, a body of several chunks past the
 * proxy's whole-body size, and a gzip stream of several members (RFC 1952 §2.2: a gzip file is a series of
 * members; `gzip -d` and node:zlib read them all). Expected: the client reads exactly the origin's text.
 */
import { deflateSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { admitted } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from '../break20/targets.ts'
import { bodyOf } from './answers.ts'

const TEXT = Array.from({ length: 9000 }, (_, i) => `line ${i} ${(i * 2654435761) % 1000003}\n`).join('')
const half = TEXT.length >> 1

const chunked = (body: Buffer): Buffer => {
  const parts: Buffer[] = []
  for (let at = 0; at < body.length; at += 7001) {
    const p = body.subarray(at, at + 7001)
    parts.push(Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n'))
  }
  return Buffer.concat([...parts, Buffer.from('0\r\n\r\n')])
}

/** path -> [header lines, body bytes as sent, closes after] */
const CASES: Record<string, [string, Buffer, boolean?]> = {
  '/gzip-gzip': ['Transfer-Encoding: gzip, gzip, chunked', chunked(gzipSync(gzipSync(TEXT)))],
  '/gzip-deflate': ['Transfer-Encoding: gzip, deflate, chunked', chunked(deflateSync(gzipSync(TEXT)))],
  '/x-gzip-upper': ['Transfer-Encoding: X-GZIP ,Chunked', chunked(gzipSync(TEXT))],
  '/param': ['Transfer-Encoding: gzip;q=0.5, chunked', chunked(gzipSync(TEXT))],
  '/two-lines': ['Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked', chunked(gzipSync(TEXT))],
  '/identity-gzip': ['Transfer-Encoding: identity, gzip, chunked', chunked(gzipSync(TEXT))],
  '/until-close': ['Transfer-Encoding: gzip\r\nConnection: close', gzipSync(TEXT), true],
  '/members': ['Transfer-Encoding: gzip, chunked', chunked(Buffer.concat([gzipSync(TEXT.slice(0, half)), gzipSync(TEXT.slice(half))]))],
}

for (const target of TARGETS) {
  describe(`break20b transfer codings undone (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const c = CASES[/^GET (\S+)/.exec(head)?.[1] ?? '']
      if (!c) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n${c[0]}\r\n\r\n`), c[1]]))
      if (c[2]) socket.end()
    })
    for (const path of Object.keys(CASES)) {
      for (const body of target === 'bun-serve' ? [false] : [false, true]) {
        it(`${path}, ${body ? 'node:http path' : 'fast path'}: the client reads the origin's text`, async () => {
          const answer = await admitted(p.port, p.ticket, path, { body, idleMs: 800 })
          const got = bodyOf(answer)
          const ok = answer.startsWith('HTTP/1.1 200') && got.complete && got.body === TEXT
          expect(ok, `${got.body.length} of ${TEXT.length} chars, complete ${got.complete}; ${JSON.stringify(answer.slice(0, 200))}`).toBe(true)
        }, 10_000)
      }
    }
  })
}
