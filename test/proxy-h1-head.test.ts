/**
 * The fast path's per-request shortcuts (issue 20, Bun throughput) say what the plain ways said, on generated
 * inputs: the one-pass answer-head reader (src/proxy/h1-head.ts) against a reference written the plain way
 * (split, one regex per line, lower-cased names — the reader before it); the origin's request head written
 * straight from Headers (src/proxy/h1-text.ts `originRequestHead`) against the lists it replaced; and the
 * per-name rules' memo (src/proxy/headers.ts), which must not change a verdict once it is full.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readAnswerHead, readAnswerHeadKept } from '../src/proxy/h1-head.ts'
import { originRequestHead, requestHead } from '../src/proxy/h1-text.ts'
import { clientResponseHeaderList, headerListOf, isForwardingClaim, originRequestHeaders } from '../src/proxy/headers.ts'
import { checkedHeadText, checkedStatus } from '../src/proxy/origin-validate.ts'
import type { Forwarded } from '../src/proxy/trust.ts'

/** The reader's answer the plain way: what h1.ts did before h1-head.ts. */
function reference(text: string) {
  const lines = checkedHeadText(text).split('\r\n')
  const status = /^HTTP\/1\.([01]) (\d{3})(?: ([^\r\n]*))?$/.exec(lines[0]!)
  if (!status) throw new Error('status line')
  const head = { status: checkedStatus(Number(status[2])), statusText: status[3] ?? '', headers: [] as string[], length: undefined as number | undefined, transferEncoding: false, codings: '', chunked: false, close: status[1] === '0' }
  const has = (value: string, token: string) => value.split(',').some((part) => part.trim().toLowerCase() === token)
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':')
    const name = line.slice(0, colon)
    if (colon < 1 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new Error('header line')
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '')
    head.headers.push(name, value)
    const lower = name.toLowerCase()
    if (lower === 'content-length') {
      const n = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN
      if (Number.isNaN(n) || (head.length !== undefined && head.length !== n)) throw new Error('length')
      head.length = n
    } else if (lower === 'transfer-encoding') {
      head.transferEncoding = true
      // RFC 9112 §6.1: a list of codings (parameters after `;`), chunked only when the last one is exactly that.
      head.codings = head.codings ? `${head.codings}, ${value}` : value
      head.chunked = head.codings.split(',').map((coding) => coding.split(';')[0]!.trim().toLowerCase()).filter(Boolean).at(-1) === 'chunked'
    } else if (lower === 'connection') {
      if (has(value, 'close')) head.close = true
      else if (status[1] === '0' && has(value, 'keep-alive')) head.close = false
    }
  }
  return head
}

const outcome = <T>(run: () => T): T | 'refused' => {
  try {
    return run()
  } catch {
    return 'refused'
  }
}

/** A name in any case: one the reader looks at, a near miss (one letter off, one longer), or any token. */
const caseOf = (name: string) => fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }).map((up) => [...name].map((ch, i) => (up[i] ? ch.toUpperCase() : ch)).join(''))
const special = fc.constantFrom('content-length', 'transfer-encoding', 'connection', 'content-lengtx', 'connections', 'keep-alive').chain(caseOf)
const name = fc.oneof(special, fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/), fc.constantFrom('', 'a b', 'x\u00e9', 'a:b'))
/** Values: the ones that matter (lengths, tokens) with spaces and tabs around, or any field text, sometimes a control character. */
const pad = fc.constantFrom('', ' ', '\t', '  \t')
const framing = fc.constantFrom('0', '200', '007', '1234567890123456', '-1', '2 0', 'close', 'Keep-Alive', 'keep-alive, close', 'CLOSE', 'chunked', 'gzip, chunked', 'Chunked ', 'xchunked', 'gzip, x-chunked', 'chunked;x=1', 'chunked, ', 'chunked, gzip')
const core = fc.oneof(
  framing,
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x7e : c)), maxLength: 20 }),
  fc.constantFrom('a\u0000b', 'a\rb', 'a\u007fb', 'a\u0001'),
)
const value = fc.tuple(pad, core, pad).map(([a, b, c]) => a + b + c)
const statusLine = fc.oneof(
  fc.tuple(fc.constantFrom('0', '1'), fc.integer({ min: 0, max: 999 }), fc.constantFrom('', ' ', ' OK', ' Not Found', ' r\u00e9ason', ' bad\u0001')).map(([minor, code, reason]) => `HTTP/1.${minor} ${String(code).padStart(3, '0')}${reason}`),
  fc.constantFrom('HTTP/2 200 OK', 'HTTP/1.1 20 OK', 'HTTP/1.1 2000', 'http/1.1 200 OK', 'HTTP/1.1  200 OK', 'HTTP/1.1 200'),
)
// Any lines, or only the framing ones (so that repeats and conflicts among them are common).
const lines = fc.oneof(fc.array(fc.tuple(name, value), { maxLength: 8 }), fc.array(fc.tuple(special, fc.tuple(pad, framing, pad).map(([a, b, c]) => a + b + c)), { maxLength: 4 }))
const headText = fc.tuple(statusLine, lines).map(([line, pairs]) => [line, ...pairs.map(([n, v]) => `${n}:${v}`)].join('\r\n'))

