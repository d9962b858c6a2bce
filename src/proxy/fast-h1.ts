/**
 * @module
 * The fast path through the proxy's own HTTP/1.1 client (./h1-pool.ts) behind a fetch-style server (Bun.serve):
 * an admitted request without a body goes to the origin as one written head, and the origin's answer comes
 * back as a Response of its status, header lines (rewritten as on the whole path: ./fast.ts) and body bytes
 * as sent — whole when short, else streamed with the origin's socket paused while the client is slower.
 */
import type { Context } from 'hono'
import { ContextClass, fastClientHeaders, fastForward, fetchRequestView, type FastForward, type FastSetup } from './fast.ts'
import { applyOriginCommand } from '../room/pipeline/origin-command.ts'
import { originFailure } from './failure.ts'
import { CF_COMMAND_HEADER, COMMAND_HEADER, hasHeader, type HeaderList } from './headers.ts'
import { bunDial } from './h1-dial.ts'
import { EXACT_TRANSPORT, H1Pool, type ExactTransport, type H1Answer, type H1Flow } from './h1-pool.ts'
import type { H1Head } from './h1.ts'
import { originRequestHead } from './h1-text.ts'
import { bunServeHeadChunked, decodedBody } from './transfer-codings.ts'
import { declaresBody, OriginTimeout, untypedBody, type OriginTransport } from './transport.ts'

/** What the fast path needs to forward through its own client. */
export interface H1Forwarder {
  pool: H1Pool
  timeoutMs: number
  onOriginError: (error: unknown, request: Request) => void
  /** The client's side of origin heads read lately, by their kept reading's header list ({@link clientLinesOf}). */
  kept: WeakMap<HeaderList, ClientLines>
}

/** An origin head's lines as the client gets them: the Response's pairs, and whether they have a Content-Type. */
interface ClientLines {
  pairs: [string, string][]
  typed: boolean
}

/**
 * Bodies of known length up to this size are collected and answered in one piece: one write, no stream. The
 * node:http transport's bound (./node.ts): an origin that breaks off such a body gets 502 on both, a longer
 * one a broken body.
 */
const WHOLE_BODY_MAX = 16 * 1024

/**
 * A client for the fast path when the transport forwards exactly (node:http) and this runtime has a socket
 * the client can use (Bun); the origin must be plain http (https keeps the transport). Else undefined.
 */
export function h1Forwarder(transport: OriginTransport, origin: URL, timeoutMs: number, onOriginError: H1Forwarder['onOriginError']): H1Forwarder | undefined {
  const exact = (transport as { [EXACT_TRANSPORT]?: ExactTransport })[EXACT_TRANSPORT]
  const dial = exact && origin.protocol === 'http:' ? (exact.dial ?? bunDial()) : undefined
  if (!dial || !exact) return undefined
  const host = origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname
  return { pool: new H1Pool(dial, host, Number(origin.port || 80), exact.keepAliveMs), timeoutMs, onOriginError, kept: new WeakMap() }
}

/** Whether the fast path's client takes this request: no body, nothing asking for an interim answer. */
export function h1Takes(headers: Headers): boolean {
  return !declaresBody(headers) && !headers.has('expect')
}

/** Forwards `request` (the fast path's yes: `fast`) and answers with the origin's response, or 502/504. */
export function h1Forward(h1: H1Forwarder, setup: FastSetup, c: Context, fast: FastForward, request: Request): Promise<Response> {
  const head = originRequestHead(request.method, fast.path, request.headers, fast.forwarded, setup.originBase.host)
  return new Promise((resolve) => {
    const exchange = new Exchange(h1, setup, c, fast, request, resolve)
    exchange.flow = h1.pool.request(request.method, head, h1.timeoutMs, exchange)
  })
}

/** One request's answer, as the pool's callbacks: an object with methods rather than a closure each (less to allocate per request). */
class Exchange implements H1Answer {
  flow: H1Flow | undefined
  private chunks: Uint8Array[] | undefined
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined
  private answered = false
  private done = false
  private answer: H1Head | undefined
  private client: ClientLines | undefined

  constructor(
    private readonly h1: H1Forwarder,
    private readonly setup: FastSetup,
    private readonly c: Context,
    private readonly fast: FastForward,
    private readonly request: Request,
    private readonly resolve: (response: Response) => void,
  ) {}

  private respond(body: BodyInit | null): void {
    const { pairs } = this.client!
    // The head was checked as it was read (./h1-head.ts: a head the proxy cannot pass on never gets here). Built
    // before `answered` is set: one a Response still cannot carry is a 502 here — called from the pool's end() too,
    // outside its error path — never a promise left unsettled.
    let response: Response
    try {
      response = new Response(body, { status: this.answer!.status, statusText: this.answer!.statusText, headers: pairs })
    } catch (error) {
      this.done = true
      this.flow?.abort()
      return this.error(error)
    }
    this.answered = true
    this.resolve(response)
  }

