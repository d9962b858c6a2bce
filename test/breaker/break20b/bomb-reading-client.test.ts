/// <reference types="node" />
/**
 * break20b: the decompression bomb of ./bomb-slow-client.test.ts read by a client that reads everything: the
 * proxy undoes `gzip` (and `gzip, gzip`) and the client must get all 256 MiB of zeros, framed and complete
 * (README: "the proxy undoes gzip and deflate … the client gets the body the origin meant").
 */
import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { proxied, TARGETS } from '../break20/targets.ts'

const DECODED = 256 * 1024 * 1024
const GZ = gzipSync(Buffer.alloc(DECODED), { level: 9 })
const GZ2 = gzipSync(GZ, { level: 9 })

/** Reads a whole answer (Connection: close): the head, the count of body bytes that are not zero, the body's length after dechunking, whether it ended with its last chunk. */
function fetchAll(port: number, request: string): Promise<{ head: string; length: number; nonZero: number; complete: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let head = ''
    let pending: Buffer = Buffer.alloc(0)
    let length = 0, nonZero = 0, complete = false, chunked = false, remaining = -1
    const consume = () => {
      for (;;) {
        if (remaining > 0) {
          const take = Math.min(remaining, pending.length)
          for (let i = 0; i < take; i++) if (pending[i] !== 0) nonZero++
          length += take; remaining -= take; pending = pending.subarray(take)
          if (remaining > 0) return
          remaining = -2 // CRLF after data
        }
        if (remaining === -2) { if (pending.length < 2) return; pending = pending.subarray(2); remaining = -1 }
        const eol = pending.indexOf('\r\n')
        if (eol === -1) return
        const size = parseInt(pending.subarray(0, eol).toString('latin1'), 16)
        pending = pending.subarray(eol + 2)
        if (size === 0) { complete = true; return }
        remaining = size
      }
    }
    socket.on('data', (d: Buffer) => {
      if (!head) {
        pending = Buffer.concat([pending, d])
        const at = pending.indexOf('\r\n\r\n')
        if (at === -1) return
        head = pending.subarray(0, at).toString('latin1')
        chunked = /\r\ntransfer-encoding: *chunked/i.test(head)
        pending = pending.subarray(at + 4)
        d = Buffer.alloc(0)
        if (!chunked) { length += pending.length; for (const b of pending) if (b) nonZero++; pending = Buffer.alloc(0) }
      }
      if (chunked) { pending = pending.length ? Buffer.concat([pending, d]) : d; consume() }
      else { length += d.length; for (const b of d) if (b) nonZero++ }
    })
    const done = () => resolve({ head: head || pending.toString('latin1').slice(0, 200), length, nonZero, complete })
    socket.on('close', done)
    socket.on('error', done)
    socket.write(request)
  })
}

for (const target of TARGETS) {
  describe(`break20b gzip bomb, read to its end (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      if (!/^GET \/bomb/.test(head)) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      const twice = head.includes('/bomb2')
      const bytes = twice ? GZ2 : GZ
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: gzip, ${twice ? 'gzip, ' : ''}chunked\r\n\r\n`)
      for (let at = 0; at < bytes.length; at += 16384) {
        const part = bytes.subarray(at, at + 16384)
        socket.write(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]))
      }
      socket.write('0\r\n\r\n')
    })
    for (const path of ['/bomb', '/bomb2']) {
      it(`${path}: the client gets all ${DECODED} zeros, complete`, async () => {
        const got = await fetchAll(p.port, `GET ${path} HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\nConnection: close\r\n\r\n`)
        expect({ length: got.length, nonZero: got.nonZero, complete: got.complete }, JSON.stringify(got.head)).toEqual({ length: DECODED, nonZero: 0, complete: true })
      }, 60_000)
    }
  })
}
