/**
 * @module
 * A minimal HTTP/1.1 response reader for the fast path's own origin client (./h1-pool.ts), runtime-neutral
 * (bytes in, callbacks out). It reads what a client must to pass an answer on untouched: the status line,
 * the header lines as sent (names' case, order, repeats), and the body's framing — Content-Length, chunked
 * (its chunk framing is this hop's and is taken off; the bytes inside pass as sent, so a compressed body
 * stays compressed) or until close. 1xx answers before the final one are skipped, as node:http's client
 * skips them. Anything it does not understand is an error (the proxy answers 502), never a guess.
 */
import type { HeaderList } from './headers.ts'
import { readAnswerHeadKept } from './h1-head.ts'
import { H1ProtocolError, headText, MAX_FRAMED_SIZE } from './h1-text.ts'
import { transferDecodings, type TransferDecoding } from './transfer-codings.ts'

export { H1ProtocolError } from './h1-text.ts'

/** The status line and header lines of an answer. */
export interface H1Head {
  status: number
  statusText: string
  headers: HeaderList
  /** Whether the connection may carry another request after this answer. */
  keepAlive: boolean
  /** The body's length when Content-Length gives it (undefined: chunked, until close, or none). */
  length: number | undefined
  /** Transfer codings besides chunked the answer's reader must undo (./transfer-codings.ts); undefined: none. */
  decode: TransferDecoding[] | undefined
}

export interface H1Events {
  head(head: H1Head): void
  data(bytes: Uint8Array): void
  /** The answer is complete; `reusable`: the connection may carry the next request. */
  end(reusable: boolean): void
}

/** Response heads larger than this are refused (node:http's client refuses above 16 KiB too). */
const MAX_HEAD = 64 * 1024
const CR = 13
const LF = 10
/** RFC 9112 §7.1 `chunk-size = 1*HEXDIG`: any number of digits (leading zeros), then extensions. */
const CHUNK_SIZE = /^([0-9a-fA-F]+)[ \t]*(?:;.*)?$/

/** The size a chunk-size line states; throws on anything else, or on a size above {@link MAX_FRAMED_SIZE}. */
function chunkSizeOf(line: string): number {
  const digits = CHUNK_SIZE.exec(line)?.[1]
  const size = digits === undefined ? Number.NaN : parseInt(digits, 16)
  if (!(size <= MAX_FRAMED_SIZE)) throw new H1ProtocolError(`an unreadable chunk size: ${JSON.stringify(line.slice(0, 40))}`)
  return size
}

/** The chunk line from `at` to the LF at `lf`, without its CR. */
const chunkLine = (bytes: Uint8Array, at: number, lf: number): string => headText(bytes, at, lf > at && bytes[lf - 1] === CR ? lf - 1 : lf)

/** Reads one answer after another from a connection's bytes, for requests sent with `method` in order. */
export class H1Reader {
  private buffer: Uint8Array | undefined
  /** How far past the head's start the search for its end has looked (bytes kept in `buffer` between feeds). */
  private scanned = 0
  private state: 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'close' | 'done' = 'head'
  private remaining = 0
  private keepAlive = false
  private leftover = false // bytes came after the answer: the connection is not reused

  constructor(
    private readonly events: H1Events,
    private method: string,
  ) {}

  /** Reads the next answer, to a request sent with `method` (a connection's reader is reused: no allocation per request). */
  next(method: string): void {
    if (this.state !== 'done') throw new H1ProtocolError('the previous answer is not complete')
    this.method = method
    this.state = 'head'
    this.buffer = undefined
    this.scanned = 0
  }

  /** Bytes from the connection; throws {@link H1ProtocolError} on anything unreadable. */
  feed(chunk: Uint8Array): void {
    let bytes = chunk
    if (this.buffer) {
      bytes = new Uint8Array(this.buffer.length + chunk.length)
      bytes.set(this.buffer)
      bytes.set(chunk, this.buffer.length)
      this.buffer = undefined
    }
    let at = 0
    while (at < bytes.length) {
      const next = this.step(bytes, at)
      if (next === -1) {
        this.buffer = bytes.subarray(at)
        return
      }
      at = next
    }
    this.scanned = 0
  }

  /** The connection closed: the end of a body read until close, else an answer cut short. */
  close(): void {
    if (this.state === 'close') {
      this.state = 'done'
      this.events.end(false)
      return
    }
    if (this.state !== 'done') throw new H1ProtocolError('the origin closed the connection before the end of its answer')
  }

  get complete(): boolean {
    return this.state === 'done'
  }

