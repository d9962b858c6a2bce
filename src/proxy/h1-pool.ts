/**
 * @module
 * The fast path's own HTTP/1.1 client: keep-alive connections to the origin, a request written as one
 * head (the client's header lines in their order and case, as ./headers.ts built them) and the answer
 * read with ./h1.ts — no ClientRequest, IncomingMessage or stream objects per request. Runtime-neutral:
 * the socket comes from a dialer, found at run time (`bunDial`: Bun.connect; ./node-dial.ts: node:net).
 * Used only for requests without a body; anything else takes the transport's path.
 */
import { H1ProtocolError, H1Reader, type H1Head } from './h1.ts'
import type { H1Answer, H1Dial, H1Flow, H1Socket } from './h1-types.ts'
import { OriginTimeout } from './transport.ts'

export { EXACT_TRANSPORT } from './h1-types.ts'
export type { ExactTransport, H1Answer, H1Dial, H1Flow, H1Socket, H1SocketEvents } from './h1-types.ts'

interface Connection {
  socket: H1Socket | undefined
  reader: H1Reader | undefined
  answer: H1Answer | undefined
  /** Whether bytes of the current answer arrived (a reused connection closed before any may be retried). */
  heard: boolean
  /** Paused for the current answer's client; resumed before the connection is reused. */
  paused: boolean
  idleSince: number
  /** When the origin's answer is due (its head), ms since the epoch; 0 once it came. */
  deadline: number
  timeoutMs: number
  /** The request it carries (kept for a retry): the answer's `flow` once sent. */
  flow: PoolRequest | undefined
  /** Whether the request may be sent again on a new connection if this one closes before a byte of answer. */
  retryable: boolean
}

/** One request on the pool, and its answer's flow control: an object with methods, not a closure each (less to allocate per request). */
class PoolRequest implements H1Flow {
  /** The connection carrying it. */
  c: Connection | undefined

  constructor(
    private readonly pool: H1Pool,
    readonly method: string,
    readonly head: string | Uint8Array,
    readonly timeoutMs: number,
    readonly answer: H1Answer,
  ) {}

  // Only while the connection still carries this answer: back in the pool it may carry another's.
  pause(): void {
    const c = this.c
    if (c?.answer !== this.answer || !c.socket) return
    c.paused = true
    c.socket.pause()
  }

  resume(): void {
    const c = this.c
    if (c?.answer !== this.answer || !c.paused) return
    c.paused = false
    c.socket?.resume()
  }

  abort(): void {
    const c = this.c
    if (c?.answer !== this.answer) return
    c.answer = undefined
    this.pool.drop(c)
  }
}

/** The reader's events for a connection: its answer's, the end read from the reader once a feed is done (onData). */
const READER_EVENTS = (c: Connection) => ({
  head: (head: H1Head) => {
    c.deadline = 0
    c.answer?.head(head)
  },
  data: (bytes: Uint8Array) => c.answer?.data(bytes),
  end: () => {},
})

