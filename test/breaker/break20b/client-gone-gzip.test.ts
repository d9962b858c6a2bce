/// <reference types="node" />
/**
 * break20b: a client that goes away mid-body. The proxy's body streams with backpressure (a slower client pauses
 * the origin) and a client gone aborts the origin's exchange — its connection is closed, not left paused with
 * a half-read answer. With `Transfer-Encoding: gzip, chunked` the body now passes through a decoder (node:zlib on
 * the Node CLI's own client, DecompressionStream elsewhere): the client's going must still reach the origin.
 * The origin sends a long body it never ends (256 MiB of zeros, gzipped; or the same bytes uncoded for
 * comparison); the client reads 64 KiB and closes. Expected: the origin's connection closes within 3 s.
 */
import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { sleep } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from '../break20/targets.ts'

const GZ = gzipSync(Buffer.alloc(256 * 1024 * 1024), { level: 9 })

/** The origin connections that were sent an endless body. */
const serving = new Set<import('node:net').Socket>()

for (const target of TARGETS) {
  describe(`break20b client gone mid-body (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      if (!/^GET \/(plain|gz) /.test(head)) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      serving.add(socket)
      const coded = head.includes('/gz')
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: ${coded ? 'gzip, ' : ''}chunked\r\n\r\n`)
      const bytes = coded ? GZ : Buffer.alloc(64 * 1024 * 1024)
      for (let at = 0; at < bytes.length; at += 16384) {
        const part = bytes.subarray(at, at + 16384)
        socket.write(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]))
      }
      // never the last chunk: the answer is cut only by the proxy's abort
    })
    for (const path of ['/plain', '/gz']) {
      for (const body of target === 'bun-serve' ? [false] : [false, true]) {
        it(`${path}, ${body ? 'node:http path' : 'fast path'}: the origin's connection is closed once the client is gone`, async () => {
          serving.clear()
          const socket = connect(p.port, '127.0.0.1')
          socket.on('error', () => {})
          let got = 0
          const enough = new Promise<void>((resolve) => socket.on('data', (d) => { got += d.length; if (got > 64 * 1024) resolve() }))
          socket.write(`GET ${path} HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\n${body ? 'Content-Length: 1\r\n' : ''}\r\n${body ? 'z' : ''}`)
          await Promise.race([enough, sleep(5000)])
          const mine = [...serving]
          socket.destroy()
          let open = mine.length
          for (let i = 0; i < 30 && open > 0; i++) {
            await sleep(100)
            open = mine.filter((s) => !s.destroyed && s.readyState !== 'closed' && p.origin.sockets.has(s)).length
          }
          for (const s of mine) s.destroy()
          expect(got, 'the client got a body').toBeGreaterThan(64 * 1024)
          expect(mine.length, 'the origin was asked').toBe(1)
          expect(open, `origin connections still open 3 s after the client left (${mine.length} used)`).toBe(0)
        }, 15_000)
      }
    }
  })
}
