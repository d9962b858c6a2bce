/// <reference types="node" />
/**
 * WebSocket upgrades through the proxy, over real sockets: a tiny WebSocket origin (node:http `upgrade`
 * with the RFC 6455 handshake and an echo of one text frame), the proxy as the CLI wires it, and a raw
 * node:http client. An admitted user's upgrade becomes a working tunnel (101, the origin's accept key,
 * the room's ticket); a user the room does not admit gets the room's answer with its queueing status on
 * the socket and never reaches the origin.
 */
import { createHash, randomBytes } from 'node:crypto'
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Listening } from '../bin/listen.ts'
import { CookieJar, serveProxy, within } from './proxy-servers.ts'

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
const acceptKey = (key: string): string => createHash('sha1').update(key + GUID).digest('base64')

/** One unfragmented text frame; a client's is masked (RFC 6455 §5.3). */
function frame(text: string, masked: boolean): Buffer {
  const payload = Buffer.from(text)
  if (payload.length > 125) throw new Error('test frames stay short')
  const mask = masked ? randomBytes(4) : Buffer.alloc(0)
  const body = masked ? payload.map((byte, i) => byte ^ mask[i % 4]!) : payload
  return Buffer.concat([Buffer.from([0x81, (masked ? 0x80 : 0) | payload.length]), mask, Buffer.from(body)])
}

/** The text of the first complete frame in `bytes`, or undefined while it is incomplete. */
function readFrame(bytes: Buffer): string | undefined {
  if (bytes.length < 2) return undefined
  const masked = (bytes[1]! & 0x80) !== 0
  const length = bytes[1]! & 0x7f
  const start = 2 + (masked ? 4 : 0)
  if (bytes.length < start + length) return undefined
  const payload = bytes.subarray(start, start + length)
  if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= bytes[2 + (i % 4)]!
  return payload.toString()
}

let origin: Server
let originUrl: string
let proxy: Listening
const upgradesSeen: IncomingHttpHeaders[] = []
const originSockets: Duplex[] = []

beforeAll(async () => {
  origin = createServer((_, response) => response.end('plain page'))
  origin.on('upgrade', (request: IncomingMessage, socket: Duplex) => {
    upgradesSeen.push(request.headers)
    originSockets.push(socket)
    if (request.url === '/refuse') return socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 6\r\nconnection: close\r\n\r\nno ws\n')
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${acceptKey(String(request.headers['sec-websocket-key']))}\r\n\r\n`,
    )
    let buffered = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      const text = readFrame(buffered)
      if (text !== undefined) socket.write(frame(`echo: ${text}`, false))
    })
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve))
  const address = origin.address()
  originUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  proxy = await serveProxy({ origin: originUrl, room: { totalActiveUsers: 1, newUsersPerMinute: 1, queueingStatusCode: 202 } })
})

afterAll(async () => {
  await proxy?.close()
  for (const socket of originSockets) socket.destroy() // upgraded: no longer HTTP connections the server closes
  origin?.closeAllConnections()
  await new Promise((resolve) => origin?.close(resolve))
})

type Outcome =
  | { kind: 'upgraded'; headers: IncomingHttpHeaders; socket: Duplex; head: Buffer; key: string }
  | { kind: 'refused'; status: number; headers: IncomingHttpHeaders; body: string }

/** A WebSocket opening handshake through the proxy. */
function openSocket(path: string, cookie?: string): Promise<Outcome> {
  const key = randomBytes(16).toString('base64')
  const headers: Record<string, string> = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-key': key, 'sec-websocket-version': '13' }
  if (cookie) headers.cookie = cookie
  return within(
    new Promise<Outcome>((resolve, reject) => {
      const request = httpRequest(`${proxy.url}${path}`, { headers, agent: false })
      request.on('upgrade', (response, socket, head) => resolve({ kind: 'upgraded', headers: response.headers, socket, head, key }))
      request.on('response', (response) => {
        let body = ''
        response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ kind: 'refused', status: response.statusCode!, headers: response.headers, body }))
      })
      request.on('error', reject)
      request.end()
    }),
    5000,
    `handshake for ${path}`,
  )
}

/** Sends one frame on an open tunnel and resolves with the text of the frame that comes back. */
function roundTrip(socket: Duplex, head: Buffer, text: string): Promise<string> {
  return within(
    new Promise<string>((resolve) => {
      let buffered = head
      socket.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk])
        const reply = readFrame(buffered)
        if (reply !== undefined) resolve(reply)
      })
      socket.write(frame(text, true))
    }),
    5000,
    'echo through the tunnel',
  )
}

const ticketOf = (headers: IncomingHttpHeaders): string | undefined => headers['set-cookie']?.find((cookie) => cookie.startsWith('__wroom='))

describe('proxy: WebSocket upgrades', () => {
  const admitted = new CookieJar()

  it("tunnels an admitted user's upgrade to the origin: 101, the origin's accept key, the room's ticket, frames both ways", async () => {
    const outcome = await openSocket('/live?room=1')
    if (outcome.kind !== 'upgraded') throw new Error(`expected 101, got ${outcome.status}: ${outcome.body}`)
    expect(outcome.headers['sec-websocket-accept']).toBe(acceptKey(outcome.key))
    const ticket = ticketOf(outcome.headers)
    expect(ticket).toBeDefined()
    admitted.cookies.set('__wroom', ticket!.split(';')[0]!.slice('__wroom='.length))
    expect(await roundTrip(outcome.socket, outcome.head, 'hello')).toBe('echo: hello')
    outcome.socket.destroy()
    // The origin saw a real upgrade, with the proxy's forwarding headers.
    const seen = upgradesSeen.at(-1)!
    expect(seen.upgrade).toBe('websocket')
    expect(seen['x-forwarded-for']).toBe('127.0.0.1')
    expect(seen.host).toBe(new URL(originUrl).host)
  })

  it("refuses a user the room queues with the room's status and page, never reaching the origin", async () => {
    const before = upgradesSeen.length
    const outcome = await openSocket('/live')
    if (outcome.kind !== 'refused') throw new Error('a queued user got a tunnel')
    expect(outcome.status).toBe(202)
    expect(outcome.headers.connection).toBe('close')
    expect(outcome.body).toContain('id="wait-time"')
    expect(ticketOf(outcome.headers)).toBeDefined() // the user now holds a place in the queue
    expect(upgradesSeen.length).toBe(before)
  })

  it('still tunnels the admitted user while the room is full', async () => {
    const outcome = await openSocket('/live', admitted.header())
    if (outcome.kind !== 'upgraded') throw new Error(`expected 101, got ${outcome.status}`)
    expect(await roundTrip(outcome.socket, outcome.head, 'again')).toBe('echo: again')
    outcome.socket.destroy()
  })

  it("passes on the origin's refusal to upgrade", async () => {
    const outcome = await openSocket('/refuse', admitted.header())
    if (outcome.kind !== 'refused') throw new Error('expected the origin refusal')
    expect(outcome.status).toBe(403)
    expect(outcome.body).toBe('no ws\n')
  })
})
