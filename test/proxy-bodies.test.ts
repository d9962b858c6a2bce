/// <reference types="node" />
/**
 * Request bodies cross the proxy for every method, over real sockets: any method × no body, a
 * Content-Length body, a chunked body, `Content-Length: 0`. The origin must get the bytes the framing
 * promises — never the framing without the bytes, which held its connection until the 504 (a GET with a
 * body, RFC 9110 §9.3.1, as Elasticsearch's `GET _search` sends). On the node:http transport every body is
 * forwarded as sent; fetch sends no GET or HEAD body, so the fetch transport answers those 501 at once.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Listening } from '../bin/listen.ts'
import { fetchTransport } from '../src/proxy/transport.ts'
import { createProxyApp } from '../src/proxy/proxy.ts'
import { nodeTransport } from '../src/proxy/node.ts'
import { closedPort, serveProxy, TEST_SECRET, within } from './proxy-servers.ts'

/** What the origin saw, reported in a header (a HEAD answer has no body). */
interface Seen {
  method: string
  contentLength: string | null
  transferEncoding: string | null
  length: number
  sha: string
}

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex')
let origin: Server
const proxies: Record<'node' | 'fetch', Listening | undefined> = { node: undefined, fetch: undefined }

beforeAll(async () => {
  origin = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks)
      const seen: Seen = {
        method: request.method!,
        contentLength: request.headers['content-length'] ?? null,
        transferEncoding: request.headers['transfer-encoding'] ?? null,
        length: body.length,
        sha: sha(body),
      }
      response.writeHead(200, { 'x-seen': JSON.stringify(seen), 'content-type': 'text/plain' })
      response.end('ok')
    })
  })
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve))
  const address = origin.address()
  const originUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  // A short origin timeout: a body held back shows as a 504 within the test's bound, not after 30 s.
  const options = { origin: originUrl, originTimeoutMs: 2000, room: { totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000 } }
  proxies.node = await serveProxy(options)
  proxies.fetch = await serveProxy({ ...options, transport: fetchTransport() })
})

afterAll(async () => {
  for (const proxy of Object.values(proxies)) await proxy?.close()
  origin?.closeAllConnections()
  await new Promise((resolve) => origin?.close(resolve))
})

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'] as const
const FRAMINGS = ['none', 'content-length', 'chunked', 'content-length: 0'] as const
type Framing = (typeof FRAMINGS)[number]

interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** One request with node:http, framed as asked: chunked bodies in `chunks` pieces. */
function send(base: string, method: string, framing: Framing, body: Buffer, chunks = 3): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (framing === 'content-length') headers['content-length'] = String(body.length)
    if (framing === 'content-length: 0') headers['content-length'] = '0'
    if (framing === 'chunked') headers['transfer-encoding'] = 'chunked'
    const request = httpRequest(`${base}/echo`, { method, headers, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: text }))
    })
    request.on('error', reject)
    if (framing === 'content-length') request.end(body)
    else if (framing === 'chunked') {
      const step = Math.max(1, Math.ceil(body.length / chunks))
      for (let at = 0; at < body.length; at += step) request.write(body.subarray(at, at + step))
      request.end()
    } else request.end()
  })
}

/** What the origin must have seen for a request sent with `framing` and `body`. */
function expectForwarded(answer: Answer, method: string, framing: Framing, body: Buffer): void {
  expect(answer.status, answer.body).toBe(200)
  const seen = JSON.parse(String(answer.headers['x-seen'])) as Seen
  const sent = framing === 'content-length' || framing === 'chunked' ? body : Buffer.alloc(0)
  expect({ method: seen.method, length: seen.length, sha: seen.sha }).toEqual({ method, length: sent.length, sha: sha(sent) })
  if (framing === 'content-length') expect([seen.contentLength, seen.transferEncoding]).toEqual([String(body.length), null])
  if (framing === 'chunked') expect([seen.contentLength, seen.transferEncoding]).toEqual([null, 'chunked'])
  if (framing === 'content-length: 0') expect([seen.contentLength, seen.transferEncoding]).toEqual(['0', null])
  // No body sent: none invented (node:http may write `Content-Length: 0` for a method that usually has one).
  if (framing === 'none') expect([seen.contentLength ?? '0', seen.transferEncoding]).toEqual(['0', null])
}

const hasBody = (framing: Framing): boolean => framing === 'content-length' || framing === 'chunked'
const bodyOf = fc.integer({ min: 1, max: 200_000 }).map((size) => randomBytes(size))

describe('proxy: request bodies on the node:http transport', () => {
  it('every method × framing reaches the origin with its bytes, as sent', async () => {
    const body = Buffer.from('{"query":"shoes"}')
    for (const method of METHODS) {
      for (const framing of FRAMINGS) {
        const answer = await within(send(proxies.node!.url, method, framing, body), 5000, `${method} ${framing}`)
        expectForwarded(answer, method, framing, body)
      }
    }
  })

  it('generated bodies of any size, for any method and framing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), fc.constantFrom(...FRAMINGS), bodyOf, fc.integer({ min: 1, max: 8 }), async (method, framing, body, chunks) => {
        const answer = await within(send(proxies.node!.url, method, framing, body, chunks), 5000, `${method} ${framing}`)
        expectForwarded(answer, method, framing, body)
      }),
      { numRuns: 60, seed: 20_2026 },
    )
  })
})

describe('proxy: request bodies on the fetch transport', () => {
  it('forwards every body fetch can send; a GET or HEAD body gets 501 at once, never a held origin', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), fc.constantFrom(...FRAMINGS), bodyOf, async (method, framing, body) => {
        const answer = await within(send(proxies.fetch!.url, method, framing, body), 5000, `${method} ${framing}`)
        if ((method === 'GET' || method === 'HEAD') && hasBody(framing)) {
          expect(answer.status).toBe(501)
          expect(answer.headers['x-seen']).toBeUndefined() // the origin never saw it
          if (method === 'GET') expect(answer.body).toMatch(/cannot forward the body of a GET request with fetch/)
          return
        }
        expect(answer.status, answer.body).toBe(200)
        const seen = JSON.parse(String(answer.headers['x-seen'])) as Seen
        const sent = hasBody(framing) ? body : Buffer.alloc(0)
        expect({ method: seen.method, length: seen.length, sha: seen.sha }).toEqual({ method, length: sent.length, sha: sha(sent) })
        // fetch frames a streamed body its own way (chunked): the bytes are the promise, and never framing without them.
        if (!hasBody(framing)) expect(seen.transferEncoding).toBeNull()
      }),
      { numRuns: 80, seed: 20_2026 },
    )
  })
})

describe('proxy: a declared body the server does not hand over', () => {
  it('gets 501 from the node:http transport, the origin never reached with framing and no bytes', async () => {
    // Nothing listens at the origin: had the transport tried it, the answer would be 502.
    const app = createProxyApp({ origin: `http://127.0.0.1:${await closedPort()}`, transport: nodeTransport(), onOriginError: () => {}, room: { secret: TEST_SECRET } })
    // A Request cannot carry a GET body: a server that builds one (not @hono/node-server) drops it.
    for (const framing of [{ 'content-length': '17' }, { 'transfer-encoding': 'chunked' }] as Record<string, string>[]) {
      const answer = await app.request('http://proxy.example/echo', { method: 'GET', headers: framing })
      expect(answer.status).toBe(501)
      expect(await answer.text()).toMatch(/cannot forward the body of a GET request on this server/)
    }
  })
})
