/**
 * @module
 * An origin's answer head, as ./h1.ts found it (the status line and header lines joined by CRLF, without the
 * blank line), read into what the reader needs — and checked once, here: a character no head may hold, a
 * status outside 100-599 (./origin-validate.ts: refused before anyone writes it) or a line that is not
 * `HTTP/1.x DDD reason` / `name: value` is an error, so whoever passes the head on need not look again. One
 * pass with indexOf and char codes, no split or regex per line: this runs for every answer the fast path reads.
 */
import type { HeaderList } from './headers.ts'
import { sameLower } from './ascii.ts'
import { H1ProtocolError, hasToken, MAX_FRAMED_SIZE } from './h1-text.ts'
import { checkedHeadText, checkedStatus } from './origin-validate.ts'
import { isChunked } from './transfer-codings.ts'

/** What a head says, as read. */
export interface ReadHead {
  status: number
  statusText: string
  /** The header lines as sent: names' case, order and repeats; values without their surrounding spaces. */
  headers: HeaderList
  /** Content-Length, when sent (once, or repeated with the same value). */
  length: number | undefined
  /** Whether Transfer-Encoding was sent, its codings as sent (several lines joined with `, `), and whether the last is chunked (./transfer-codings.ts). */
  transferEncoding: boolean
  codings: string
  chunked: boolean
  /** Whether the connection closes after this answer (HTTP/1.0 without keep-alive, or `Connection: close`). */
  close: boolean
}

/** RFC 9110 tchar, by char code (a header name is one or more of them). */
const TCHAR = new Uint8Array(128)
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TCHAR[c.charCodeAt(0)] = 1
/** What ./origin-validate.ts refuses in a head's text, but a bare LF (its lookbehind is half that rule's cost on Bun). */
// eslint-disable-next-line no-control-regex
const CONTROL_OR_BARE_CR = /[^\t\r\n\x20-\x7e\x80-\xff]|\r(?!\n)/

const isDigit = (code: number): boolean => code >= 48 && code <= 57

/** One or more decimal digits from `from` to `to` (leading zeros too), or undefined; a value above {@link MAX_FRAMED_SIZE} is undefined. */
function decimal(text: string, from: number, to: number): number | undefined {
  if (to <= from) return undefined
  let n = 0
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i)
    if (!isDigit(code)) return undefined
    // Checked at each digit: n stays below 2^53, so every step is exact.
    n = n * 10 + (code - 48)
    if (n > MAX_FRAMED_SIZE) return undefined
  }
  return n
}

function isToken(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i)
    if (code > 127 || TCHAR[code] === 0) return false
  }
  return to > from
}

/** `HTTP/1.x DDD[ reason]` at the start of `text`, ending at `eol`; throws on anything else. */
function statusOf(text: string, eol: number): number {
  const minor = text.charCodeAt(7)
  const ok = text.startsWith('HTTP/1.') && (minor === 48 || minor === 49) && text.charCodeAt(8) === 32 && isDigit(text.charCodeAt(9)) && isDigit(text.charCodeAt(10)) && isDigit(text.charCodeAt(11)) && (eol === 12 || (eol > 12 && text.charCodeAt(12) === 32))
  if (!ok) throw new H1ProtocolError(`an unreadable status line: ${JSON.stringify(text.slice(0, Math.min(eol, 60)))}`)
  // 000, 099: not interim answers, refused (origin-validate.ts).
  return checkedStatus((text.charCodeAt(9) - 48) * 100 + (text.charCodeAt(10) - 48) * 10 + (text.charCodeAt(11) - 48))
}

/** Reads and checks a head's text (lines joined by CRLF, no bare LF); throws InvalidOriginAnswer (./origin-validate.ts) or {@link H1ProtocolError}. */
export function readAnswerHead(text: string): ReadHead {
  // NUL, a bare CR, DEL… anywhere: a 502 now, not a head a client's writer throws on. Whatever else is wrong, this
  // first. A bare LF never gets here (the reader refuses it as the bytes come): the cheaper look without it, then
  // the whole rule (./origin-validate.ts) for its words.
  if (CONTROL_OR_BARE_CR.test(text)) checkedHeadText(text)
  let eol = text.indexOf('\r\n')
  if (eol === -1) eol = text.length
  const status = statusOf(text, eol)
  const http10 = text.charCodeAt(7) === 48
  const head: ReadHead = { status, statusText: eol > 13 ? text.slice(13, eol) : '', headers: [], length: undefined, transferEncoding: false, codings: '', chunked: false, close: http10 }
  while (eol < text.length) {
    const start = eol + 2
    eol = text.indexOf('\r\n', start)
    if (eol === -1) eol = text.length
    // name ":" OWS value OWS
    const colon = text.indexOf(':', start)
    if (colon === -1 || colon >= eol || !isToken(text, start, colon)) throw new H1ProtocolError(`an unreadable header line: ${JSON.stringify(text.slice(start, Math.min(eol, start + 60)))}`)
    let from = colon + 1
    let to = eol
    while (from < to && (text.charCodeAt(from) === 32 || text.charCodeAt(from) === 9)) from++
    while (to > from && (text.charCodeAt(to - 1) === 32 || text.charCodeAt(to - 1) === 9)) to--
    const name = text.slice(start, colon)
    const value = text.slice(from, to)
    head.headers.push(name, value)
    // Only the three names the reader needs are looked at, by their length then char codes: no lower-cased copies.
    const length = colon - start
    if (length === 14 && sameLower(text, start, 'content-length')) {
      const n = decimal(text, from, to)
      if (n === undefined || (head.length !== undefined && head.length !== n)) throw new H1ProtocolError(`an invalid Content-Length: ${value}`)
      head.length = n
    } else if (length === 17 && sameLower(text, start, 'transfer-encoding')) {
      head.transferEncoding = true
      // A list, read as one (`xchunked` is not chunked): its last coding decides.
      head.codings = head.codings === '' ? value : `${head.codings}, ${value}`
      head.chunked = isChunked(head.codings)
    } else if (length === 10 && sameLower(text, start, 'connection')) {
      // The usual single token read in place; a list the long way.
      const one = to - from
      if (one === 5 && sameLower(text, from, 'close')) head.close = true
      else if (one === 10 && sameLower(text, from, 'keep-alive')) {
        if (http10) head.close = false
      }
      else if (hasToken(value, 'close')) head.close = true
      else if (http10 && hasToken(value, 'keep-alive')) head.close = false
    }
  }
  return head
}

/** Heads longer than this are read each time, never kept (a memo of a few long heads could hold megabytes). */
const MEMO_TEXT_MAX = 2048
/** How many heads are kept: an origin answers with few distinct heads at a time; past this the memo starts over. */
const MEMO_MAX = 128
const memo = new Map<string, ReadHead>()

/**
 * {@link readAnswerHead} for a head read lately from the same text: the same (frozen) reading. An origin sends
 * the same head for many answers in a row (its Date changes once a second), and a head's reading depends on its
 * text alone; on Bun the reading, and the rewriting of its header lines for the client that follows it
 * (./fast-h1.ts keys that by this reading), were a good part of the proxy's own JavaScript per request. A head
 * refused is never kept: the same text is refused again. Bounded by count and by text length.
 */
export function readAnswerHeadKept(text: string): ReadHead {
  let head = memo.get(text)
  if (head !== undefined) return head
  head = readAnswerHead(text)
  if (text.length > MEMO_TEXT_MAX) return head
  if (memo.size >= MEMO_MAX) memo.clear()
  Object.freeze(head.headers)
  memo.set(text, Object.freeze(head))
  return head
}
