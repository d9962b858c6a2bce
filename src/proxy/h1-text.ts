/**
 * @module
 * Text in and out of the fast path's HTTP/1.1 client (./h1.ts reads, ./h1-pool.ts writes): heads are
 * Latin-1 on the wire, as node:http reads and writes them.
 */
import type { HeaderList } from './headers.ts'

/** Latin-1 text of bytes, as node:http reads header lines (TextDecoder's 'latin1' is windows-1252). */
export function latin1(bytes: Uint8Array, start: number, end: number): string {
  let text = ''
  for (let i = start; i < end; i += 4096) text += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(end, i + 4096)) as unknown as number[])
  return text
}

/** Whether a comma-separated header value has this token (lower-case), as Connection and Transfer-Encoding lists. */
export function hasToken(value: string, token: string): boolean {
  for (const part of value.split(',')) if (part.trim().toLowerCase() === token) return true
  return false
}

/** ASCII decodes the same as UTF-8 and Latin-1: one native decode (several times cheaper than fromCharCode on Bun). */
const ASCII = new TextDecoder()

/** Latin-1 text of a head: the native decoder when every byte is ASCII (`high`: the scan saw none above 0x7f). */
export function headText(bytes: Uint8Array, start: number, end: number, high: boolean): string {
  return high ? latin1(bytes, start, end) : ASCII.decode(bytes.subarray(start, end))
}

/** The request's first line and header lines (then `Connection: keep-alive`), as bytes when a value holds a byte above 0x7f (written Latin-1, as node:http does), else text. */
export function requestHead(method: string, path: string, headers: HeaderList): string | Uint8Array {
  let head = `${method} ${path} HTTP/1.1\r\n`
  for (let i = 0; i + 1 < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`
  // As node:http's keep-alive agent ends every head (HTTP/1.1's default, said out loud): the origin sees the same bytes either way.
  head += 'Connection: keep-alive\r\n\r\n'
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(head)) return head
  const bytes = new Uint8Array(head.length)
  for (let i = 0; i < head.length; i++) bytes[i] = head.charCodeAt(i) & 0xff
  return bytes
}
