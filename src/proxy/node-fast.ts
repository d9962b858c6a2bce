/// <reference types="node" />
/**
 * @module
 * The proxy's fast path on Node, below @hono/node-server: the server's request listener asks the proxy
 * (./fast.ts, which asks the room) whether a request is an admitted user with nothing more to do; if so it
 * pipes the request to the origin with node:http and the answer back, as the node:http transport does
 * (./node.ts) — no Request, Context routing, Headers or Response per request. Otherwise, and for every
 * URL node-server would rewrite, the request goes to node-server's listener and the whole app, unchanged.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { Context } from 'hono'
import { hasHeader } from './headers.ts'
import { ContextClass, fastClientHeaders, fastForward, fastOriginHeaders, rawHeaderOf, type FastForward, type ProxyFastPath } from './fast.ts'
import { answerDirectly, writeResponse } from './node-answer.ts'
import { NODE_AGENTS, pipeIncoming, type Agents } from './node.ts'
import { declaresBody, OriginTimeout } from './transport.ts'
import { invalidOriginHead } from './origin-validate.ts'
import { originFailure } from './failure.ts'
import { h1Answer, h1PoolOf } from './node-h1.ts'

export interface FastListenerOptions {
  /** A path prefix never forwarded (the CLI's `--admin-path`): requests that may read as under it go the whole way. */
  isReserved?: ((path: string) => boolean) | undefined
}

