/// <reference types="node" />
/**
 * break20b — FAILING on the Node CLI and the CLI on Bun: a WebSocket upgrade whose origin-form request target
 * starts with `//` (RFC 9112 §3.2.1 origin-form = absolute-path, `//evil.example/admin` is one: an empty first
 * segment) reaches the origin as another path — `/admin?q=1` — because the upgrade path resolves the target
 * against the listener's base as a URL reference (node-upgrade.ts `new URL(incoming.url, base)`: `//host/…`
 * is a network-path reference, its first segment taken as a host) and forwards that URL's pathname. The plain
 * (non-upgrade) path forwards the same target as sent. The room judged one path and the origin serves another.
 * Expected: the origin's request line carries the client's target, as on the plain path.
 */
import { describe, expect, it } from 'vitest'
import { raw } from '../breakh1/helpers.ts'
import { proxied } from '../break20/targets.ts'

const PATHS = ['//evil.example/admin?q=1', '//evil.example', '//x//y/z', '/ok//double']

for (const target of ['node-cli', 'bun-cli'] as const) {
  describe(`break20b upgrade target starting with // (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      if (/\r\nupgrade: websocket/i.test(head)) return void socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n')
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
    })
    for (const path of PATHS) {
      it(`upgrade to ${path}: the origin gets GET ${path}`, async () => {
        const n = p.origin.heads.length
        const answer = await raw(p.port, `GET ${path} HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`, 500)
        const seen = p.origin.heads.slice(n).map(([, h]) => h.split('\r\n')[0])
        expect({ status: answer.split('\r\n')[0], seen }).toEqual({ status: 'HTTP/1.1 101 Switching Protocols', seen: [`GET ${path} HTTP/1.1`] })
      }, 10_000)
    }
  })
}
