/**
 * The rule for an origin's answer head the proxy passes on (src/proxy/origin-validate.ts), with generated
 * statuses, texts and header lists: anything with a control character (but HTAB) or DEL, a status outside
 * 100-599, or a bare CR/LF in a head's text is refused; anything else passes. The proxy-level behaviour (502 on
 * every path) is proved by test/breaker/breakh1 and adapters/bun-sqlite/breakh1-fetch-hang.bun.test.ts.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { H1Reader } from '../src/proxy/h1.ts'
import { headTextProblem, originHeadProblem, statusProblem } from '../src/proxy/origin-validate.ts'

const fieldChar = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(9)).map((c) => String.fromCharCode(c))
const fieldText = fc.array(fieldChar, { maxLength: 30 }).map((a) => a.join(''))
const badChar = fc.oneof(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 10, max: 0x1f }), fc.constant(0x7f)).map((c) => String.fromCharCode(c))
const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/)
const withBad = fc.tuple(fieldText, badChar, fieldText).map(([a, b, c]) => a + b + c)

describe('origin answer heads: what passes on', () => {
  it('statuses 100-599 pass, any other integer is refused', () => {
    fc.assert(fc.property(fc.integer({ min: -10, max: 2000 }), (n) => (statusProblem(n) === undefined) === (n >= 100 && n <= 599)), { numRuns: 1000 })
  })

  it('valid reason phrases and header lists pass; one control character anywhere is refused', () => {
    const list = fc.array(fc.tuple(token, fieldText), { maxLength: 8 })
    fc.assert(fc.property(fc.integer({ min: 100, max: 599 }), fieldText, list, (status, reason, pairs) => originHeadProblem(status, reason, pairs.flat()) === undefined), { numRuns: 300 })
    fc.assert(fc.property(withBad, list, (reason, pairs) => originHeadProblem(200, reason, pairs.flat()) !== undefined), { numRuns: 300 })
    fc.assert(fc.property(list, fc.nat(), withBad, (pairs, at, bad) => {
      const flat = [...pairs.flat(), 'X-A', 'a']
      flat[(at % (flat.length / 2)) * 2 + 1] = bad
      return originHeadProblem(200, 'OK', flat) !== undefined
    }), { numRuns: 300 })
  })

  it('a head text with a bare CR or bare LF is refused, CRLF-joined lines pass', () => {
    const lines = fc.array(fieldText, { minLength: 1, maxLength: 6 })
    fc.assert(fc.property(lines, (ls) => headTextProblem(ls.join('\r\n')) === undefined), { numRuns: 300 })
    fc.assert(fc.property(lines, fc.constantFrom('\r', '\n'), fc.nat(), (ls, bare, at) => {
      const text = ls.join('\r\n')
      const i = at % (text.length + 1)
      // a CR before `x`, or an LF after a CR of a CRLF it splits (whose LF then follows `x`): bare either way
      return headTextProblem(text.slice(0, i) + bare + 'x' + text.slice(i)) !== undefined
    }), { numRuns: 300 })
  })

  it('the reader refuses such heads at once (no wait for more bytes), whatever the split', () => {
    const heads = ['HTTP/1.1 200 OK\nContent-Length: 2\n\nok', 'HTTP/1.1 000 Z\r\nContent-Length: 2\r\n\r\nok', 'HTTP/1.1 099 X\r\n\r\n', 'HTTP/1.1 200 O\x7fK\r\n\r\n', 'HTTP/1.1 200 OK\r\nX-A: a\x00b\r\n\r\n', 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n']
    fc.assert(fc.property(fc.constantFrom(...heads), fc.nat(), (head, cut) => {
      const bytes = Uint8Array.from(head, (c) => c.charCodeAt(0))
      const reader = new H1Reader({ head: () => { throw new Error('passed on') }, data: () => {}, end: () => {} }, 'GET')
      const at = 1 + (cut % (bytes.length - 1))
      try {
        reader.feed(bytes.subarray(0, at))
        reader.feed(bytes.subarray(at))
      } catch (error) {
        return (error as Error).message !== 'passed on'
      }
      return false
    }), { numRuns: 300 })
  })

  it('a whole answer followed by extra bytes is delivered, and the connection is not reusable', () => {
    fc.assert(fc.property(fc.constantFrom('\r\n', '\n', 'XYZ', 'HTTP/1.1 200 OK\r\n\r\n'), (extra) => {
      let body = ''
      let ended = false
      const reader = new H1Reader({ head: () => {}, data: (b) => (body += String.fromCharCode(...b)), end: () => (ended = true) }, 'GET')
      reader.feed(Uint8Array.from(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok${extra}`, (c) => c.charCodeAt(0)))
      expect([body, ended, reader.complete, reader.reusable]).toEqual(['ok', true, true, false])
    }), { numRuns: 20 })
  })
})
