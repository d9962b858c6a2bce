/// <reference types="node" />
/**
 * @module
 * The proxy's origin transport on Node (and on Bun and Deno, which implement node:http): HTTP/1.1 with
 * node:http, so the origin gets the client's headers exactly (fetch adds its own — see ./transport.ts)
 * and compressed bodies pass through as the origin's bytes. The one file under src/ that imports `node:`:
 * it is its own entry point, like adapters/bun-sqlite/node.ts, and nothing runtime-neutral imports it.
 *
 * Under @hono/node-server (the CLI, on Node or Bun) it writes the answer to the client's ServerResponse
 * itself — the origin's raw header list, its body piped — and hands node-server its "already sent" marker:
 * no Headers, Response or web stream per request, which on Node cost more CPU than the rest of the proxy.
 * Why node:http rather than Hono's `proxy` helper or undici's `request`/`stream`: the helper is fetch (it
 * replaces Accept-Encoding with what the runtime decodes, and fetch adds its defaults); undici is not a
 * dependency (Node's bundled copy is not importable) and hands back a header object with names lower-cased,
 * not the raw list; both mean a Headers or Response per request, the cost this file avoids.
 *
 * It also forwards WebSocket upgrades (`proxyUpgrades`): Node hands an upgrade to the server's `upgrade`
 * event rather than to the fetch handler, so the request runs through the proxy app (forwarding guard,
 * room) with the socket in `env`; an admitted one is connected to the origin's socket, anyone else gets
 * the app's answer (the room's queueing status) on the socket, and it is closed.
 *
 * @example
 * ```ts
 * import { serve } from '@hono/node-server'
 * import { createProxyApp } from 'hono-waiting-room/proxy'
 * import { nodeTransport, proxyUpgrades } from 'hono-waiting-room/proxy/node'
 *
 * const app = createProxyApp({ origin: 'http://127.0.0.1:8080', transport: nodeTransport() })
 * const server = serve({ fetch: app.fetch, port: 8787 })
 * proxyUpgrades(server, app.fetch)
 * ```
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { Context } from 'hono'
import { endToEndHeaders, hasHeader } from './headers.ts'
import { declaresBody, OriginTimeout, UnforwardableBody, untypedBody, type OriginRequest, type OriginResponse, type OriginTransport } from './transport.ts'
import { TUNNEL, type Tunnel } from './node-upgrade.ts'
import { RENEWAL, type RenewalMark } from './tunnel-keeper.ts'
import { EXACT_TRANSPORT } from './h1-pool.ts'
import { invalidOriginHead } from './origin-validate.ts'
import { bunServeHeadChunked, decodedBody, rawTransferDecodings } from './transfer-codings.ts'
import { alreadySent, answerDirectly, NULL_BODY, readWhole, serverResponseOf, streamOf } from './node-answer.ts'

export { proxyUpgrades, type UpgradeProxy } from './node-upgrade.ts'

export interface NodeTransportOptions {
  /** Most connections to the origin at once; more requests wait for one. Default: no limit (Node's). */
  maxSockets?: number | undefined
  /** Ms an idle keep-alive connection to the origin stays open. Default 4000 (below Node servers' 5 s, so the origin never closes one under us). */
  keepAliveMs?: number | undefined
}

