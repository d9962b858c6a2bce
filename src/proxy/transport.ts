/**
 * @module
 * How the proxy reaches the origin. The transport is passed in, as Hono passes runtime code in: fetch
 * is everywhere, but it is a browser API and behaves like one — it adds request headers the client never
 * sent (undici: `accept-language: *`, `sec-fetch-mode: cors`, `accept-encoding: gzip, deflate`; Bun:
 * `Accept`, `User-Agent`) and decodes compressed bodies it cannot be told to leave alone (except on Bun,
 * with `decompress: false`). On Node and Bun, `nodeTransport()` from ./node.ts speaks HTTP/1.1 itself and forwards
 * bytes exactly; the CLI uses it. This file keeps the runtime-neutral fetch transport, which makes the
 * best of fetch: it offers the origin only codings fetch decodes, and drops the coding headers it undid.
 */
import type { Context } from 'hono'
import { endToEndHeadersOf, type HeaderList } from './headers.ts'

/** One request for the origin, its headers already rewritten. */
export interface OriginRequest {
  /** The origin's base URL, as configured. */
  origin: URL
  /**
   * Path and query for the origin: its base path, then the client's (`/app/a/b?c=1`). Append it to the
   * origin's scheme and authority; never resolve it against the base, or `//evil.example/` becomes a host.
   */
  path: string
  method: string
  /** The request headers for the origin, in order, names as the client wrote them (./headers.ts; built on first use). */
  readonly headerList: HeaderList
  /** The same as a Headers, without Host (fetch derives it from the URL); built on first use. */
  readonly headers: Headers
  /**
   * The client's request: its body (if any) streams on to the origin, and its `signal` aborts when the
   * client goes away — then the origin request must be cancelled too.
   */
  request: Request
  /** Ms the origin may take to send its response headers once it has the whole request. */
  timeoutMs: number
  /**
   * For a transport that writes the answer to the client itself (node:http under @hono/node-server): the
   * origin's response headers as a list → the client's (rewritten as for a Response, the room's own headers
   * such as a renewed ticket included), or undefined when the answer must reach the room as a Response
   * (it carries an origin command the room obeys).
   */
  clientHeaderList(originList: HeaderList): HeaderList | undefined
}

/**
 * The origin's answer. The proxy owns `headers` and edits them in place. `body` streams, or is the whole
 * body when a transport already has it (a short body of known length: one write instead of a stream).
 */
export interface OriginResponse {
  status: number
  statusText: string
  headers: Headers
  body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null
}

export interface OriginTransport {
  /**
   * Sends the request; rejects with {@link OriginTimeout} past `timeoutMs`, or with the network error.
   * Resolves with a Response when the transport has already answered the client itself (the proxy returns
   * it as is), else with the origin's answer for the proxy to pass on.
   */
  request(request: OriginRequest, c: Context): Promise<OriginResponse | Response>
  /**
   * Forwards a connection upgrade (WebSocket), if this runtime and server can hand over the client's
   * socket; undefined otherwise, and the proxy answers 501 rather than turn the upgrade into a plain GET.
   */
  upgrade?(request: OriginRequest, c: Context): Promise<OriginResponse> | undefined
}

/** The origin sent no response headers in time (the proxy answers 504). */
export class OriginTimeout extends Error {
  override name = 'OriginTimeout'
  constructor(ms: number) {
    super(`no response headers from the origin within ${ms} ms`)
  }
}

export interface FetchTransportOptions {
  /** The fetch to call (tests, service bindings). Default: the global `fetch`. */
  fetch?: typeof fetch | undefined
  /** Whether this fetch decodes gzip/deflate/br bodies by itself. Default: true, except on Bun (`decompress: false`). */
  decodesBodies?: boolean | undefined
}

/** Content codings every decoding fetch we run on undoes by itself (undici, Deno, workerd). */
const DECODED_CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br'])
/** Methods fetch sends no body with (it throws on one): such a body is refused, see {@link UnforwardableBody}. */
const BODYLESS = new Set(['GET', 'HEAD'])
/** Statuses whose responses have no body (a Response with one throws). */
const NULL_BODY = new Set([101, 103, 204, 205, 304])

