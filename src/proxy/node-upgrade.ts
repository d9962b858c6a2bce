/// <reference types="node" />
/**
 * @module
 * WebSocket (and any other) upgrades through the proxy on Node. Node hands an upgrade request to the
 * server's `upgrade` event with the raw socket, not to the fetch handler — without a listener it is
 * served as a plain request, and the proxy used to turn it into a GET (200, no 101). Here it runs through
 * the proxy app like any request (forwarding guard, room), with the socket in `env[TUNNEL]`: the node
 * transport's `upgrade` opens the origin's side into it, and this module then writes the 101 (with the
 * room's cookie) and joins the two sockets. A request the room does not admit gets the app's answer —
 * the queue page with the room's queueing status, never a fake success — and the socket is closed.
 * An open tunnel is checked in once a minute through the room (tunnel-keeper.ts), so it holds its place while
 * open and is closed when the room no longer lets its ticket through (revoked, session ended).
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { tunnelKeeper, type TunnelKeeper } from './tunnel-keeper.ts'

/** Where the transport leaves the origin's upgraded socket for this module. */
export const TUNNEL = Symbol('hono-waiting-room.upgrade-tunnel')

export interface Tunnel {
  /** The client's socket, from the server's `upgrade` event. */
  client: Duplex
  /** The origin's side, once it switched protocols. */
  origin?: { socket: Duplex; head: Buffer; protocol: string }
}

type FetchHandler = (request: Request, env: Record<string | symbol, unknown>) => Response | Promise<Response>

export interface UpgradeProxy {
  /** Ends every open tunnel (a server's close() waits for them otherwise). */
  closeAll(): void
}

/** Answers `server`'s upgrade requests through `fetch` (the proxy app's), tunnelling admitted ones to the origin. */
export function proxyUpgrades(server: Server, fetch: FetchHandler, options: { checkInEveryMs?: number } = {}): UpgradeProxy {
  const open = new Set<Duplex>()
  const keeper = tunnelKeeper(fetch, options.checkInEveryMs)
  server.on('upgrade', (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
    void handleUpgrade(fetch, incoming, socket, head, open, keeper)
  })
  return { closeAll: () => open.forEach((socket) => socket.destroy()) }
}

async function handleUpgrade(fetch: FetchHandler, incoming: IncomingMessage, socket: Duplex, head: Buffer, open: Set<Duplex>, keeper: TunnelKeeper): Promise<void> {
  // A client that resets mid-handshake is not an error of ours.
  socket.on('error', () => socket.destroy())
  const request = upgradeRequest(incoming)
  if (!request) return writeResponse(socket, new Response('400 Bad Request: no Host header\n', { status: 400 }))
  const tunnel: Tunnel = { client: socket }
  let response: Response
  try {
    // `incoming` as @hono/node-server passes it: conninfo and the node transport find the peer and headers there.
    response = await fetch(request, { incoming, outgoing: undefined, [TUNNEL]: tunnel })
  } catch {
    response = new Response('500 Internal Server Error\n', { status: 500 })
  }
  const origin = tunnel.origin
  if (origin && response.status === 200 && !socket.destroyed) {
    open.add(origin.socket)
    origin.socket.once('close', () => open.delete(origin.socket))
    const end = join(socket, head, response, origin)
    return keeper.keep(request, incoming, response, [socket, origin.socket], end)
  }
  origin?.socket.destroy()
  return writeResponse(socket, response)
}

/** The upgrade request as a fetch Request (GET, no body), or undefined without a Host to build its URL from. */
function upgradeRequest(incoming: IncomingMessage): Request | undefined {
  const host = incoming.headers.host
  if (!host) return undefined
  const headers = new Headers()
  const raw = incoming.rawHeaders
  for (let i = 0; i < raw.length; i += 2) if (!raw[i]!.startsWith(':')) headers.append(raw[i]!, raw[i + 1]!)
  // The listener's scheme and the Host header: an absolute-form target's scheme and authority are the client's to write (only its path counts).
  const base = `${(incoming.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'}://${host}`
  try {
    const url = incoming.url ?? '/'
    // An origin-form target goes on as sent, as on the plain path: resolved as a reference, `//evil.example/admin`
    // would be a network-path reference and forward `/admin` (another path than the room judged).
    if (url.startsWith('/')) return new Request(new URL(`${base}${url}`), { method: incoming.method, headers })
    const target = new URL(url, base)
    return new Request(`${base}${target.pathname}${target.search}`, { method: incoming.method, headers })
  } catch {
    return undefined
  }
}

/** Response headers as lines, each Set-Cookie on its own, without the ones that describe the connection. */
function headerLines(response: Response, skip: Set<string>): string[] {
  const lines: string[] = []
  response.headers.forEach((value, name) => {
    if (!skip.has(name) && name !== 'set-cookie') lines.push(`${name}: ${value}`)
  })
  for (const cookie of response.headers.getSetCookie()) lines.push(`set-cookie: ${cookie}`)
  return lines
}

const SKIP_ON_101 = new Set(['connection', 'upgrade', 'content-length', 'transfer-encoding', 'keep-alive'])
const SKIP_ON_REFUSAL = new Set(['connection', 'upgrade', 'transfer-encoding', 'keep-alive'])

/** Writes the 101 with the origin's handshake headers and the room's cookies, then joins the sockets; returns what ends the tunnel. */
function join(client: Duplex, head: Buffer, response: Response, origin: NonNullable<Tunnel['origin']>): () => void {
  const lines = ['HTTP/1.1 101 Switching Protocols', 'connection: Upgrade', `upgrade: ${origin.protocol}`, ...headerLines(response, SKIP_ON_101)]
  client.write(`${lines.join('\r\n')}\r\n\r\n`)
  if (origin.head.length > 0) client.write(origin.head)
  if (head.length > 0) origin.socket.write(head)
  const end = (): void => {
    client.destroy()
    origin.socket.destroy()
  }
  origin.socket.on('error', end)
  client.on('error', end)
  origin.socket.once('close', end)
  client.once('close', end)
  origin.socket.pipe(client)
  client.pipe(origin.socket)
  return end
}

/** Writes `response` as a complete HTTP/1.1 answer on the raw socket, then closes it. */
async function writeResponse(socket: Duplex, response: Response): Promise<void> {
  if (socket.destroyed) return
  const status = `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}`
  const body = response.body ? new Uint8Array(await response.arrayBuffer().catch(() => new ArrayBuffer(0))) : new Uint8Array(0)
  const lines = [status, ...headerLines(response, SKIP_ON_REFUSAL).filter((line) => !line.startsWith('content-length:')), `content-length: ${body.byteLength}`, 'connection: close']
  socket.write(`${lines.join('\r\n')}\r\n\r\n`)
  socket.end(body)
}