  head(answer: H1Head): void {
    this.answer = answer
    const client = (this.client = clientLinesOf(this.h1, this.setup, this.c, this.fast, answer.headers))
    if (answer.length === 0) {
      // A copy: the kept lines are shared by every answer with this head.
      const lengthless = !client.pairs.some(([name]) => name.toLowerCase() === 'content-length')
      if (!(this.c.env as { outgoing?: unknown } | undefined)?.outgoing && bunServeHeadChunked(this.request.method, answer.status, !lengthless)) {
        this.client = { pairs: [...client.pairs, ['transfer-encoding', 'chunked']], typed: client.typed }
      }
      return this.respond(null)
    }
    if (answer.length !== undefined && answer.length <= WHOLE_BODY_MAX) {
      this.chunks = []
      return
    }
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => void (this.controller = controller),
      pull: () => this.flow?.resume(),
      cancel: () => ((this.done = true), this.flow?.abort()),
    }, new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }))
    // Transfer codings besides chunked (gzip): undone, as Transfer-Encoding, their only label, does not reach the client.
    this.respond(answer.decode ? decodedBody(body, answer.decode) : body)
  }

  data(bytes: Uint8Array): void {
    if (this.chunks) return void this.chunks.push(bytes)
    const controller = this.controller
    if (this.done || !controller) return
    controller.enqueue(bytes)
    if ((controller.desiredSize ?? 1) <= 0) this.flow?.pause()
  }

  end(): void {
    const chunks = this.chunks
    if (chunks) return this.respond(untyped((chunks.length === 1 ? chunks[0]! : concat(chunks, this.answer!.length!)) as Uint8Array<ArrayBuffer>, this.client!.typed))
    if (!this.done) this.controller?.close()
    this.done = true
  }

  error(error: unknown): void {
    if (this.answered) {
      // The origin broke off mid-body: the client must see a broken body, not a short one.
      if (!this.done) this.controller?.error(error)
      this.done = true
      return
    }
    this.h1.onOriginError(error, this.request)
    const timedOut = error instanceof OriginTimeout
    this.resolve(originFailure(this.c, timedOut ? 504 : 502, timedOut ? 'origin timed out' : 'origin unreachable'))
  }
}

/** Bytes as a Response body that gets no Content-Type the origin did not send (see {@link untypedBody}). */
function untyped(bytes: Uint8Array<ArrayBuffer>, typed: boolean): BodyInit {
  return typed ? bytes : untypedBody(bytes)
}

/**
 * The client's lines for an origin head's `list` (./fast.ts `fastClientHeaders`). A kept reading's list (frozen:
 * ./h1-head.ts `readAnswerHeadKept`, the same list for the same head) keeps its client lines too, unless they
 * depend on the request: a Location (pointed at the proxy this request came through) or an origin command.
 */
function clientLinesOf(h1: H1Forwarder, setup: FastSetup, c: Context, fast: FastForward, list: HeaderList): ClientLines {
  const kept = h1.kept.get(list)
  if (kept) return kept
  const own = fastClientHeaders(setup, c, fast, list)
  const pairs: [string, string][] = []
  for (let i = 0; i + 1 < own.length; i += 2) pairs.push([own[i]!, own[i + 1]!])
  const lines = { pairs, typed: hasHeader(own, 'content-type') }
  if (Object.isFrozen(list) && !REQUEST_BOUND.some((name) => hasHeader(list, name))) h1.kept.set(list, lines)
  return lines
}

/** Origin header lines whose rewriting for the client depends on the request (fastClientHeaders). */
const REQUEST_BOUND = ['location', COMMAND_HEADER, CF_COMMAND_HEADER]

function concat(chunks: Uint8Array[], length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.length
  }
  return bytes
}

type FetchHandler = (request: Request, env?: unknown, executionCtx?: never) => Response | Promise<Response>

/**
 * `app.fetch` with the fast path in front (./fast.ts): an admitted request the room has nothing more to
 * do for is forwarded by the same forwarder, without Hono's routing and the room's pipeline; the origin's
 * `revoke` is obeyed as the room does after `next()`. Anything else goes to the app.
 */
export function fetchFastPath(setup: FastSetup, forward: (c: Context) => Promise<Response>, appFetch: FetchHandler, h1?: H1Forwarder): FetchHandler {
  const Context = ContextClass
  if (!Context) return appFetch
  return (request, env, executionCtx) => {
    const c = new Context(request, { env, executionCtx })
    const url = request.url
    const raw = (env as { incoming?: { rawHeaders?: string[] } } | undefined)?.incoming?.rawHeaders
    const fast = fastForward(setup, c, fetchRequestView(request, url, raw, env))
    if (!fast) return appFetch(request, env, executionCtx)
    // The fast path's own client where it has one (Bun): it obeys the origin's commands itself (fastClientHeaders).
    if (h1 && h1Takes(request.headers)) return h1Forward(h1, setup, c, fast, request)
    c.set('forwarded', fast.forwarded)
    const answered = forward(c)
    if (!setup.keepCommand) return answered
    return answered.then((response) => {
      c.res = response
      applyOriginCommand(setup.room, c, fast.pass.ticketId, fast.pass.countedMinute, fast.pass.now)
      return c.res
    })
  }
}
