/**
 * @module
 * What an origin's answer head must be before the proxy writes it to a client, on every path (node:http's
 * ServerResponse, the fast path's own client ./h1.ts, a fetch-style Response): a status in 100–599 and a
 * reason phrase, header names and values as RFC 9110 allows (a field value: no NUL, CR, LF or other control
 * character but HTAB, no DEL). Node's parser passes some heads its own writer then refuses by throwing
 * (status `099`, a DEL in the reason phrase), and a Response refuses others: checked here first, any of them
 * is a 502 — never a crash, never a client left without an answer.
 */

/** A header name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** Anything a field value or reason phrase may not hold: every control character but HTAB, and DEL (node:http's own rule). */
// eslint-disable-next-line no-control-regex
const NOT_FIELD_TEXT = /[^\t\x20-\x7e\x80-\xff]/
/** A whole head as read (lines joined by CRLF): a character no line may hold, or a CR or LF that is not part of a CRLF. */
// eslint-disable-next-line no-control-regex
const NOT_HEAD_TEXT = /[^\t\r\n\x20-\x7e\x80-\xff]|\r(?!\n)|(?<!\r)\n/

/** The origin's answer head is not one the proxy can pass on: answered 502. */
export class InvalidOriginAnswer extends Error {
  override name = 'InvalidOriginAnswer'
}

/** Why an answer's status is not one the proxy passes on, or undefined. */
export function statusProblem(status: number): string | undefined {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? undefined : `the origin answered status ${status}, outside 100-599`
}

/** Why a head's text (status line and header lines joined by CRLF, as read) is not passed on, or undefined. */
export function headTextProblem(text: string): string | undefined {
  const bad = NOT_HEAD_TEXT.exec(text)
  return bad ? `the origin's answer head holds ${JSON.stringify(bad[0])} at ${bad.index}` : undefined
}

/** Why a status, reason phrase and header list (name, value, …) are not passed on, or undefined. */
export function originHeadProblem(status: number, reason: string, headers: readonly string[]): string | undefined {
  const problem = statusProblem(status)
  if (problem) return problem
  if (NOT_FIELD_TEXT.test(reason)) return `the origin's reason phrase holds a control character: ${JSON.stringify(reason.slice(0, 60))}`
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = headers[i]!
    if (!TOKEN.test(name)) return `the origin sent an invalid header name: ${JSON.stringify(name.slice(0, 60))}`
    if (NOT_FIELD_TEXT.test(headers[i + 1]!)) return `the origin's ${name} header holds a control character`
  }
  return undefined
}

/** An {@link InvalidOriginAnswer} when the head is not passed on, else undefined. */
export function invalidOriginHead(status: number, reason: string, headers: readonly string[]): InvalidOriginAnswer | undefined {
  const problem = originHeadProblem(status, reason, headers)
  return problem === undefined ? undefined : new InvalidOriginAnswer(problem)
}

/** `text` (a head as read, lines joined by CRLF), or an {@link InvalidOriginAnswer} thrown. */
export function checkedHeadText(text: string): string {
  const problem = headTextProblem(text)
  if (problem) throw new InvalidOriginAnswer(problem)
  return text
}

/** `status`, or an {@link InvalidOriginAnswer} thrown when outside 100-599 (`000`, `099` are not interim answers). */
export function checkedStatus(status: number): number {
  const problem = statusProblem(status)
  if (problem) throw new InvalidOriginAnswer(problem)
  return status
}
