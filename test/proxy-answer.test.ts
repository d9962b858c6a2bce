/// <reference types="node" />
/**
 * The answer on Node, which the node:http transport writes straight to the client's socket (src/proxy/node.ts,
 * `answerDirectly`): the origin's response headers reach the client exactly — names as the origin wrote
 * them, order, repeats — minus hop-by-hop, next to the room's ticket; bodiless answers keep their framing;
 * a large body arrives byte for byte through a slow reader; an origin command the room obeys still reaches
 * the room. Real sockets, node:http clients (they add and decode nothing).
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Listening } from '../bin/listen.ts'
import { rawRequest, serveProxy, within } from './proxy-servers.ts'

/** What the origin answers at a path, set by a test before it asks. */
const routes = new Map<string, (response: ServerResponse) => void>()
let origin: Server
let proxy: Listening
let revoking: Listening

beforeAll(async () => {
  origin = createServer((request, response) => {
    const route = routes.get(request.url ?? '')
    if (route) return route(response)
    response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve))
  const address = origin.address()
  const originUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  const room = { totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000 }
  proxy = await serveProxy({ origin: originUrl, room })
  revoking = await serveProxy({ origin: originUrl, room: { ...room, enabledOriginCommands: ['revoke'] } })
})

afterAll(async () => {
  await proxy?.close()
  await revoking?.close()
  origin?.closeAllConnections()
  await new Promise((resolve) => origin?.close(resolve))
})

/** Response header names the proxy or the client's server sets by design, or that frame the message: never generated. */
const NOT_GENERATED = /^(connection|keep-alive|transfer-encoding|upgrade|te|trailers?|content-length|date|location|waiting-room-command|cf-waiting-room-command|x-hono-already-sent|proxy-.*)$/i
/** Headers the proxy's own server adds to every answer (framing and its Date when the origin sent none). */
const SERVER_ADDED = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

const headerName = fc
  .oneof(fc.constantFrom('Content-Type', 'Cache-Control', 'ETag', 'Set-Cookie', 'Vary', 'X-Request-Id'), fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/))
  .chain((name) => fc.constantFrom(name, name.toLowerCase(), name.toUpperCase()))
  .filter((name) => !NOT_GENERATED.test(name))
const headerValue = fc.stringMatching(/^[!-~]([ !-~\t]{0,40}[!-~])?$/)

/** The received list without the room's ticket cookie and what the proxy's server adds. */
function originPart(raw: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase()
    if (SERVER_ADDED.has(lower) || (lower === 'set-cookie' && raw[i + 1]!.startsWith('__wroom='))) continue
    out.push(raw[i]!, raw[i + 1]!)
  }
  return out
}

describe('proxy on Node: the answer reaches the client exactly', () => {
  it("keeps the origin's response headers as written, in order, repeats kept, minus hop-by-hop, next to one ticket", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(headerName, headerValue), { maxLength: 12 }), fc.nat(), async (pairs, n) => {
        const sent = pairs.flat()
        const hop = ['Connection', 'X-Hop', 'X-Hop', 'gone', 'Keep-Alive', 'timeout=5', 'Proxy-Authenticate', 'Basic']
        routes.set(`/headers-${n}`, (response) => response.writeHead(200, [...sent, ...hop]).end('body'))
        const answer = await rawRequest(proxy.url, `/headers-${n}`, [])
        expect(answer.status).toBe(200)
        expect(answer.body.toString()).toBe('body')
        expect(originPart(answer.rawHeaders)).toEqual(sent)
        // A new user: the room's ticket rides along, once.
        const tickets = answer.rawHeaders.filter((value, i) => i % 2 === 1 && /^set-cookie$/i.test(answer.rawHeaders[i - 1]!) && value.startsWith('__wroom='))
        expect(tickets).toHaveLength(1)
      }),
      { numRuns: 40, seed: 20 },
    )
  })

  it('keeps the framing of bodiless answers: HEAD with its length, 204, 304', async () => {
    routes.set('/head', (response) => response.writeHead(200, ['Content-Length', '123456', 'ETag', '"a"']).end())
    const head = await rawRequest(proxy.url, '/head', [], 'HEAD')
    expect(head.status).toBe(200)
    expect(head.headers['content-length']).toBe('123456')
    expect(head.body.byteLength).toBe(0)
    for (const status of [204, 304]) {
      routes.set(`/status-${status}`, (response) => response.writeHead(status, ['ETag', '"b"']).end())
      const answer = await rawRequest(proxy.url, `/status-${status}`, [])
      expect(answer.status).toBe(status)
      expect(answer.headers.etag).toBe('"b"')
      expect(answer.body.byteLength).toBe(0)
    }
  })

  it('passes a large body byte for byte to a client that stops reading for a while', async () => {
    const bytes = randomBytes(8 * 1024 * 1024)
    routes.set('/large', (response) => {
      response.writeHead(200, ['Content-Type', 'application/octet-stream'])
      // Chunked, in 64 KiB writes, as a streaming origin sends it.
      let at = 0
      const more = (): void => {
        while (at < bytes.byteLength) {
          const ok = response.write(bytes.subarray(at, (at += 64 * 1024)))
          if (!ok) return void response.once('drain', more)
        }
        response.end()
      }
      more()
    })
    const url = new URL(`${proxy.url}/large`)
    const digest = await within(
      new Promise<string>((resolve, reject) => {
        const request = httpRequest(url, { agent: false }, (response) => {
          const hash = createHash('sha256')
          let paused = false
          response.on('data', (chunk: Buffer) => {
            hash.update(chunk)
            if (!paused) {
              paused = true
              response.pause()
              setTimeout(() => response.resume(), 200)
            }
          })
          response.on('end', () => resolve(hash.digest('hex')))
          response.on('error', reject)
        })
        request.on('error', reject)
        request.end()
      }),
      10_000,
      'large body',
    )
    expect(digest).toBe(createHash('sha256').update(bytes).digest('hex'))
  })

  it('hands an answer with an origin command to the room when it obeys commands: cookie cleared, header gone', async () => {
    routes.set('/logout', (response) => response.writeHead(200, ['Waiting-Room-Command', 'revoke', 'X-Kept', '1']).end('bye'))
    const answer = await rawRequest(revoking.url, '/logout', [])
    expect(answer.body.toString()).toBe('bye')
    expect(answer.headers['waiting-room-command']).toBeUndefined()
    expect(answer.headers['x-kept']).toBe('1')
    // The new user's ticket, then the revocation's clearing cookie.
    expect(answer.headers['set-cookie']?.some((cookie) => /^__wroom=;/.test(cookie) || /Max-Age=0/.test(cookie))).toBe(true)
    const plain = await rawRequest(proxy.url, '/logout', [])
    expect(plain.headers['waiting-room-command']).toBeUndefined()
    expect(plain.headers['set-cookie']?.filter((cookie) => cookie.startsWith('__wroom='))).toHaveLength(1)
  })
})