/** The node:http transport; one keep-alive pool per transport. */
export function nodeTransport(options: NodeTransportOptions = {}): OriginTransport & { readonly [NODE_AGENTS]: Agents; readonly [EXACT_TRANSPORT]: { keepAliveMs: number } } {
  const keepAliveMs = options.keepAliveMs ?? 4000
  if (!Number.isInteger(keepAliveMs) || keepAliveMs < 1) throw new TypeError(`nodeTransport: invalid keepAliveMs ${keepAliveMs}: expected a positive integer of ms`)
  const agentOptions = { keepAlive: true, timeout: keepAliveMs, maxSockets: options.maxSockets ?? Infinity, scheduling: 'lifo' as const }
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) }
  return {
    [NODE_AGENTS]: agents,
    [EXACT_TRANSPORT]: { keepAliveMs },
    request: (origin, c) => send(origin, c, agents),
    upgrade(origin, c) {
      // A tunnel's check-in (tunnel-keeper.ts) ends here: the room let it through, and the origin is not asked again.
      const renewal = (c.env as Record<symbol, RenewalMark | undefined> | undefined)?.[RENEWAL]
      if (renewal) {
        // Only the tunnel's own session (or a path the room does not cover) keeps it: a check-in admitted afresh means its ticket ended or was revoked.
        const reason = (c.get as (key: string) => { reason?: string } | undefined)('waitingRoom')?.reason
        renewal.reached = reason !== 'slot' && reason !== 'passthrough'
        return Promise.resolve({ status: 204, statusText: 'No Content', headers: new Headers(), body: null })
      }
      const tunnel = (c.env as Record<symbol, Tunnel | undefined> | undefined)?.[TUNNEL]
      return tunnel ? send(origin, c, agents, tunnel) : undefined
    },
  }
}

export type Agents = { http: HttpAgent; https: HttpsAgent }

/** Where a node:http transport keeps its keep-alive pools, for the fast path's listener (./node-fast.ts) to share. */
export const NODE_AGENTS: unique symbol = Symbol('hono-waiting-room.node-agents')

/**
 * Bodies of known length up to this size are read whole and passed on in one write: a web stream per
 * response costs more CPU than the proxy's other work on Node 20, and waiting for ≤ 16 KiB costs nothing.
 */
const WHOLE_BODY_MAX = 16 * 1024

function send(origin: OriginRequest, c: Context, agents: Agents, tunnel?: Tunnel): Promise<OriginResponse | Response> {
  return new Promise((resolve, reject) => {
    const https = origin.origin.protocol === 'https:'
    const body = bodyOf(origin, c, tunnel)
    const list = origin.headerList
    const headers = body !== 'none' && !hasHeader(list, 'content-length') ? [...list, 'Transfer-Encoding', 'chunked'] : list
    const hostname = origin.origin.hostname
    const request = (https ? httpsRequest : httpRequest)({
      protocol: origin.origin.protocol,
      hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
      port: origin.origin.port,
      path: origin.path,
      method: origin.method,
      headers,
      // An upgraded connection leaves the pool for good: give it one of its own.
      agent: tunnel ? false : https ? agents.https : agents.http,
    })
    let timer: ReturnType<typeof setTimeout> | undefined
    let settled = false
    let originAnswer: IncomingMessage | undefined
    const fail = (error: unknown): void => {
      clearTimeout(timer)
      // An error after a whole answer (bytes beyond it): the socket is gone already; destroying the request would drop the answer's unread body.
      if (settled && originAnswer?.complete) return
      if (!settled) reject(error)
      settled = true
      request.destroy()
    }
    onClientGone(c, origin, tunnel, () => fail(new Error('the client went away')))
    // The origin's time to answer counts from the end of the upload: an upload takes what it takes.
    request.once('finish', () => {
      if (!settled) timer = setTimeout(() => fail(new OriginTimeout(origin.timeoutMs)), origin.timeoutMs)
    })
    request.once('error', fail)
    request.once('response', (response) => {
      clearTimeout(timer)
      originAnswer = response
      // A head Node's parser passed but its writer (or a Response) refuses — status 099, a DEL in the reason: 502, not a crash.
      const invalid = invalidOriginHead(response.statusCode!, response.statusMessage ?? '', response.rawHeaders)
      if (invalid) return fail(invalid)
      const outgoing = tunnel ? undefined : serverResponseOf(c)
      const direct = outgoing && origin.clientHeaderList(response.rawHeaders)
      if (direct) {
        settled = true
        answerDirectly(response, outgoing, direct, origin.method)
        return resolve(alreadySent())
      }
      const answer = { status: response.statusCode!, statusText: response.statusMessage ?? '', headers: endToEndHeaders(response.rawHeaders) }
      if (NULL_BODY.has(answer.status) || origin.method === 'HEAD') {
        settled = true
        if (bunServeHeadChunked(origin.method, answer.status, answer.headers.has('content-length'))) answer.headers.set('transfer-encoding', 'chunked')
        response.resume()
        return resolve({ ...answer, body: null })
      }
      const length = Number(response.headers['content-length'] ?? Number.NaN)
      const typed = response.headers['content-type'] !== undefined
      if (length <= WHOLE_BODY_MAX) return readWhole(response, (bytes) => ((settled = true), resolve({ ...answer, body: typed ? bytes : untypedBody(bytes) })), fail)
      settled = true
      // Transfer codings besides chunked (gzip): undone, as Transfer-Encoding, their only label, does not reach the client.
      const decode = rawTransferDecodings(response.rawHeaders)
      resolve({ ...answer, body: decode ? decodedBody(streamOf(response), decode) : streamOf(response) })
    })
    if (tunnel) request.once('upgrade', (response, socket, head) => {
      clearTimeout(timer)
      settled = true
      tunnel.origin = { socket, head, protocol: response.headers.upgrade ?? '' }
      // A stand-in for 101 (a Response cannot carry it): proxyUpgrades writes the 101 with these headers.
      resolve({ status: 200, statusText: 'Switching Protocols', headers: endToEndHeaders(response.rawHeaders), body: null })
    })
    if (body === 'none') request.end()
    else if (body === 'incoming') pipeIncoming(nodeIncoming(c)!, request, fail)
    else void pumpStream(origin.request.body!, request, fail)
  })
}

