/**
 * @module
 * An origin answer's Transfer-Encoding, read as RFC 9112 §6.1 writes it: a comma-separated list of codings in
 * the order the origin applied them, each a token in any case with optional `;` parameters. The body is chunked
 * only when the last coding is exactly `chunked` (`xchunked` is another coding: that body runs until the
 * connection closes, as node:http reads it). Transfer codings are this hop's, like the chunk framing the proxy
 * takes off, and no header tells the client about them once Transfer-Encoding is dropped as hop-by-hop — so the
 * codings the proxy can undo (gzip, deflate) it undoes on every path: the client gets the body the origin meant,
 * never compressed bytes without a label. One it cannot undo (`compress`, an unknown name) leaves the bytes as
 * sent, as node:http leaves them.
 */
import { isLower } from './ascii.ts'

/** A transfer coding the proxy undoes, named as DecompressionStream names it (RFC 9112 `deflate` is zlib's format). */
export type TransferDecoding = 'gzip' | 'deflate'

const DECODINGS: ReadonlyMap<string, TransferDecoding> = new Map([['gzip', 'gzip'], ['x-gzip', 'gzip'], ['deflate', 'deflate']])

/** The codings of a Transfer-Encoding value (several lines joined with `, `), in order, lower-case, without parameters or empty elements. */
export function transferCodings(value: string): string[] {
  const codings: string[] = []
  for (const part of value.split(',')) {
    const semicolon = part.indexOf(';')
    const coding = (semicolon === -1 ? part : part.slice(0, semicolon)).trim().toLowerCase()
    if (coding) codings.push(coding)
  }
  return codings
}

/** Whether a Transfer-Encoding value's last coding is `chunked`: the body's framing (else it runs until close). */
export function isChunked(value: string): boolean {
  if (value === 'chunked') return true // the usual value, as the head reader trimmed it: no list to build
  return transferCodings(value).at(-1) === 'chunked'
}

/**
 * What the proxy undoes of a body sent with this Transfer-Encoding, in the order to undo it (the last applied
 * first): every coding but a final `chunked` (the readers take that one off). Undefined when there is nothing
 * to undo, or one of them is a coding the proxy cannot undo — then the bytes pass as sent.
 */
export function transferDecodings(value: string): TransferDecoding[] | undefined {
  if (value === 'chunked') return undefined // the usual value: no list to build
  const codings = transferCodings(value)
  if (codings.at(-1) === 'chunked') codings.pop()
  const decodings: TransferDecoding[] = []
  for (const coding of codings) {
    if (coding === 'identity') continue
    const decoding = DECODINGS.get(coding)
    if (decoding === undefined) return undefined
    decodings.unshift(decoding)
  }
  return decodings.length === 0 ? undefined : decodings
}

/** {@link transferDecodings} of a raw header list's Transfer-Encoding lines (node:http's `rawHeaders`): a look at each name's length, no header object. */
export function rawTransferDecodings(raw: readonly string[]): TransferDecoding[] | undefined {
  let value: string | undefined
  for (let i = 0; i + 1 < raw.length; i += 2) if (isLower(raw[i]!, 'transfer-encoding')) value = value === undefined ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`
  return value === undefined ? undefined : transferDecodings(value)
}

/** A body with `decodings` undone (web streams: DecompressionStream, on every runtime the proxy runs on). A body that does not decode errors: the client sees a broken body. */
export function decodedBody(body: ReadableStream<Uint8Array>, decodings: readonly TransferDecoding[]): ReadableStream<Uint8Array> {
  let out = body
  for (const decoding of decodings) out = out.pipeThrough(new DecompressionStream(decoding) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)
  return out
}

const BUN = typeof (globalThis as { Bun?: unknown }).Bun !== 'undefined'

/**
 * Whether a bodiless Response answering HEAD, behind Bun.serve, must say `Transfer-Encoding: chunked`: Bun.serve
 * writes `content-length: 0` on a Response without a body unless it says chunked — and a HEAD answer's length is
 * the GET's, so 0 tells the client the resource is empty. Chunked is how Bun.serve sends the GET's body of
 * unknown length, so the HEAD answer then says what the GET's would. Only where the origin gave no length, and
 * not for 204 or 304 (no body framing at all). Callers ask only for a Response Bun.serve writes (not @hono/node-server's).
 */
export function bunServeHeadChunked(method: string, status: number, hasLength: boolean): boolean {
  return BUN && method === 'HEAD' && !hasLength && status !== 204 && status !== 304
}