/** The runtime-neutral transport over fetch; see the module comment for what it cannot keep exact. */
export function fetchTransport(options: FetchTransportOptions = {}): OriginTransport {
  const originFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const decodes = options.decodesBodies ?? typeof (globalThis as { Bun?: unknown }).Bun === 'undefined'
  return {
    async request(origin) {
      const headers = origin.headers
      if (decodes) narrowAcceptEncoding(headers)
      if (BODYLESS.has(origin.method) && declaresBody(origin.request.headers)) {
        throw new UnforwardableBody(origin.method, 'with fetch, which sends none; use nodeTransport() on Node or Bun')
      }
      let body: ReadableStream<Uint8Array> | null
      try {
        body = await requestBody(origin.request)
      } catch (error) {
        throw new ClientBodyError(error)
      }
      // The timeout is the origin's time to start answering once it has the whole request: an upload
      // may take as long as it takes, and so may a download once the headers are here. One controller
      // for the timeout and the client's signal: AbortSignal.any costs more than the rest of the request.
      const abort = new AbortController()
      const client = origin.request.signal
      const onClientAbort = (): void => abort.abort(client.reason)
      if (client.aborted) onClientAbort()
      else client.addEventListener('abort', onClientAbort, { once: true })
      let timer: ReturnType<typeof setTimeout> | undefined
      let timedOut = false
      let answered = false
      const startTimer = (): void => {
        if (answered) return
        timer = setTimeout(() => {
          timedOut = true
          abort.abort(new OriginTimeout(origin.timeoutMs))
        }, origin.timeoutMs)
      }
      if (body) body = body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: startTimer }))
      else startTimer()
      let response: Response
      try {
        response = await originFetch(origin.origin.origin + origin.path, {
          method: origin.method,
          headers,
          body,
          duplex: 'half', // required by fetch for a streamed body: the upload streams while the answer may start
          redirect: 'manual', // the browser follows redirects itself, through the proxy (and the room) again
          signal: abort.signal,
          decompress: false, // Bun only: keep the origin's bytes
        } as RequestInit)
      } catch (error) {
        throw timedOut ? abort.signal.reason : error
      } finally {
        answered = true
        clearTimeout(timer)
        client.removeEventListener('abort', onClientAbort)
      }
      const copy = endToEndHeadersOf(response.headers)
      if (decodes) dropDecodedCoding(copy)
      const nullBody = NULL_BODY.has(response.status) || origin.method === 'HEAD'
      return { status: response.status, statusText: response.statusText, headers: copy, body: nullBody ? null : response.body }
    },
  }
}

/**
 * The client sent a body this transport cannot forward: a GET or HEAD body through fetch (which refuses
 * one), or any body the runtime's server does not hand over. The proxy answers 501 at once rather than send
 * the origin framing headers without their bytes (the origin would wait for them until the timeout).
 */
export class UnforwardableBody extends Error {
  override name = 'UnforwardableBody'
  constructor(method: string, how: string) {
    super(`this proxy cannot forward the body of a ${method} request ${how}`)
  }
}

/**
 * Whether a request declares a body by its framing (RFC 9112 §6.3): Transfer-Encoding, or a Content-Length
 * above 0. Any method may carry one (RFC 9110 §9.3.1: a GET body has no defined meaning, but Elasticsearch's
 * `GET _search` uses it), and a proxy that forwards the framing must forward the bytes.
 */
export function declaresBody(headers: Headers): boolean {
  if (headers.has('transfer-encoding')) return true
  const length = headers.get('content-length')
  return length !== null && !/^\s*0+\s*$/.test(length)
}

/** The client's request body could not be read (it went away mid-upload): the proxy answers 400. */
export class ClientBodyError extends Error {
  override name = 'ClientBodyError'
  constructor(cause: unknown) {
    super('request body could not be read', { cause })
  }
}

/**
 * The client's Accept-Encoding narrowed to codings fetch decodes, so the proxy never receives a body it
 * cannot pass on (a zstd body would arrive still coded on some runtimes and decoded on others).
 */
function narrowAcceptEncoding(headers: Headers): void {
  const acceptEncoding = headers.get('accept-encoding')
  if (!acceptEncoding) return
  const kept = acceptEncoding
    .split(',')
    .map((part) => part.trim())
    .filter((part) => {
      const coding = part.split(';')[0]!.trim().toLowerCase()
      return coding === 'identity' || coding === '*' || DECODED_CODINGS.has(coding)
    })
  // `*` would let the origin pick any coding: name the ones we decode instead.
  const listed = kept.map((part) => (part.split(';')[0]!.trim() === '*' ? 'gzip, deflate, br' : part))
  if (listed.length > 0) headers.set('accept-encoding', listed.join(', '))
  else headers.delete('accept-encoding')
}

/** fetch has decoded a gzip/deflate/br body: its Content-Encoding and Content-Length no longer describe it. */
function dropDecodedCoding(headers: Headers): void {
  const coding = headers.get('content-encoding')
  if (!coding) return
  const codings = coding.split(',').map((part) => part.trim().toLowerCase()).filter(Boolean)
  if (codings.every((part) => DECODED_CODINGS.has(part) || part === 'identity')) {
    headers.delete('content-encoding')
    headers.delete('content-length')
  }
}

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

const TYPES_BYTES = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined'
/** Bytes the origin sent without Content-Type, as a body that gets none: on Bun, whose Response adds `application/octet-stream` to bytes, not to a stream, a one-chunk stream. */
export function untypedBody(bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> {
  return TYPES_BYTES ? new ReadableStream<Uint8Array>({ start: (c) => (c.enqueue(bytes), c.close()) }) : bytes
}
