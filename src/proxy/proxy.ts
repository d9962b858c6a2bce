/**
 * @module
 * A standalone reverse proxy with the waiting room in front: any site, not only a Hono app, can sit behind
 * the room. Runtime-neutral (fetch, streams, no `node:`): the Node CLI serves it with @hono/node-server,
 * and it runs as is on Deno, Bun or Workers. Bodies stream both ways; nothing is buffered.
 */
import { Hono, type Context } from 'hono'
import type { StatusCode } from 'hono/utils/http-status'
import { waitingRoom, type RoomHandle, type WaitingRoomEnv } from '../room/middleware.ts'
import { WaitingRoomError } from '../errors.ts'
import type { WaitingRoomOptions } from '../room/options.ts'
import { clientResponseHeaders, originRequestHeaders } from './headers.ts'

export interface ProxyOptions {
  /** Base URL of the site behind the room, e.g. `http://127.0.0.1:8080` (a path prefix is kept). Required. */
  origin: string | URL
  /** The waiting room in front of every request. Default: `waitingRoom()`'s defaults. */
  room?: WaitingRoomOptions
  /** The client's address for X-Forwarded-For; runtime-specific, so passed in (the CLI uses conninfo). Default: none sent. */
  clientAddress?: (c: Context) => string | undefined
  /** Ms the origin may take to send response headers once it has the whole request, else 504. Bodies are not limited. Default 30000. */
  originTimeoutMs?: number
  /** The fetch used to reach the origin (tests, service bindings). Default: the global `fetch`. */
  fetch?: typeof fetch
  /** Told about each failed origin request (502/504). Default: one `console.error` line. */
  onOriginError?: (error: unknown, request: Request) => void
}

/**
 * The scheme a TLS terminator in front of us reported. The room already trusts it for the ticket's Secure
 * flag (src/ticket/cookie.ts `isHttps`), so the origin and rewritten redirects see the same scheme.
 */
function forwardedProto(header: string | undefined): string | undefined {
  const first = header?.split(',')[0]?.trim().toLowerCase()
  return first === 'http' || first === 'https' ? first : undefined
}

/** Methods whose requests carry no body (fetch rejects one). */
const BODYLESS = new Set(['GET', 'HEAD'])

/**
 * The body to forward, still streaming. Runtimes hand every DELETE or OPTIONS a body stream, even an empty
 * one, and forwarding that would send the origin a chunked empty body; so a request that declares no body
 * framing gets its first chunk peeked at: an immediate end means no body at all.
 */
