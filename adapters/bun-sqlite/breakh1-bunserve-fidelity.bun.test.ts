// breakh1 — FAILING on be82c08 (Bun.serve + createProxyApp + nodeTransport: the fetch-style fast path,
// src/proxy/fast-h1.ts). README: "the client gets the origin's bytes" / "the origin's answer comes back as a
// Response of its status, header lines ... and body bytes as sent", and the origin gets "the client's header lines
// in their order ... (on Bun lower-cased)".
// 1. An origin answer with no Content-Type reaches the client with `content-type: application/octet-stream`
//    (Bun's Response adds it to a byte body): a browser then downloads what it would have sniffed/rendered.
//    The node:http path on Bun.serve does the same; the CLI (node-server) does not.
// 2. Repeated request headers reach the origin merged (`x-dup: 1, 2`) and all headers sorted by name, not in the
//    client's order: the README mentions only lower-casing for Bun.
import { afterAll, beforeAll, expect, it } from 'bun:test'
import { createServer, connect, type Server } from 'node:net'
import { createProxyApp } from '../../src/proxy/proxy.ts'
import { nodeTransport } from '../../src/proxy/node.ts'

let origin: Server
let server: { port: number; stop(force?: boolean): void }
const heads: string[] = []
let ticket = ''

const raw = (bytes: string) => new Promise<string>((resolve) => {
  const s = connect(server.port, '127.0.0.1', () => s.write(bytes))
  let out = ''
  const timer = setTimeout(() => { s.destroy(); resolve(out) }, 1500)
  s.on('data', (d) => (out += d.toString('latin1')))
  s.on('close', () => { clearTimeout(timer); resolve(out) })
  s.on('error', () => resolve(out))
})

beforeAll(async () => {
  origin = createServer((s) => {
    let buf = ''
    s.on('error', () => {})
    s.on('data', (d) => {
      buf += d.toString('latin1')
      for (let e = buf.indexOf('\r\n\r\n'); e !== -1; e = buf.indexOf('\r\n\r\n')) {
        const h = buf.slice(0, e)
        buf = buf.slice(e + 4)
        heads.push(h)
        s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      }
    })
  })
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r))
  const app = createProxyApp({ origin: `http://127.0.0.1:${(origin.address() as { port: number }).port}`, transport: nodeTransport(), room: { secret: 'breakh1-secret-0123456789-abcdefghijklmnop', totalActiveUsers: 1e6, newUsersPerMinute: 1e6 } })
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req: Request, srv: unknown) => app.fetch(req, srv) })
  const minted = await raw('GET /mint HTTP/1.1\r\nHost: shop.example\r\nConnection: close\r\n\r\n')
  ticket = /set-cookie: (__wroom=[^;\r\n]+)/i.exec(minted)![1]!
  await raw(`GET /warm HTTP/1.1\r\nHost: shop.example\r\nCookie: ${ticket}\r\nConnection: close\r\n\r\n`)
})
afterAll(() => { server?.stop(true); origin?.close() })

it('[FAILS] breakh1: an origin answer without Content-Type reaches the client without one', async () => {
  const answer = await raw(`GET /plain HTTP/1.1\r\nHost: shop.example\r\nCookie: ${ticket}\r\nConnection: close\r\n\r\n`)
  expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
  expect(answer.toLowerCase()).not.toContain('content-type:')
})

it('[FAILS] breakh1: repeated request headers reach the origin as separate lines, in the client\'s order', async () => {
  heads.length = 0
  await raw(`GET /dup HTTP/1.1\r\nHost: shop.example\r\nX-Dup: 1\r\nAccept: a\r\nX-Dup: 2\r\nCookie: ${ticket}\r\nConnection: close\r\n\r\n`)
  const lines = heads.join('\n').toLowerCase().split('\r\n').filter((l) => /^(x-dup|accept):/.test(l))
  expect(lines).toEqual(['x-dup: 1', 'accept: a', 'x-dup: 2'])
})
