/**
 * @module
 * Text in and out of the fast path's HTTP/1.1 client (./h1.ts reads, ./h1-pool.ts writes): heads are
 * Latin-1 on the wire, as node:http reads and writes them.
 */
import { connectionNamedOf, crosses, type HeaderList } from './headers.ts'
import type { Forwarded } from './trust.ts'

/** Latin-1 text of bytes, as node:http reads header lines (TextDecoder's 'latin1' is windows-1252). */
export function latin1(bytes: Uint8Array, start: number, end: number): string {
  let text = ''
  for (let i = start; i < end; i += 4096) text += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(end, i + 4096)) as unknown as number[])
  return text
}

export class H1ProtocolError extends Error {
  override name = 'H1ProtocolError'
}

/** Whether a comma-separated header value has this token (lower-case), as Connection and Transfer-Encoding lists. */
export function hasToken(value: string, token: string): boolean {
  if (!value.includes(',')) return value.length >= token.length && value.trim().toLowerCase() === token // one token: no list to build
  for (const part of value.split(',')) if (part.trim().toLowerCase() === token) return true
  return false
}

/** ASCII decodes the same as UTF-8 and Latin-1: one native decode (several times cheaper than fromCharCode on Bun). */
const ASCII = new TextDecoder()
// eslint-disable-next-line no-control-regex
const NOT_ASCII = /[^\x00-\x7f]/
/** Node's and Bun's native Latin-1 decode of a byte range (Buffer's, callable on any Uint8Array): no view, no second look. */
const LATIN1_SLICE = (globalThis as { Buffer?: { prototype: { latin1Slice?: (this: Uint8Array, start: number, end: number) => string } } }).Buffer?.prototype.latin1Slice

/**
 * Latin-1 text of a head or chunk line: Buffer's latin1Slice where there is one; else one UTF-8 decode, which
 * is the text when every byte is ASCII (a byte above 0x7f never decodes to ASCII), else byte by byte.
 */
export function headText(bytes: Uint8Array, start: number, end: number): string {
  if (LATIN1_SLICE) return LATIN1_SLICE.call(bytes, start, end)
  const text = ASCII.decode(bytes.subarray(start, end))
  return NOT_ASCII.test(text) ? latin1(bytes, start, end) : text
}

/** The request's first line and header lines (then `Connection: keep-alive`), as bytes when a value holds a byte above 0x7f (written Latin-1, as node:http does), else text. */
export function requestHead(method: string, path: string, headers: HeaderList): string | Uint8Array {
  let lines = ''
  for (let i = 0; i + 1 < headers.length; i += 2) lines += `${headers[i]}: ${headers[i + 1]}\r\n`
  return headOf(method, path, lines)
}

/**
 * The same head for a fetch Request's Headers, the origin's lines as ./headers.ts `originRequestHeaders` has
 * them (same lines, same order) written straight in: no header lists in between.
 */
export function originRequestHead(method: string, path: string, headers: Headers, forwarded: Forwarded, originHost: string): string | Uint8Array {
  const connection = headers.get('connection')
  const named = connection === null ? undefined : connectionNamedOf(connection)
  let lines = `Host: ${originHost}\r\n`
  // Fetch Headers' names are lower-case already. forEach, not for…of: no entry array and iterator result per line (half the cost on Bun).
  headers.forEach((value, name) => {
    if (crosses(name, forwarded, named)) lines += `${name}: ${value}\r\n`
  })
  if (forwarded.chain.length > 0) lines += `X-Forwarded-For: ${forwarded.chain.join(', ')}\r\n`
  lines += `X-Forwarded-Proto: ${forwarded.proto}\r\n`
  if (forwarded.host) lines += `X-Forwarded-Host: ${forwarded.host}\r\n`
  return headOf(method, path, lines)
}

function headOf(method: string, path: string, lines: string): string | Uint8Array {
  // As node:http's keep-alive agent ends every head (HTTP/1.1's default, said out loud): the origin sees the same bytes either way.
  const head = `${method} ${path} HTTP/1.1\r\n${lines}Connection: keep-alive\r\n\r\n`
  if (!NOT_ASCII.test(head)) return head
  const bytes = new Uint8Array(head.length)
  for (let i = 0; i < head.length; i++) bytes[i] = head.charCodeAt(i) & 0xff
  return bytes
}

/**
 * A body or chunk larger than this is refused (256 TiB: no body is that large, and the count stays exact in a
 * double). Framing numbers may carry any number of leading zeros (RFC 9112 `1*HEXDIG`, RFC 9110 `1*DIGIT`): the
 * value is bounded, never the digits.
 */
export const MAX_FRAMED_SIZE = 2 ** 48 - 1