describe('the answer-head reader (h1-head.ts)', () => {
  it('reads every generated head as the plain reader does, or refuses it as that one does', () => {
    fc.assert(
      fc.property(headText, (text) => {
        expect(outcome(() => readAnswerHead(text))).toEqual(outcome(() => reference(text)))
      }),
      { numRuns: 3000 },
    )
  })

  it('keeps a reading by its text: the same reading again (frozen), a refusal again, a long head never kept', () => {
    fc.assert(
      fc.property(headText, fc.integer({ min: 0, max: 3000 }), (text, pad) => {
        // Padded past the memo's text bound now and then (a long header line): read each time, never kept.
        const long = pad > 2100
        const head = long ? `${text}\r\nX-Pad: ${'p'.repeat(pad)}` : text
        const first = outcome(() => readAnswerHeadKept(head))
        expect(first).toEqual(outcome(() => readAnswerHead(head)))
        const again = outcome(() => readAnswerHeadKept(head))
        expect(again).toEqual(first)
        if (first === 'refused') return
        expect(again === first).toBe(!long)
        expect(Object.isFrozen(first) && Object.isFrozen(first.headers)).toBe(!long)
      }),
      { numRuns: 1500 },
    )
  })
})

const forwardedOf = (trusted: boolean, host?: string): Forwarded => ({ clientAddress: '192.0.2.1', chain: ['192.0.2.1'], proto: 'http', host, trusted })
const requestName = fc.oneof(
  fc.constantFrom('accept', 'cookie', 'host', 'connection', 'keep-alive', 'te', 'upgrade', 'proxy-authorization', 'x-forwarded-for', 'x-real-ip', 'forwarded', 'x_forwarded_proto', 'waiting-room-command', 'x-custom', 'true-client-ip'),
  fc.stringMatching(/^[a-z0-9-]{1,12}$/),
)
const requestValue = fc.oneof(fc.constantFrom('keep-alive', 'close', 'x-custom, te', 'x-custom', 'Accept', 'te', 'Keep-Alive', 'a\u00e9b'), fc.stringMatching(/^[!-~]{0,12}$/))

describe('the origin request head written from Headers (h1-text.ts)', () => {
  it('is the head the lists made, byte for byte, for generated requests, trusted or not', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(requestName, requestValue), { maxLength: 10 }), fc.boolean(), fc.constantFrom(undefined, 'shop.example'), (pairs, trusted, host) => {
        const headers = new Headers()
        for (const [n, v] of pairs) headers.append(n, v)
        const forwarded = forwardedOf(trusted, host)
        const lists = requestHead('GET', '/a?b=1', originRequestHeaders(headerListOf(headers), forwarded, 'origin:8080'))
        const head = originRequestHead('GET', '/a?b=1', headers, forwarded, 'origin:8080')
        expect(head).toEqual(lists)
        // And what both must do: a header the client's Connection names is this hop's, never the origin's.
        const named = (headers.get('connection') ?? '').split(',').map((n) => n.trim().toLowerCase())
        const sent = (typeof head === 'string' ? head : String.fromCharCode(...head)).split('\r\n').slice(1, -3).map((line) => line.slice(0, line.indexOf(':')))
        for (const line of sent.slice(1)) if (!line.startsWith('X-Forwarded-')) expect(named).not.toContain(line)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('the per-name rules (headers.ts)', () => {
  it('give the same verdicts after thousands of distinct names as before them (the memo is bounded, not wrong)', () => {
    const verdicts = (names: string[], trusted: boolean) => originRequestHeaders(names.flatMap((n) => [n, 'v']), forwardedOf(trusted), 'o').filter((_, i) => i % 2 === 0)
    const probe = ['x-forwarded-port', 'x-real-ip', 'accept', 'proxy-x', 'keep-alive', 'x-zzz-ip', 'x_original_url', 'cookie']
    const first = [verdicts(probe, false), verdicts(probe, true)]
    // Names never seen before, claims and not, past the memo's bound.
    const many = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? `x-forwarded-n${i}` : i % 3 === 1 ? `x-n${i}-ip` : `x-plain-${i}`))
    const kept = verdicts(many, false)
    expect(kept).toEqual(['Host', ...many.filter((n) => !isForwardingClaim(n)), 'X-Forwarded-For', 'X-Forwarded-Proto'])
    expect(kept.length).toBe(1000 + 3)
    expect([verdicts(probe, false), verdicts(probe, true)]).toEqual(first)
    // Response names, in any case, after as many distinct ones: hop-by-hop dropped, Location rewritten, commands kept out.
    const answer = ['Keep-Alive', 'x', 'LOCATION', 'http://o/p', 'Waiting-Room-Command', 'revoke', 'X-A', '1']
    const base = new URL('http://o/')
    const before = clientResponseHeaderList(answer, base, () => 'https://shop', false)
    clientResponseHeaderList(Array.from({ length: 2000 }, (_, i) => [`X-R${i}`, 'v']).flat(), base, () => 'https://shop', false)
    expect(clientResponseHeaderList(answer, base, () => 'https://shop', false)).toEqual(before)
    expect(before).toEqual(['LOCATION', 'https://shop/p', 'X-A', '1'])
  })
})
