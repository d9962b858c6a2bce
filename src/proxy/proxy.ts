/**
 * @module
 * A standalone reverse proxy with the waiting room in front: any site, not only a Hono app, can sit behind
 * the room. Runtime-neutral: how the origin is reached is a transport passed in (./transport.ts; fetch by
 * default, node:http from ./node.ts on Node), and it runs as is on Deno, Bun or Workers. Bodies stream both
 * ways; nothing is buffered.
 *
 * Per request: the forwarding guard decides what to believe about the client (./trust.ts) and which Host
 * it may ask for (./hosts.ts) *before* the room runs — the room reads X-Forwarded-Proto for its cookie's
 * Secure flag — then the room decides, then an admitted request goes to the origin.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono'
import type { StatusCode } from 'hono/utils/http-status'
import { waitingRoom, type RoomHandle, type WaitingRoomVariables } from '../room/middleware.ts'
import { registeredRoomOf } from '../room/registry.ts'
import type { Room } from '../room/room.ts'
import type { FastSetup, ProxyFastPath } from './fast.ts'
import { fetchFastPath, h1Forwarder } from './fast-h1.ts'
import { logOriginError, originFailure } from './failure.ts'
import { WaitingRoomError } from '../errors.ts'
import type { WaitingRoomOptions } from '../room/options.ts'
import { clientResponseHeaderList, clientResponseHeaders, headerListOf, originRequestHeaderObject, originRequestHeaders, withRoomHeaders } from './headers.ts'
import { parsePublicHosts, type HostMatcher } from './hosts.ts'
import { ClientBodyError, fetchTransport, OriginTimeout, UnforwardableBody, type OriginRequest, type OriginResponse, type OriginTransport } from './transport.ts'
import { ownProtoOf, parseTrustProxy, resolveForwarded, type Forwarded, type TrustPolicy, type TrustProxy } from './trust.ts'

export type { OriginRequest, OriginResponse, OriginTransport } from './transport.ts'
export { fetchTransport, OriginTimeout, UnforwardableBody } from './transport.ts'
export type { Forwarded, TrustProxy } from './trust.ts'
export type { ProxyFastPath } from './fast.ts'

export interface ProxyOptions {
  /** Base URL of the site behind the room, e.g. `http://127.0.0.1:8080` (a path prefix is kept). Required. */
  origin: string | URL
  /** The waiting room in front of every request. Default: `waitingRoom()`'s defaults. */
  room?: WaitingRoomOptions | undefined
  /** The client's address (the TCP peer); runtime-specific, so passed in (the CLI uses conninfo). Default: unknown. */
  clientAddress?: (c: Context) => string | undefined
  /**
   * Which X-Forwarded-For/-Proto/-Host to believe: a number of proxies in front (`1` behind one nginx), or
   * their addresses / CIDR ranges (`['10.0.0.0/8', '::1']`). Default: none — the client's forwarding
   * headers are replaced by what the proxy itself sees, and `Forwarded`, X-Real-IP and the rest of
   * forwarding claims (`isForwardingClaim`, ./forwarding-claims.ts) are dropped.
   */
  trustProxy?: TrustProxy | undefined
  /**
   * The host names this proxy answers for (`['shop.example', '*.shop.example']`; a name without a port
   * matches any port). Another Host gets 421, no Host at all 400, before the room or origin. Default: any.
   */
  publicHosts?: string | readonly string[] | undefined
  /** Ms the origin may take to send response headers once it has the whole request, else 504. Bodies are not limited. Default 30000. */
  originTimeoutMs?: number | undefined
  /** How the origin is reached. Default: `fetchTransport({ fetch })`; on Node and Bun, `nodeTransport()` from `./node.ts` forwards headers and bytes exactly. */
  transport?: OriginTransport | undefined
  /** The fetch of the default transport (tests, service bindings). Default: the global `fetch`. */
  fetch?: typeof fetch | undefined
  /** Told about each failed origin request (502/504). Default: one `console.error` line. */
  onOriginError?: ((error: unknown, request: Request) => void) | undefined
  /**
   * Forward an admitted user's request without running the whole app when the room has nothing else to do
   * for it (./fast.ts): the same answer, less work. `false` runs every request through the app (the
   * differential test compares the two). Default true.
   */
  fastPath?: boolean | undefined
}

/** The proxy app's variables: the room's decision, and what the proxy concluded about the client. */
export type ProxyEnv = { Variables: WaitingRoomVariables & { forwarded: Forwarded } }