async function requestBody(request: Request): Promise<ReadableStream<Uint8Array> | null> {
  if (BODYLESS.has(request.method) || !request.body) return null
  const length = request.headers.get('content-length')
  if (length !== null) return length.trim() === '0' ? null : request.body
  if (request.headers.has('transfer-encoding')) return request.body
  const reader = request.body.getReader()
  const first = await reader.read()
  if (first.done) return null
  let pending: Uint8Array | undefined = first.value
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pending) {
        controller.enqueue(pending)
        pending = undefined
        return
      }
      const next = await reader.read()
      if (next.done) controller.close()
      else controller.enqueue(next.value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

/**
 * A Hono app that runs the waiting room and then forwards every admitted request to `origin`.
 *
 * @example
 * ```ts
 * import { serve } from '@hono/node-server'
 * import { createProxyApp } from 'hono-waiting-room/proxy'
 *
 * const app = createProxyApp({ origin: 'http://127.0.0.1:8080', room: { totalActiveUsers: 500 } })
 * serve({ fetch: app.fetch, port: 8787 })
 * ```
 */
export function createProxyApp(options: ProxyOptions): Hono<WaitingRoomEnv> & { readonly room: RoomHandle } {
  const originBase = parseOrigin(options.origin)
  const originPath = originBase.pathname.replace(/\/$/, '')
  const timeoutMs = options.originTimeoutMs ?? 30_000
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
    throw new WaitingRoomError('ERR_WR_OPTIONS', `invalid option originTimeoutMs: expected a positive integer of ms, got ${timeoutMs}`)
  }
  const originFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const onOriginError = options.onOriginError ?? logOriginError
  const clientAddress = options.clientAddress ?? (() => undefined)

  const app = new Hono<WaitingRoomEnv>()
  // Validates the room's options now, so a bad one fails at build time rather than on the first request.
  const room = waitingRoom(options.room ?? {})
  app.use('*', room)
  app.all('*', async function forwardToOrigin(c) {
    const incoming = new URL(c.req.url)
    // Set the parts, never resolve a string: a path like `//evil.example/` would otherwise change the host.
    const target = new URL(originBase)
    target.pathname = originPath + incoming.pathname
    target.search = incoming.search
    const from = {
      clientAddress: clientAddress(c),
      proto: forwardedProto(c.req.header('x-forwarded-proto')) ?? incoming.protocol.replace(/:$/, ''),
      host: c.req.header('host') ?? incoming.host,
    }
    const headers = originRequestHeaders(c.req.raw.headers, from)

    let body: ReadableStream<Uint8Array> | null
    try {
      body = await requestBody(c.req.raw)
    } catch {
      return c.text('request body could not be read\n', 400) // the client went away mid-upload
    }

    // The timeout is the origin's time to start answering once it has the whole request: an upload
    // may take as long as it takes, and so may a download once the headers are here.
    const timeout = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    let answered = false
    const startTimer = (): void => {
      if (!answered) timer = setTimeout(() => timeout.abort(new OriginTimeout(timeoutMs)), timeoutMs)
    }
    if (body) body = body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: startTimer }))
    else startTimer()
    let response: Response
    try {
      response = await originFetch(target, {
        method: c.req.method,
        headers,
        body,
        // Required by fetch for a streamed request body: the upload streams while the answer may start.
        duplex: 'half',
        // The browser follows redirects itself, through the proxy (and the room) again.
        redirect: 'manual',
        // A client that goes away cancels the origin request too.
        signal: anySignal([c.req.raw.signal, timeout.signal]),
      } as RequestInit)
    } catch (error) {
      // The client left: nobody reads this answer, and the origin is not to blame.
      if (c.req.raw.signal.aborted) return new Response(null, { status: 499 })
      const timedOut = timeout.signal.aborted
      onOriginError(timedOut ? timeout.signal.reason : error, c.req.raw)
      return originFailure(c, timedOut ? 504 : 502, timedOut ? 'origin timed out' : 'origin unreachable')
    } finally {
      answered = true
      clearTimeout(timer)
    }

    // newResponse starts from the headers the room already set (its ticket) and appends the origin's cookies.
    return c.newResponse(response.body, {
      status: response.status as StatusCode,
      statusText: response.statusText,
      headers: clientResponseHeaders(response.headers, originBase, `${from.proto}://${from.host}`),
    })
  })
  // The room's handle, so whoever serves the app can flush its counts before shutting down.
  return Object.assign(app, { room: room.room })
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

class OriginTimeout extends Error {
  override name = 'OriginTimeout'
  constructor(ms: number) {
    super(`no response headers from the origin within ${ms} ms`)
  }
}

/** `AbortSignal.any` where the runtime has it; otherwise a forwarding controller. */
function anySignal(signals: AbortSignal[]): AbortSignal {
  const any = (AbortSignal as { any?: (signals: AbortSignal[]) => AbortSignal }).any
  if (any) return any.call(AbortSignal, signals)
  const controller = new AbortController()
  for (const signal of signals) {
    if (signal.aborted) controller.abort(signal.reason)
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true })
  }
  return controller.signal
}

function logOriginError(error: unknown, request: Request): void {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
  const message = error instanceof Error ? error.message : String(error)
  console.error(`[hono-waiting-room] proxy: ${request.method} ${new URL(request.url).pathname} failed: ${message}${cause}`)
}

/** A short answer the user can read, in HTML for browsers and plain text for everything else. */
function originFailure(c: Context, status: 502 | 504, what: string): Response {
  c.header('Cache-Control', 'no-store')
  c.header('Retry-After', '5')
  if ((c.req.header('accept') ?? '').includes('text/html')) {
    const title = what.charAt(0).toUpperCase() + what.slice(1)
    return c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="10">` +
        `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>` +
        `<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem">` +
        `<h1>${title}</h1><p>The site behind this waiting room is not answering right now (${status}). ` +
        `This page retries in a few seconds.</p></body></html>`,
      status,
    )
  }
  return c.text(`${what} (${status})\n`, status)
}
