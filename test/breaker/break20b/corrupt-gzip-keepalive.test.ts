/// <reference types="node" />
/**
 * break20b — a transfer-coded body that does not decode (gzip cut in half, inside complete chunk framing) on a
 * kept-alive client connection, the client's next request pipelined behind it. README: "a body that does not
 * decode errors: the client sees a broken body" — never a short one presented as complete. FAILING on the CLI
 * on Bun: the client gets `HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n` — a 200 without Content-Length or
 * chunking, so its body runs until close: an empty body, complete when the connection closes. Expected: no
 * complete 2xx answer (a broken connection, a chunked body without its last chunk, a short Content-Length).
 * Not gzip's alone: an origin that sends a chunked head and closes before any body byte (`/cut0`, no coding)
 * gets the same bare 200 on the CLI on Bun (with `Connection: close` from the client: a lone `\r\n`).
 */
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { raw } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from '../break20/targets.ts'

const GZ = gzipSync('hello, world '.repeat(400))
const CUTS = { half: GZ.subarray(0, GZ.length >> 1), 'no-trailer': GZ.subarray(0, GZ.length - 8) }

/** Whether the first answer in a client's bytes (read until the connection closed) presents itself as a complete 2xx. */
function firstComplete(bytes: string): boolean {
  const at = bytes.indexOf('\r\n\r\n')
  if (at === -1 || !/^HTTP\/1\.[01] 2/.test(bytes)) return false
  const head = bytes.slice(0, at).toLowerCase()
  const body = bytes.slice(at + 4)
  if (/\r\ntransfer-encoding: *chunked/.test(head)) return /(^|\r\n)0\r\n\r\n/.test(body)
  const cl = /\r\ncontent-length: *(\d+)/.exec(head)
  if (cl) return body.length >= Number(cl[1])
  return true // no framing: the body ends when the connection closes, and it did
}

for (const target of TARGETS) {
  describe(`break20b undecodable gzip on a kept-alive connection (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      if (head.startsWith('GET /cut0')) return void socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n')
      const cut = /^GET \/bad\/(\S+)/.exec(head)?.[1] as keyof typeof CUTS | undefined
      if (!cut) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond')
      const b = CUTS[cut]
      socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: gzip, chunked\r\n\r\n${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n0\r\n\r\n')]))
    })
    for (const cut of Object.keys(CUTS)) {
      for (const pipelined of [false, true]) {
        for (const body of target === 'bun-serve' ? [false] : [false, true]) {
          it(`${cut}, ${pipelined ? 'a request pipelined behind' : 'alone, kept alive'}, ${body ? 'node:http path' : 'fast path'}: no complete 2xx`, async () => {
            const z = body ? 'Content-Length: 1\r\n\r\nz' : '\r\n'
            const next = pipelined ? `GET /ok HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\n\r\n` : ''
            const answer = await raw(p.port, `GET /bad/${cut} HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\n${z}${next}`, 1500)
            expect(firstComplete(answer), JSON.stringify(answer.slice(0, 300))).toBe(false)
          }, 10_000)
        }
      }
    }
    for (const body of target === 'bun-serve' ? [false] : [false, true]) {
      it(`an origin gone after a chunked head, no coding, ${body ? 'node:http path' : 'fast path'}: no complete 2xx`, async () => {
        const answer = await raw(p.port, `GET /cut0 HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\n${body ? 'Content-Length: 1\r\n\r\nz' : '\r\n'}`, 1500)
        expect(firstComplete(answer), JSON.stringify(answer.slice(0, 300))).toBe(false)
      }, 10_000)
    }
  })
}