/** node-server builds the URL from Host and the target as sent only when both look like this; anything else it rewrites (./fast.ts needs them as sent). */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/
const PLAIN_TARGET = /^\/[!#$&-;=?-[\]_a-z~]*$/
const DOT_SEGMENT = /\/\.\.?(?:[/?#]|$)/

const SCHEME = /^(https?):\/\//i

/**
 * An absolute-form target's scheme in lower case: node-server takes a target as absolute only when it starts
 * with `http://` or `https://` as written, and answers 400 to `HTTP://shop.example/a`, where the scheme is
 * case-insensitive (RFC 9110 §4.2.3) and Bun.serve forwards it. Only the path counts (README), so nothing else changes.
 */
function lowerScheme(incoming: IncomingMessage): void {
  const url = incoming.url
  if (url === undefined || url.charCodeAt(0) === 47) return
  const scheme = SCHEME.exec(url)?.[1]
  if (scheme && scheme !== scheme.toLowerCase()) incoming.url = `${scheme.toLowerCase()}${url.slice(scheme.length)}`
}

/**
 * `node` (node-server's listener, running the proxy app) with the fast path in front. Without a node:http
 * transport (`nodeTransport()`), only `node` (after {@link lowerScheme}): the fast path pipes with its keep-alive pools.
 */
export function fastListener(fast: ProxyFastPath, node: RequestListener, options: FastListenerOptions = {}): RequestListener {
  const listener: RequestListener = (incoming, outgoing) => {
    lowerScheme(incoming)
    node(incoming, outgoing)
  }
  const agents = (fast.transport as { [NODE_AGENTS]?: Agents })[NODE_AGENTS]
  const Context = ContextClass
  if (!agents || !Context) return listener
  const pool = h1PoolOf(fast)
  return (incoming, outgoing) => {
    const target = incoming.url ?? ''
    const raw = incoming.rawHeaders
    const header = rawHeaderOf(raw)
    // Every Host line, joined as the whole path reads them: node's `headers.host` keeps only the first, and
    // two lines (`a, b`) must meet the whole path's pinning (421), not ride the first one past it.
    const host = header('host')
    if (!host || !PLAIN_HOST.test(host) || !PLAIN_TARGET.test(target) || DOT_SEGMENT.test(target) || target.includes('#')) return listener(incoming, outgoing)
    const query = target.indexOf('?')
    if (options.isReserved?.(query === -1 ? target : target.slice(0, query))) return listener(incoming, outgoing)
    const proto = (incoming.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http'
    const url = `${proto}://${host}${target}`
    const c = new Context(plainRequest(incoming, url), { env: { incoming, outgoing } })
    const forward = fastForward(fast.setup, c, { method: incoming.method!, target, host, proto, header })
    if (!forward) return listener(incoming, outgoing)
    // Bodiless requests go through the fast path's own client (./h1-pool.ts): node:http's ClientRequest and
    // IncomingMessage per request cost more than the rest of the proxy. Anything with a body is piped.
    if (pool && !incoming.headers['content-length'] && !incoming.headers['transfer-encoding'] && !incoming.headers.expect) return h1Answer(fast, pool, c, forward, incoming, outgoing)
    pipe(fast, agents, c, forward, incoming, outgoing)
  }
}

/**
 * What the proxy's functions read of a Request (url, method, headers on demand: the `clientAddress`
 * option, the room's location, the failure page's Accept), without node-server's Request.
 */
function plainRequest(incoming: IncomingMessage, url: string): Request {
  let headers: Headers | undefined
  return {
    url,
    method: incoming.method!,
    get headers() {
      if (headers) return headers
      headers = new Headers()
      for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!)
      return headers
    },
  } as Request
}

/** The node:http transport's forwarding (./node.ts `send`), for a request the fast path took. */
function pipe(fast: ProxyFastPath, agents: Agents, c: Context, forward: FastForward, incoming: IncomingMessage, outgoing: ServerResponse): void {
  const { setup } = fast
  const origin = setup.originBase
  const https = origin.protocol === 'https:'
  const header = rawHeaderOf(incoming.rawHeaders)
  const body = declaresBody({ get: (name: string) => header(name) ?? null, has: (name: string) => header(name) !== undefined } as Headers)
  const list = fastOriginHeaders(setup, forward, incoming.rawHeaders)
  const method = incoming.method!
  const request = (https ? httpsRequest : httpRequest)({
    protocol: origin.protocol,
    hostname: origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname,
    port: origin.port,
    path: forward.path,
    method,
    headers: body && !hasHeader(list, 'content-length') ? [...list, 'Transfer-Encoding', 'chunked'] : list,
    agent: https ? agents.https : agents.http,
  })
  let timer: ReturnType<typeof setTimeout> | undefined
  let settled = false
  let answer: IncomingMessage | undefined
  const fail = (error: unknown): void => {
    clearTimeout(timer)
    // An error after a whole answer (bytes beyond it): the socket is gone already; destroying the request would drop the answer's unread body.
    if (answer?.complete) return
    request.destroy()
    if (settled) return
    settled = true
    if (outgoing.destroyed || outgoing.headersSent) return // the client left: nobody reads an answer
    fast.onOriginError(error, c.req.raw)
    const timedOut = error instanceof OriginTimeout
    void writeResponse(originFailure(c, timedOut ? 504 : 502, timedOut ? 'origin timed out' : 'origin unreachable'), outgoing)
  }
  // `on`, not `once`: each fires once at most, and a once-wrapper's removal costs per request.
  outgoing.on('close', () => {
    if (!outgoing.writableFinished) fail(new Error('the client went away'))
  })
  request.on('finish', () => {
    if (!settled) timer = setTimeout(() => fail(new OriginTimeout(fast.timeoutMs)), fast.timeoutMs)
  })
  request.on('error', fail)
  request.on('response', (response) => {
    clearTimeout(timer)
    // A head Node's parser passed but its writer refuses — status 099, a DEL in the reason: 502, not a crash.
    const invalid = invalidOriginHead(response.statusCode!, response.statusMessage ?? '', response.rawHeaders)
    if (invalid) return fail(invalid)
    answer = response
    settled = true
    answerDirectly(response, outgoing, fastClientHeaders(setup, c, forward, response.rawHeaders), method)
  })
  if (body) pipeIncoming(incoming, request, fail)
  else request.end()
}
