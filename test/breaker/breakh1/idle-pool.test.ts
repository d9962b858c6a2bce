/// <reference types="node" />
/**
 * breakh1 — was FAILING on be82c08 (fixed: H1Pool keeps at most 256 idle) (differential against node:http; the README promises no number, so this is a
 * bound the old path had and the new pool dropped). After a burst of N concurrent admitted bodiless requests
 * the fast path's pool keeps every connection it opened idle (N sockets on the proxy and on the origin, until
 * keepAliveMs, 4 s), with no cap: the node:http Agent the proxy used before keeps at most 256 free sockets
 * (maxFreeSockets' default). 600 here; a burst of 20,000 keeps 20,000 file descriptors open on both sides.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { request, Agent } from 'node:http'
import { mint, rawOrigin, sleep, startCli, stopAll, type RawOrigin } from './helpers.ts'

let origin: RawOrigin | undefined
afterAll(() => { stopAll(); origin?.close() })

async function burst(body: boolean): Promise<{ opened: number; idle: number; ok: number }> {
  origin = await rawOrigin((s, h) => setTimeout(() => s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'), h.includes(' /x ') ? 300 : 0))
  // Open connections by id (rawOrigin counted this one already): only those that carried the burst count, not the
  // other pool's (the node:http agent keeps the new user's /mint connection).
  const alive = new Set<number>()
  origin.server.on('connection', (s) => { const id = origin!.conns; alive.add(id); s.on('close', () => alive.delete(id)) })
  const cli = await startCli(origin.url)
  const ticket = await mint(cli.port)
  const opened0 = origin.conns
  const agent = new Agent({ keepAlive: false })
  let ok = 0
  await Promise.all(Array.from({ length: 600 }, () => new Promise<void>((resolve) => {
    const rq = request({ port: cli.port, host: '127.0.0.1', method: body ? 'POST' : 'GET', path: '/x', agent, headers: { host: 'shop.example', cookie: `__wroom=${ticket}`, ...(body ? { 'content-length': 1 } : {}) } }, (rs) => { rs.resume(); rs.on('end', () => { if (rs.statusCode === 200) ok++; resolve() }) })
    rq.on('error', () => resolve())
    rq.end(body ? 'z' : undefined)
  })))
  await sleep(1000)
  const burstConns = new Set(origin.heads.filter(([, h]) => h.includes(' /x ')).map(([id]) => id))
  const result = { opened: origin.conns - opened0, idle: [...alive].filter((id) => burstConns.has(id)).length, ok }
  cli.stop()
  origin.close()
  return result
}

describe('breakh1 idle connections after a burst', () => {
  it('HELD (reference): node:http keeps at most 256 idle origin connections', async () => {
    const r = await burst(true)
    expect(r.ok).toBe(600)
    expect(r.idle).toBeLessThanOrEqual(256)
  }, 30_000)
  it("the fast path's own pool keeps at most 256 idle origin connections too", async () => {
    const r = await burst(false)
    expect(r.ok).toBe(600)
    expect(r.idle).toBeLessThanOrEqual(256)
  }, 30_000)
})