/**
 * Calls `gone` if the client leaves before the answer is complete. On @hono/node-server the response's
 * `close` says so without the AbortSignal a Request creates on first use; elsewhere the request's signal.
 */
function onClientGone(c: Context, origin: OriginRequest, tunnel: Tunnel | undefined, gone: () => void): void {
  if (tunnel) {
    tunnel.client.once('close', gone)
    return
  }
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing
  if (outgoing) {
    outgoing.once('close', () => {
      if (!outgoing.writableFinished) gone()
    })
    return
  }
  const signal = origin.request.signal
  signal.addEventListener('abort', gone, { once: true })
}

/**
 * Where the request body comes from, whatever the method (a GET may carry one): none (no Content-Length
 * above 0, no Transfer-Encoding), Node's own stream, or the web one. A declared body with neither — an
 * upgrade, whose bytes follow on the socket, or a server whose Request drops a GET body — is refused:
 * its framing headers without its bytes would hold the origin's connection until the timeout.
 */
function bodyOf(origin: OriginRequest, c: Context, tunnel: Tunnel | undefined): 'none' | 'incoming' | 'stream' {
  // `Content-Length: 0` is still sent as the client sent it, with its (empty) body.
  if (!declaresBody(origin.request.headers)) return 'none'
  if (tunnel) throw new UnforwardableBody(origin.method, 'that asks for an upgrade')
  const incoming = nodeIncoming(c)
  if (incoming && !origin.request.bodyUsed) return 'incoming'
  if (origin.request.body) return 'stream'
  throw new UnforwardableBody(origin.method, 'on this server, which does not hand it over')
}

/** The server's IncomingMessage when @hono/node-server (or proxyUpgrades) put it in `env`. */
function nodeIncoming(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
}

export function pipeIncoming(incoming: IncomingMessage, request: ReturnType<typeof httpRequest>, fail: (error: unknown) => void): void {
  // A client that goes away mid-upload: the origin request goes too (the proxy then answers 499).
  incoming.once('close', () => {
    if (!incoming.complete) fail(new Error('the client went away mid-upload'))
  })
  incoming.once('error', fail)
  incoming.pipe(request)
}

async function pumpStream(body: ReadableStream<Uint8Array>, request: ReturnType<typeof httpRequest>, fail: (error: unknown) => void): Promise<void> {
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      if (!request.write(chunk)) await new Promise((resolve) => request.once('drain', resolve))
    }
    request.end()
  } catch (error) {
    fail(error)
  }
}