/**
 * A Hono app that runs the waiting room and then forwards every admitted request to `origin`.
 *
 * @example
 * ```ts
 * import { serve } from '@hono/node-server'
 * import { createProxyApp } from 'hono-waiting-room/proxy'
 *
 * const app = createProxyApp({ origin: 'http://127.0.0.1:8080', room: { totalActiveUsers: 500 }, publicHosts: ['shop.example'] })
 * serve({ fetch: app.fetch, port: 8787 })
 * ```
 */
export function createProxyApp(options: ProxyOptions): Hono<ProxyEnv> & { readonly room: RoomHandle; readonly fastPath: ProxyFastPath | undefined } {
  const originBase = parseOrigin(options.origin)
  const timeoutMs = options.originTimeoutMs ?? 30_000
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option originTimeoutMs: expected a positive integer of ms, got ${timeoutMs}`)
  }
  const policy = parseTrustProxy(options.trustProxy)
  const pinned = parsePublicHosts(options.publicHosts)
  const app = new Hono<ProxyEnv>()
  // Validates the room's options now, so a bad one fails at build time rather than on the first request.
  const room = waitingRoom(options.room ?? {})
  const clientAddress = options.clientAddress ?? (() => undefined)
  app.use('*', forwardingGuard(policy, pinned, clientAddress))
  app.use('*', room as unknown as MiddlewareHandler<ProxyEnv>)
  const forward = forwarder(options, originBase, timeoutMs)
  app.all('*', forward)
  const setup: FastSetup = {
    room: registeredRoomOf(room) as Room,
    policy,
    pinned,
    originBase,
    originPath: originBase.pathname.replace(/\/$/, ''),
    keepCommand: (options.room?.enabledOriginCommands ?? []).includes('revoke'),
    clientAddress,
  }
  const fastPath = options.fastPath === false ? undefined : { setup, transport: forward.transport, timeoutMs, onOriginError: forward.onOriginError }
  // On Bun with an exact transport, the fast path forwards through its own HTTP/1.1 client (./fast-h1.ts).
  if (fastPath) app.fetch = fetchFastPath(setup, forward as (c: Context) => Promise<Response>, app.fetch, h1Forwarder(forward.transport, originBase, timeoutMs, forward.onOriginError)) as Hono['fetch']
  // The room's handle, so whoever serves the app can flush its counts before shutting down.
  return Object.assign(app, { room: room.room, fastPath })
}

/**
 * Runs before the room: resolves the client's address, scheme and host under the trust policy, refuses
 * hosts that are not ours, and makes the request's X-Forwarded-Proto say what was concluded (the room's
 * Secure cookie decision reads it), deleting a client's forged one.
 */
function forwardingGuard(policy: TrustPolicy, pinned: HostMatcher | undefined, clientAddress: (c: Context) => string | undefined): MiddlewareHandler<ProxyEnv> {
  return async function proxyForwardingGuard(c, next) {
    const headers = c.req.raw.headers
    const hostHeader = headers.get('host') ?? undefined
    const url = c.req.url
    const ownProto = ownProtoOf(url, c.env)
    // Runtimes without a Host header on the Request (app.request in tests) still have the URL's.
    const ownHost = hostHeader ?? (pinned ? undefined : new URL(url).host)
    const forwarded = resolveForwarded(headers, { peer: clientAddress(c), proto: ownProto, host: ownHost }, policy)
    if (pinned) {
      if (!forwarded.host) return c.text('400 Bad Request: no Host header\n', 400)
      if (!pinned(forwarded.host)) return c.text(`421 Misdirected Request: this proxy does not serve ${forwarded.host}\n`, 421)
    }
    // The room reads X-Forwarded-Proto, else the URL's scheme (an absolute-form target's, under node-server): it must read what was concluded.
    const urlProto = url.startsWith('https:') ? 'https' : 'http'
    if (headers.get('x-forwarded-proto') !== null || forwarded.proto !== urlProto) setRequestHeader(c, 'x-forwarded-proto', forwarded.proto === urlProto ? undefined : forwarded.proto)
    c.set('forwarded', forwarded)
    await next()
  }
}

/** Sets (or, with undefined, deletes) a request header; on runtimes whose request headers are immutable (workerd), swaps in a copy. */
function setRequestHeader(c: Context, name: string, value: string | undefined): void {
  try {
    if (value === undefined) c.req.raw.headers.delete(name)
    else c.req.raw.headers.set(name, value)
  } catch {
    const headers = new Headers(c.req.raw.headers)
    if (value === undefined) headers.delete(name)
    else headers.set(name, value)
    c.req.raw = new Request(c.req.raw, { headers })
  }
}

function forwarder(options: ProxyOptions, originBase: URL, timeoutMs: number) {
  const originPath = originBase.pathname.replace(/\/$/, '')
  const transport = options.transport ?? fetchTransport({ fetch: options.fetch })
  const onOriginError = options.onOriginError ?? logOriginError
  const keepCommand = (options.room?.enabledOriginCommands ?? []).includes('revoke')
  const forwardToOrigin = async (c: Context<ProxyEnv>): Promise<Response> => {
    const forwarded = c.get('forwarded')
    const url = c.req.url
    const upgrade = upgradeOf(c.req.raw.headers)
    let list: string[] | undefined
    let headers: Headers | undefined
    const proxyBase = (): string => `${forwarded.proto}://${forwarded.host ?? new URL(url).host}`
    // Each transport takes the form it sends best; the other is never built.
    const request: OriginRequest = {
      origin: originBase,
      path: originPath + pathAndQuery(url),
      method: c.req.method,
      get headerList() {
        return (list ??= originRequestHeaders(rawHeaderList(c), forwarded, originBase.host, upgrade))
      },
      get headers() {
        return (headers ??= originRequestHeaderObject(c.req.raw.headers, forwarded, upgrade))
      },
      request: c.req.raw,
      timeoutMs,
      clientHeaderList(originList) {
        const own = clientResponseHeaderList(originList, originBase, proxyBase, keepCommand)
        // The room's headers so far (a renewed ticket), read without making c.res: Hono would merge into a set one.
        return own && withRoomHeaders(own, c.newResponse(null).headers)
      },
    }
    let response: OriginResponse | Response
    try {
      if (upgrade) {
        const upgraded = transport.upgrade?.(request, c)
        if (!upgraded) return c.text(`this proxy cannot forward an Upgrade: ${upgrade} request on this runtime\n`, 501)
        response = await upgraded
      } else {
        response = await transport.request(request, c)
      }
    } catch (error) {
      if (error instanceof ClientBodyError) return c.text('request body could not be read\n', 400) // the client went away mid-upload
      if (error instanceof UnforwardableBody) return c.text(`${error.message}\n`, 501)
      // The client left: nobody reads this answer, and the origin is not to blame.
      if (c.req.raw.signal.aborted) return new Response(null, { status: 499 })
      onOriginError(error, c.req.raw)
      const timedOut = error instanceof OriginTimeout
      return originFailure(c, timedOut ? 504 : 502, timedOut ? 'origin timed out' : 'origin unreachable')
    }
    if (response instanceof Response) return response // the transport has answered the client itself
    // newResponse starts from the headers the room already set (its ticket) and appends the origin's cookies.
    return c.newResponse(response.body, {
      status: response.status as StatusCode,
      statusText: response.statusText,
      headers: clientResponseHeaders(response.headers, originBase, proxyBase(), keepCommand),
    })
  }
  return Object.assign(forwardToOrigin, { transport, onOriginError })
}

