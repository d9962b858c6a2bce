/// <reference types="node" />
/**
 * BROKEN (breakfast): the CLI's Node fast path reads the Host from `incoming.headers.host`, where Node keeps
 * only the first of several Host lines; the whole path reads them all (joined with ", "). With one admitted
 * ticket, a request carrying `Host: shop.example` then `Host: evil.example` is forwarded to the origin by the
 * fast path, where the whole path answers 421 (`--public-host` pinning); without pinning the origin sees a
 * different X-Forwarded-Host. Each pair of proxies is alike but for the fast path (on / off).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, baseConfig, mint, probe, startSide, stopSide, type Side } from './harness.ts'

const VARIANTS = [
  { name: '--public-host shop.example', host: 'shop.example', extra: { publicHosts: ['shop.example'], admin: { token: ADMIN_TOKEN, path: '/_room' } } },
  { name: '--public-host *.shop.example', host: 'a.shop.example', extra: { publicHosts: ['*.shop.example'] } },
  { name: '--public-host shop.example --trust-proxy 1', host: 'shop.example', extra: { publicHosts: ['shop.example'], trustProxy: 1 } },
  { name: 'no --public-host', host: 'shop.example', extra: {} },
]

describe.each(VARIANTS)('two Host lines with an admitted ticket: $name', ({ host, extra }) => {
  const sides: Side[] = []
  beforeAll(async () => {
    for (const fast of [true, false]) sides.push(await startSide(fast, (o) => baseConfig(o, extra)))
    for (const side of sides) await mint(side, host)
  })
  afterAll(async () => {
    for (const side of sides) await stopSide(side)
  })

  it('the fast path answers as the whole path does (status, body, what the origin sees)', async () => {
    const bytes = `GET /account HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example\r\nCookie: __wroom={T}\r\nConnection: close\r\n\r\n`
    const [fast, full] = [await probe(sides[0]!, bytes), await probe(sides[1]!, bytes)]
    expect(fast.answer.split('\r\n')[0]).toBe(full.answer.split('\r\n')[0])
    expect(fast.answer).toBe(full.answer)
    expect(fast.origin).toBe(full.origin)
  }, 30_000)
})
