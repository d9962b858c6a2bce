/// <reference types="node" />
/**
 * The proxy forwards exactly, over real sockets: generated sets of client request headers (names in any
 * case, repeats, values of every printable kind) reach a node:http origin as sent — same order, same
 * case — minus hop-by-hop, plus X-Forwarded-*, and nothing fetch would add (accept-language: *,
 * sec-fetch-mode, accept-encoding). Generated bodies in any content coding come back byte for byte with
 * their Content-Encoding and Content-Length. Both clients are node:http, which adds and decodes nothing.
 */
import { createServer, type Server } from 'node:http'
import { randomBytes } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Listening } from '../bin/listen.ts'
import { rawRequest, serveProxy } from './proxy-servers.ts'

/** Served bodies by path, set by a test before it asks for them. */
const bodies = new Map<string, { coding: string; bytes: Buffer }>()
let origin: Server
let originUrl: string
let proxy: Listening

beforeAll(async () => {
  origin = createServer((request, response) => {
    const body = bodies.get(request.url ?? '')
    if (body) {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': body.coding, 'content-length': body.bytes.byteLength })
      return response.end(body.bytes)
    }
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify(request.rawHeaders))
  })
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve))
  const address = origin.address()
  originUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  proxy = await serveProxy({ origin: originUrl, room: { totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000 } })
})

afterAll(async () => {
  await proxy?.close()
  origin?.closeAllConnections()
  await new Promise((resolve) => origin?.close(resolve))
})

/** One raw request through the proxy. */
const send = (path: string, headers: string[]) => rawRequest(proxy.url, path, headers)

/** Names the proxy rewrites by design (or that change how the message is framed): never generated. */
const NOT_GENERATED = /^(host|connection|keep-alive|transfer-encoding|upgrade|te|trailers?|content-length|expect|forwarded|x-forwarded-.*|waiting-room-command|waiting-room-challenge|proxy-.*)$/i
const COMMON = ['Accept', 'accept-encoding', 'Accept-Language', 'User-Agent', 'cookie', 'Cache-Control', 'If-None-Match', 'Sec-Fetch-Mode', 'Authorization', 'Referer', 'X-Request-Id']

const headerName = fc
  .oneof(
    fc.constantFrom(...COMMON),
    fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/),
  )
  .chain((name) => fc.constantFrom(name, name.toLowerCase(), name.toUpperCase()))
  .filter((name) => !NOT_GENERATED.test(name))
// Printable ASCII, inner spaces and tabs allowed; HTTP drops leading and trailing whitespace.
const headerValue = fc.stringMatching(/^[!-~]([ !-~\t]{0,40}[!-~])?$/)
const headerList = fc.array(fc.tuple(headerName, headerValue), { maxLength: 12 })

describe('proxy: request headers reach the origin exactly', () => {
  it('as sent, in order and case, repeats kept, minus hop-by-hop, plus X-Forwarded-*', async () => {
    const proxyHost = new URL(proxy.url).host
    await fc.assert(
      fc.asyncProperty(headerList, async (pairs) => {
        const sent = pairs.flat()
        const hop = ['Connection', 'keep-alive, X-Hop', 'X-Hop', 'gone', 'Keep-Alive', 'timeout=5', 'TE', 'trailers', 'Proxy-Authorization', 'Basic eA==']
        const { status, body } = await send('/echo', [...sent, ...hop])
        expect(status).toBe(200)
        const seen = JSON.parse(body.toString()) as string[]
        // The origin's own connection header is the proxy's keep-alive, not the client's.
        const withoutConnection = seen.filter((_, i, all) => !(i % 2 === 0 && all[i] === 'Connection') && !(i % 2 === 1 && all[i - 1] === 'Connection'))
        expect(withoutConnection).toEqual([
          'Host',
          new URL(originUrl).host,
          ...sent,
          'X-Forwarded-For',
          '127.0.0.1',
          'X-Forwarded-Proto',
          'http',
          'X-Forwarded-Host',
          proxyHost,
        ])
      }),
      { numRuns: 60 },
    )
  })

  it("adds none of fetch's defaults", async () => {
    const { body } = await send('/echo', ['X-Only', '1'])
    const names = (JSON.parse(body.toString()) as string[]).filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase())
    for (const added of ['accept', 'accept-language', 'accept-encoding', 'sec-fetch-mode', 'user-agent']) expect(names).not.toContain(added)
  })
})

describe('proxy: compressed bodies pass through untouched', () => {
  it('gives back the origin bytes of any coding with Content-Encoding and Content-Length', async () => {
    const gzip = gzipSync(Buffer.from('hello, compressed world '.repeat(100)))
    bodies.set('/gzip', { coding: 'gzip', bytes: gzip })
    const { headers, body } = await send('/gzip', ['Accept-Encoding', 'gzip'])
    expect(headers['content-encoding']).toBe('gzip')
    expect(headers['content-length']).toBe(String(gzip.byteLength))
    expect(body.equals(gzip)).toBe(true)

    await fc.assert(
      fc.asyncProperty(fc.constantFrom('gzip', 'br', 'zstd', 'deflate', 'compress', 'gzip, br'), fc.integer({ min: 0, max: 300_000 }), async (coding, size) => {
        const path = `/body-${coding.replace(/\W/g, '')}-${size}`
        const bytes = randomBytes(size)
        bodies.set(path, { coding, bytes })
        const answer = await send(path, ['Accept-Encoding', 'zstd, br, gzip'])
        expect(answer.headers['content-encoding']).toBe(coding)
        expect(answer.headers['content-length']).toBe(String(size))
        expect(answer.body.equals(bytes)).toBe(true)
      }),
      { numRuns: 25 },
    )
  })
})