  /** Complete, and the connection may carry the next request. */
  get reusable(): boolean {
    return this.state === 'done' && this.keepAlive && !this.leftover
  }

  /** Reads from `at`; returns where it stopped, or -1 when more bytes are needed (kept from `at`). */
  private step(bytes: Uint8Array, at: number): number {
    switch (this.state) {
      case 'head':
        return this.readHead(bytes, at)
      case 'length': {
        const take = Math.min(this.remaining, bytes.length - at)
        this.remaining -= take
        this.events.data(bytes.subarray(at, at + take))
        if (this.remaining === 0) this.finish()
        return at + take
      }
      case 'close':
        this.events.data(bytes.subarray(at))
        return bytes.length
      case 'chunk-data': {
        const take = Math.min(this.remaining, bytes.length - at)
        this.remaining -= take
        if (take > 0) this.events.data(bytes.subarray(at, at + take))
        if (this.remaining === 0) this.state = 'chunk-end'
        return at + take
      }
      case 'chunk-size':
      case 'chunk-end':
      case 'trailers':
        return this.readChunkLine(bytes, at)
      default: // bytes beyond the answer: it is whole and still delivered, the connection not reused
        this.leftover = true
        return bytes.length
    }
  }

  private readChunkLine(bytes: Uint8Array, at: number): number {
    const lf = bytes.indexOf(LF, at)
    if (lf === -1) {
      if (bytes.length - at > 4096) throw new H1ProtocolError('a chunk line too long')
      return -1
    }
    const line = chunkLine(bytes, at, lf)
    if (this.state === 'chunk-end') {
      if (line !== '') throw new H1ProtocolError('a chunk longer than its size')
      this.state = 'chunk-size'
    } else if (this.state === 'chunk-size') {
      this.remaining = chunkSizeOf(line)
      this.state = this.remaining === 0 ? 'trailers' : 'chunk-data'
    } else if (line === '') {
      this.finish() // trailers are dropped, as node:http's transport drops them
    }
    return lf + 1
  }

  private finish(): void {
    this.state = 'done'
    this.events.end(this.keepAlive)
  }

  /** Where the head starting at `at` ends (after its blank line), or -1; throws on a bare LF at once. */
  private headEnd(bytes: Uint8Array, at: number): number {
    // Each LF is looked at once (native search), with the bytes before it: none is looked at again on the next feed.
    for (let i = bytes.indexOf(LF, at + this.scanned); i !== -1; i = bytes.indexOf(LF, i + 1)) {
      if (i === at || bytes[i - 1] !== CR) throw new H1ProtocolError('a line of the answer head ends in a bare LF') // at once, not a wait for a CRLFCRLF that never comes
      if (i - at >= 3 && bytes[i - 2] === LF && bytes[i - 3] === CR) return i + 1
    }
    return -1
  }

  private readHead(bytes: Uint8Array, at: number): number {
    const end = this.headEnd(bytes, at)
    if (end === -1) {
      if (bytes.length - at > MAX_HEAD) throw new H1ProtocolError('response headers too large')
      this.scanned = bytes.length - at
      return -1
    }
    this.scanned = 0
    // Read and checked once (./h1-head.ts; the same text read lately: its kept reading): whoever passes this head on need not look at it again.
    const head = readAnswerHeadKept(headText(bytes, at, end - 4))
    const { status: code, length, chunked, transferEncoding, close } = head
    if (code < 200) {
      if (code === 101) throw new H1ProtocolError('the origin switched protocols unasked')
      return end // 100, 103: informational, the final answer follows
    }
    this.keepAlive = !close
    const bodiless = this.method === 'HEAD' || code === 204 || code === 304
    if (transferEncoding && length !== undefined) throw new H1ProtocolError('both Transfer-Encoding and Content-Length')
    // A first chunk-size line in the same bytes is read before the head goes out: one refused is a 502, not a broken body.
    const lf = chunked && !bodiless ? bytes.indexOf(LF, end) : -1
    if (lf !== -1) chunkSizeOf(chunkLine(bytes, end, lf))
    const decode = transferEncoding && !bodiless ? transferDecodings(head.codings) : undefined
    this.events.head({ status: code, statusText: head.statusText, headers: head.headers, keepAlive: !close, length: bodiless ? 0 : chunked ? undefined : length, decode })
    if (bodiless) this.finish()
    else if (chunked) this.state = 'chunk-size'
    else if (transferEncoding || length === undefined) {
      this.state = 'close'
      this.keepAlive = false
    } else if (length === 0) this.finish()
    else {
      this.remaining = length
      this.state = 'length'
    }
    return end
  }
}