export class H1Pool {
  private readonly idle: Connection[] = []
  private sweeper: ReturnType<typeof setInterval> | undefined
  /** Connections waiting for an answer's head, checked by one timer per pool (a timer per request costs more than the rest of a request's work on Bun). */
  private readonly waiting = new Set<Connection>()
  private watch: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly dial: H1Dial,
    private readonly host: string,
    private readonly port: number,
    private readonly keepAliveMs: number,
  ) {}

  /** Sends a bodiless request, its head written whole (./h1-text.ts); the answer's callbacks follow. */
  request(method: string, head: string | Uint8Array, timeoutMs: number, answer: H1Answer): H1Flow {
    const request = new PoolRequest(this, method, head, timeoutMs, answer)
    const idle = this.idle.pop()
    if (idle) this.begin(request, idle, true)
    else this.begin(request, this.connect(), false)
    return request
  }

  private begin(request: PoolRequest, c: Connection, reused: boolean): void {
    const { method } = request
    request.c = c
    // A kept-alive connection's reader reads its next answer: one reader per connection, not per request.
    if (c.reader?.complete) c.reader.next(method)
    else c.reader = new H1Reader(READER_EVENTS(c), method)
    c.answer = request.answer
    c.flow = request
    c.heard = false
    // Sent again only where no origin can have acted on it: idempotent, on a kept-alive connection that closed before a byte of answer.
    c.retryable = reused && (method === 'GET' || method === 'HEAD')
    if (c.socket) this.send(c)
  }

  private send(c: Connection): void {
    const request = c.flow!
    c.socket!.write(request.head)
    this.expectBy(c, request.timeoutMs)
  }

  /** A new connection; its request is sent once it is connected (set on it by then). */
  private connect(): Connection {
    const c: Connection = { socket: undefined, reader: undefined, answer: undefined, heard: false, paused: false, idleSince: 0, deadline: 0, timeoutMs: 0, flow: undefined, retryable: false }
    this.dial(this.host, this.port, {
      data: (bytes) => this.onData(c, bytes),
      close: (error) => this.onClose(c, error),
    }).then(
      (socket) => {
        c.socket = socket
        if (c.answer) this.send(c)
        else socket.destroy()
      },
      (error) => this.fail(c, error),
    )
    return c
  }

  private onData(c: Connection, bytes: Uint8Array): void {
    const { reader, answer } = c
    if (!reader || !answer) return this.drop(c) // bytes nobody asked for: the connection is not to be trusted
    c.heard = true
    try {
      reader.feed(bytes)
    } catch (error) {
      return this.fail(c, error)
    }
    if (!reader.complete) return
    c.answer = undefined
    if (reader.reusable) this.release(c)
    else this.drop(c)
    answer.end()
  }

  private onClose(c: Connection, error: unknown): void {
    c.socket = undefined
    const index = this.idle.indexOf(c)
    if (index !== -1) this.idle.splice(index, 1)
    const { reader, answer } = c
    if (!reader || !answer) return
    if (!c.heard && c.retryable && c.flow) {
      c.deadline = 0
      c.answer = undefined
      return this.begin(c.flow, this.connect(), false)
    }
    try {
      reader.close()
    } catch (closed) {
      return this.fail(c, error ?? closed)
    }
    c.answer = undefined
    answer.end()
  }

  private fail(c: Connection, error: unknown): void {
    const answer = c.answer
    c.answer = undefined
    c.reader = undefined
    this.drop(c)
    answer?.error(error instanceof Error ? error : new H1ProtocolError(String(error)))
  }

  /** Closes a connection (its request's `abort` too). */
  drop(c: Connection): void {
    c.deadline = 0
    this.waiting.delete(c)
    const socket = c.socket
    c.socket = undefined
    socket?.destroy()
  }

  /** The origin has `timeoutMs` from now to send its answer's head, checked every tenth of it (at least every 10 ms, at most every second): late by that much at most. */
  private expectBy(c: Connection, timeoutMs: number): void {
    c.deadline = Date.now() + timeoutMs
    c.timeoutMs = timeoutMs
    this.waiting.add(c)
    if (this.watch) return
    this.watch = setInterval(() => this.check(), Math.min(1000, Math.max(10, timeoutMs / 10)))
    ;(this.watch as { unref?: () => void }).unref?.()
  }

  private check(): void {
    const now = Date.now()
    for (const c of this.waiting) {
      if (c.deadline === 0) this.waiting.delete(c)
      else if (c.deadline <= now) this.fail(c, new OriginTimeout(c.timeoutMs))
    }
    if (this.waiting.size === 0) {
      clearInterval(this.watch)
      this.watch = undefined
    }
  }

  private release(c: Connection): void {
    c.flow = undefined // nothing of a finished request kept by an idle connection
    // The last bytes of an answer may have paused it (the client was slow): the next answer must be read.
    if (c.paused) {
      c.paused = false
      c.socket?.resume()
    }
    if (this.idle.length >= 256) return this.drop(c) // at most 256 idle, as node:http's Agent (maxFreeSockets): a burst's connections close as they go idle
    c.idleSince = Date.now()
    this.idle.push(c)
    // Idle connections older than keepAliveMs are closed, checked a few times per period: one timer per pool, not per request.
    this.sweeper ??= setInterval(() => this.sweep(), Math.max(250, this.keepAliveMs / 4))
    ;(this.sweeper as { unref?: () => void }).unref?.()
  }

  private sweep(): void {
    const oldest = Date.now() - this.keepAliveMs
    while (this.idle.length > 0 && this.idle[0]!.idleSince < oldest) this.drop(this.idle.shift()!)
    if (this.idle.length === 0) {
      clearInterval(this.sweeper)
      this.sweeper = undefined
    }
  }
}
