/// <reference types="node" />
/**
 * break20b: a transfer-coded (gzip/deflate) origin body that does not decode — cut mid-stream, a bad CRC, bytes
 * after the gzip member, the wrong format — must reach the client as a broken body (README: "a body that does
 * not decode errors: the client sees a broken body"), never as a complete answer: a chunked answer ending in
 * its last chunk, or a Content-Length body whole. The chunk framing of the origin's answer itself is complete
 * in every case (the origin even keeps the connection), so only the decoding can tell.
 */
import { deflateRawSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { admitted } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from '../break20/targets.ts'

const TEXT = 'hello, world '.repeat(400)
const GZ = gzipSync(TEXT)
const badCrc = Buffer.from(GZ); badCrc[badCrc.length - 6]! ^= 0xff

/** Bodies by path: what the origin sends as the transfer-coded content. */
const CASES: Record<string, [coding: string, body: Buffer]> = {
  '/cut-half': ['gzip', GZ.subarray(0, GZ.length >> 1)],
  '/cut-trailer': ['gzip', GZ.subarray(0, GZ.length - 4)],
  '/bad-crc': ['gzip', badCrc],
  '/garbage-after': ['gzip', Buffer.concat([GZ, Buffer.from('GARBAGE-NOT-GZIP')])],
  '/raw-deflate': ['deflate', deflateRawSync(TEXT)],
  '/not-gzip': ['gzip', Buffer.from(TEXT)],
}

/** Whether a raw client answer presents itself as complete: a 2xx whose chunked body ends with its last chunk, or whose Content-Length body is all there. */
function complete(answer: string): boolean {
  const at = answer.indexOf('\r\n\r\n')
  if (at === -1 || !/^HTTP\/1\.1 2/.test(answer)) return false
  const head = answer.slice(0, at).toLowerCase()
  const body = answer.slice(at + 4)
  if (/\r\ntransfer-encoding: *chunked/.test(head)) return body.endsWith('\r\n0\r\n\r\n') || body === '0\r\n\r\n'
  const cl = /\r\ncontent-length: *(\d+)/.exec(head)
  return cl ? body.length >= Number(cl[1]) : false
}

for (const target of TARGETS) {
  describe(`break20b transfer-coded bodies that do not decode (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const path = /^GET (\S+)/.exec(head)?.[1] ?? ''
      const c = CASES[path]
      if (!c) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: ${c[0]}, chunked\r\n\r\n${c[1].length.toString(16)}\r\n`), c[1], Buffer.from('\r\n0\r\n\r\n')]))
    })
    for (const path of Object.keys(CASES)) {
      for (const body of target === 'bun-serve' ? [false] : [false, true]) {
        it(`${path}, ${body ? 'node:http path' : 'fast path'}: the client never gets it as a complete answer`, async () => {
          const answer = await admitted(p.port, p.ticket, path, { body, idleMs: 800 })
          expect(complete(answer), JSON.stringify(answer.slice(0, 160) + ' … ' + answer.slice(-40))).toBe(false)
        }, 10_000)
      }
    }
  })
}
