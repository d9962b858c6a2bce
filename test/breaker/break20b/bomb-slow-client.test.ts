/// <reference types="node" />
/**
 * break20b: a decompression bomb through `Transfer-Encoding: gzip, chunked` to a client that reads nothing.
 * The proxy now undoes transfer codings itself (README: "the proxy undoes gzip and deflate"); the promise of the
 * streaming path is that a slower client pauses the origin (backpressure), so the proxy's memory stays bounded
 * whatever the body's size. The origin sends at most ~260 KB (gzip of 256 MiB of zeros); the client sends its
 * request and never reads. Expected: the proxy's RSS grows by far less than the decoded size (bound 96 MiB).
 */
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { rawOrigin, sleep, stopAll, type Cli, type RawOrigin } from '../breakh1/helpers.ts'
import { startTarget, ticketFor, TARGETS } from '../break20/targets.ts'
import { afterAll, beforeAll } from 'vitest'

const DECODED = 256 * 1024 * 1024
const GZ = gzipSync(Buffer.alloc(DECODED), { level: 9 })
/** `gzip, gzip`: the same bomb in a few KB. */
const GZ2 = gzipSync(GZ, { level: 9 })
const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024

for (const target of TARGETS) {
  describe(`break20b gzip bomb to a client that reads nothing (${target})`, () => {
    let origin: RawOrigin
    let proxy: Cli
    let ticket = ''
    beforeAll(async () => {
      origin = await rawOrigin((socket, head) => {
        const twice = head.includes('/bomb2')
        const bytes = twice ? GZ2 : GZ
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: gzip, ${twice ? 'gzip, ' : ''}chunked\r\n\r\n`)
        for (let at = 0; at < bytes.length; at += 16384) {
          const part = bytes.subarray(at, at + 16384)
          socket.write(`${part.length.toString(16)}\r\n`)
          socket.write(part)
          socket.write('\r\n')
        }
        socket.write('0\r\n\r\n')
      })
      proxy = await startTarget(target, origin.url)
      ticket = await ticketFor(proxy.port)
    }, 30_000)
    afterAll(() => { stopAll(); origin?.close() })

    for (const path of ['/bomb', '/bomb2']) for (const body of target === 'bun-serve' ? [false] : [false, true]) {
      it(`${path}, ${body ? 'the node:http path' : 'the fast path'}: the proxy's memory stays bounded`, async () => {
        const pid = proxy.child.pid!
        const before = rssOf(pid)
        const socket = connect(proxy.port, '127.0.0.1')
        socket.on('error', () => {})
        let got = 0
        socket.on('data', (d) => { got += d.length; socket.pause() })
        socket.write(`GET ${path} HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${ticket}\r\n${body ? 'Content-Length: 1\r\n' : ''}Connection: close\r\n\r\n${body ? 'z' : ''}`)
        let peak = before
        for (let i = 0; i < 30; i++) {
          await sleep(150)
          try { peak = Math.max(peak, rssOf(pid)) } catch { break }
          if (peak - before > 400 * 1024 * 1024) break
        }
        socket.destroy()
        const grown = peak - before
        console.log(`${target} ${path} ${body ? 'node:http' : 'fast'}: RSS ${Math.round(before / 2 ** 20)} MiB -> peak ${Math.round(peak / 2 ** 20)} MiB; client got ${got} B`)
        expect(grown, `RSS grew ${Math.round(grown / 2 ** 20)} MiB for a ${path === '/bomb' ? GZ.length : GZ2.length} B gzip body to a client reading nothing`).toBeLessThan(96 * 1024 * 1024)
      }, 20_000)
    }
  })
}