/**
 * `/a/b?c=1` of an absolute request URL, as a string: the runtime has normalized it already, and a URL
 * object per request is measurable on the proxy's hot path.
 */
function pathAndQuery(url: string): string {
  const slash = url.indexOf('/', url.indexOf('//') + 2)
  return slash === -1 ? '/' : url.slice(slash)
}

/** The client's headers as received: Node's raw list (exact names, order, repeats) when the server exposes it. */
function rawHeaderList(c: Context): string[] {
  const incoming = (c.env as { incoming?: { rawHeaders?: string[] } } | undefined)?.incoming
  return incoming?.rawHeaders ?? headerListOf(c.req.raw.headers)
}

/** The protocol a request asks to switch to (`websocket`), when it asks with both Connection and Upgrade. */
function upgradeOf(headers: Headers): string | undefined {
  const upgrade = headers.get('upgrade')
  if (!upgrade) return undefined
  return /(?:^|,)\s*upgrade\s*(?:,|$)/i.test(headers.get('connection') ?? '') ? upgrade : undefined
}

function parseOrigin(origin: string | URL): URL {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option origin: expected an http(s) URL such as http://127.0.0.1:8080, got ${String(origin)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option origin: expected an http(s) URL, got ${url.protocol} in ${url.href}`)
  }
  if (url.search || url.hash) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option origin: a base URL takes no query or fragment, got ${url.href}`)
  }
  return url
}
