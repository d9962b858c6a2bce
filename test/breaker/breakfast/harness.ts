/// <reference types="node" />
/**
 * breakfast's differential harness: two CLI proxies (`startProxy`), alike but for the fast path (on / off),
 * each with its own origin, on one fake clock. Raw bytes go to both over a socket; what each origin receives
 * and what each client gets back are compared after the side's own ticket and origin port are replaced.
 */
import { createServer, type Server } from 'node:http'
import { connect } from 'node:net'
import { startProxy } from '../../../bin/proxy-command.ts'
import type { ProxyConfig } from '../../../bin/flags.ts'
import type { Listening } from '../../../bin/listen.ts'

export const SECRET = 'breakfast-secret-0123456789-abcdefghijklmnop'
export const ADMIN_TOKEN = 'breakfast-admin-token-0123456789abcdef'
export const clock = { now: Date.UTC(2026, 0, 1, 12, 0, 20) }

export interface Seen { method: string; url: string; headers: string[]; body: string; version: string }
export interface Origin { server: Server; url: string; port: number; seen: Seen[]; reply: (url: string) => { status?: number; headers?: string[] } }

export async function startOrigin(): Promise<Origin> {
  const origin = { seen: [] as Seen[], reply: () => ({}) } as unknown as Origin
  origin.server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      origin.seen.push({ method: request.method!, url: request.url!, headers: request.rawHeaders, body, version: request.httpVersion })
      const r = origin.reply(request.url!)
      const text = `origin saw ${request.method} ${request.url} ${body.length}`
      response.writeHead(r.status ?? 200, [...(r.headers ?? []), 'Content-Type', 'text/plain', 'Content-Length', String(Buffer.byteLength(text))])
      response.end(text)
    })
  })
  await new Promise<void>((resolve) => origin.server.listen(0, '127.0.0.1', resolve))
  const address = origin.server.address()
  origin.port = typeof address === 'object' && address ? address.port : 0
  origin.url = `http://127.0.0.1:${origin.port}`
  return origin
}

export interface Side { proxy: Listening; origin: Origin; port: number; inApp: number; ticket: string; fastPath: boolean }

export function baseConfig(origin: string, extra: Partial<ProxyConfig> = {}, room: object = {}): ProxyConfig {
  return {
    origin, port: 0, host: '127.0.0.1', store: undefined, redis: undefined,
    ...extra,
    room: { roomId: 'breakfast', secret: SECRET, totalActiveUsers: 1000, newUsersPerMinute: 1000, sessionDurationMinutes: 5, clock: () => clock.now, ...room },
  }
}

export async function startSide(fastPath: boolean, config: (origin: string) => ProxyConfig): Promise<Side> {
  const origin = await startOrigin()
  const side = { origin, fastPath, inApp: 0, ticket: '' } as Side
  side.proxy = await startProxy(config(origin.url), { fastPath, onAppRequest: () => side.inApp++ })
  side.port = Number(new URL(side.proxy.url).port)
  return side
}

export async function stopSide(side: Side): Promise<void> {
  await side.proxy.close()
  side.origin.server.closeAllConnections()
  await new Promise((resolve) => side.origin.server.close(resolve))
}

/** Raw bytes to a port; everything read until the peer closes or `idleMs` of silence. */
export function raw(port: number, bytes: string | Buffer, idleMs = 400): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let timer: ReturnType<typeof setTimeout> | undefined
    const done = () => { clearTimeout(timer); socket.destroy(); resolve(Buffer.concat(chunks).toString('latin1')) }
    const arm = () => { clearTimeout(timer); timer = setTimeout(done, idleMs) }
    socket.on('connect', () => { socket.write(bytes); arm() })
    socket.on('data', (chunk) => { chunks.push(chunk); arm() })
    socket.on('close', done)
    socket.on('error', done)
  })
}

/** A ticket for `side`: admitted on GET / in an empty room, then used once so the room remembers it. */
export async function mint(side: Side, host = 'shop.example'): Promise<string> {
  const answer = await raw(side.port, `GET /mint HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
  const match = /set-cookie: __wroom=([^;\r\n]+)/i.exec(answer)
  if (!match) throw new Error(`no ticket: ${answer}`)
  side.ticket = match[1]!
  await raw(side.port, `GET /warm HTTP/1.1\r\nHost: ${host}\r\nCookie: __wroom=${side.ticket}\r\nConnection: close\r\n\r\n`)
  return side.ticket
}

/** A side's answer and origin log with its own ticket, origin port and Dates replaced. */
export function normalize(side: Side, text: string): string {
  return text
    .split(side.ticket).join('<ticket>')
    .split(String(side.origin.port)).join('<oport>')
    .split(String(side.port)).join('<pport>')
    .replace(/^date: .*$/gim, 'date: <date>')
    .replace(/__wroom=[A-Za-z0-9_-]+\.\.[A-Za-z0-9._-]+/g, '__wroom=<sealed>')
    .replace(/nonce(=\\?"|-)[A-Za-z0-9+/=]+/g, 'nonce$1<nonce>')
}

export interface Outcome { answer: string; origin: string; fast: boolean }

/** `bytes` (with `{T}` for the side's ticket) to one side: the normalized answer, what its origin saw, and whether the fast path took it. */
export async function probe(side: Side, bytes: string, idleMs?: number): Promise<Outcome> {
  const before = side.origin.seen.length
  const inApp = side.inApp
  const answer = await raw(side.port, bytes.split('{T}').join(side.ticket), idleMs)
  const origin = side.origin.seen.slice(before).map((s) => `${s.version} ${s.method} ${s.url} ${JSON.stringify(s.headers)} ${JSON.stringify(s.body)}`).join('\n')
  return { answer: normalize(side, answer), origin: normalize(side, origin), fast: side.inApp === inApp && answer.length > 0 }
}
