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
import { hasToken, headText, latin1 } from './h1-text.ts'
import { checkedHeadText, checkedStatus } from './origin-validate.ts'

/** The status line and header lines of an answer. */
export interface H1Head {
  status: number
  statusText: string
  headers: HeaderList
  /** Whether the connection may carry another request after this answer. */
  keepAlive: boolean
  /** The body's length when Content-Length gives it (undefined: chunked, until close, or none). */
  length: number | undefined
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

export class H1ProtocolError extends Error {
  override name = 'H1ProtocolError'
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: ([^\r\n]*))?$/
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** Reads one answer after another from a connection's bytes, for requests sent with `method` in order. */
export class H1Reader {
  private buffer: Uint8Array | undefined
  private scanned = 0
  /** Whether the head scanned so far has a byte above 0x7f (then it is decoded byte by byte). */
  private high = false
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
    this.high = false
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
    const line = latin1(bytes, at, lf > at && bytes[lf - 1] === CR ? lf - 1 : lf)
    if (this.state === 'chunk-end') {
      if (line !== '') throw new H1ProtocolError('a chunk longer than its size')
      this.state = 'chunk-size'
    } else if (this.state === 'chunk-size') {
      const size = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(line)
      if (!size) throw new H1ProtocolError(`an unreadable chunk size: ${JSON.stringify(line.slice(0, 40))}`)
      this.remaining = parseInt(size[1]!, 16)
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

  /** Where the head starting at `at` ends (after its blank line), or -1; notes a byte above 0x7f on the way, throws on a bare LF. */
  private headEnd(bytes: Uint8Array, at: number): number {
    for (let i = Math.max(at + this.scanned, at + 3); i < bytes.length; i++) {
      const byte = bytes[i]!
      if (byte > 0x7f) this.high = true
      else if (byte === LF) {
        if (bytes[i - 1] !== CR) throw new H1ProtocolError('a line of the answer head ends in a bare LF') // at once, not a wait for a CRLFCRLF that never comes
        if (bytes[i - 2] === LF && bytes[i - 3] === CR) return i + 1
      }
    }
    return -1
  }

  private readHead(bytes: Uint8Array, at: number): number {
    // The first three bytes are looked at as part of the end; the high-byte flag (and the bare-LF check) need them too.
    if (this.scanned === 0) for (let i = at; i < at + 3 && i < bytes.length; i++) if (bytes[i]! > 0x7f) this.high = true
    else if (bytes[i] === LF) throw new H1ProtocolError('a line of the answer head ends in a bare LF')
    const end = this.headEnd(bytes, at)
    if (end === -1) {
      if (bytes.length - at > MAX_HEAD) throw new H1ProtocolError('response headers too large')
      this.scanned = Math.max(0, bytes.length - at - 3)
      return -1
    }
    this.scanned = 0
    // NUL, a bare CR, DEL… in a line, a status 000 or 099 (not interim): a 502 now, not a head a client's writer throws on.
    const lines = checkedHeadText(headText(bytes, at, end - 4, this.high)).split('\r\n')
    this.high = false
    const status = STATUS_LINE.exec(lines[0]!)
    if (!status) throw new H1ProtocolError(`an unreadable status line: ${JSON.stringify(lines[0]!.slice(0, 60))}`)
    const code = checkedStatus(Number(status[2]))
    const headers: HeaderList = []
    let length: number | undefined
    let chunked = false
    let transferEncoding = false
    let close = status[1] === '0'
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!
      // name ":" OWS value OWS, read with indexOf rather than one regex per line (a profile's top JS frame on Bun).
      const colon = line.indexOf(':')
      const name = line.slice(0, colon)
      if (colon < 1 || !TOKEN.test(name)) throw new H1ProtocolError(`an unreadable header line: ${JSON.stringify(line.slice(0, 60))}`)
      let from = colon + 1
      let to = line.length
      while (from < to && (line.charCodeAt(from) === 32 || line.charCodeAt(from) === 9)) from++
      while (to > from && (line.charCodeAt(to - 1) === 32 || line.charCodeAt(to - 1) === 9)) to--
      const value = line.slice(from, to)
      headers.push(name, value)
      const lower = name.length === 14 || name.length === 17 || name.length === 10 ? name.toLowerCase() : ''
      if (lower === 'content-length') {
        const n = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN
        if (Number.isNaN(n) || (length !== undefined && length !== n)) throw new H1ProtocolError(`an invalid Content-Length: ${value}`)
        length = n
      } else if (lower === 'transfer-encoding') {
        transferEncoding = true
        chunked = value.trim().toLowerCase().endsWith('chunked')
      } else if (lower === 'connection') {
        if (hasToken(value, 'close')) close = true
        else if (status[1] === '0' && hasToken(value, 'keep-alive')) close = false
      }
    }
    if (code < 200) {
      if (code === 101) throw new H1ProtocolError('the origin switched protocols unasked')
      return end // 100, 103: informational, the final answer follows
    }
    this.keepAlive = !close
    const bodiless = this.method === 'HEAD' || code === 204 || code === 304
    if (transferEncoding && length !== undefined) throw new H1ProtocolError('both Transfer-Encoding and Content-Length')
    this.events.head({ status: code, statusText: status[3] ?? '', headers, keepAlive: !close, length: bodiless ? 0 : chunked ? undefined : length })
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
