/// <reference types="node" />
/**
 * An answer's length reaches the client as the origin stated it (break20 head-length, issue 20 item 6), on the
 * CLI on Node, the CLI on Bun and createProxyApp + nodeTransport behind Bun.serve, for a new user (the whole app)
 * and an admitted one (the fast path), bodiless requests and ones with a body (node:http): a HEAD answer keeps
 * the origin's Content-Length, gains none where it sent none (behind Bun.serve it says `transfer-encoding:
 * chunked` then — README, Bun.serve paragraph), and a repeated equal Content-Length arrives as one line, never
 * merged into `n, n` (which no client reads as a length) nor turned into another length.
 */
import { describe, expect, it } from 'vitest'
import { admitted, raw } from './breaker/breakh1/helpers.ts'
import { proxied, TARGETS } from './breaker/break20/targets.ts'

/** What the origin answers a HEAD with (keyed by a plain query word: a `%` in the target takes the CLI's whole path). */
const ORIGIN: Record<string, { head: string; length: string | null; repeated?: true }> = {
  chunked: { head: 'Transfer-Encoding: chunked', length: null },
  none: { head: '', length: null },
  length: { head: 'Content-Length: 1234', length: '1234' },
  twice: { head: 'Content-Length: 1234\r\nContent-Length: 1234', length: '1234', repeated: true },
  thrice: { head: 'Content-Length: 1234\r\ncontent-length:1234 \r\nCONTENT-LENGTH:  1234', length: '1234', repeated: true },
}

/** The Content-Length lines of an answer's head, as sent. */
const lengths = (answer: string) => [...answer.slice(0, answer.indexOf('\r\n\r\n')).matchAll(/\r\ncontent-length: *([^\r]*)/gi)].map((m) => m[1]!)

for (const target of TARGETS) {
  describe(`an answer's Content-Length as the origin stated it (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const k = new URL(head.split(' ')[1]!, 'http://x').searchParams.get('k') ?? ''
      if (head.startsWith('HEAD ')) return void socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n${ORIGIN[k] ? `${ORIGIN[k].head}\r\n` : 'Content-Length: 2\r\n'}\r\n`)
      const twice = k === 'gettwice'
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n${twice ? 'content-length: 2\r\n' : ''}\r\nok`)
    })

    for (const [name, { length, repeated }] of Object.entries(ORIGIN)) {
      for (const user of ['new', 'admitted'] as const) {
        it(`HEAD, ${user} user, origin answers with ${name}: Content-Length ${length ?? 'absent'}, one line at most`, async () => {
          const path = `/h?k=${name}`
          const answer = user === 'admitted' ? await admitted(p.port, p.ticket, path, { method: 'HEAD', idleMs: 600 }) : await raw(p.port, `HEAD ${path} HTTP/1.1\r\nHost: shop.example\r\nConnection: close\r\n\r\n`, 600)
          // node:http's parser (the whole app's transport: a new user) refuses a repeated Content-Length: a fair 502. The fast path's reader passes an equal one.
          if (repeated && user === 'new' && answer.startsWith('HTTP/1.1 502 ')) return
          expect(answer.split('\r\n')[0], JSON.stringify(answer)).toBe('HTTP/1.1 200 OK')
          if (user === 'new') expect(answer).toMatch(/\r\nset-cookie: __wroom=/i) // through the whole app: the room admitted it
          expect(lengths(answer), JSON.stringify(answer)).toEqual(length === null ? [] : [length])
          if (length === null) expect(/\r\ntransfer-encoding: chunked\r\n/i.test(answer)).toBe(target === 'bun-serve') // the origin's is hop-by-hop
        }, 10_000)
      }
    }

    for (const body of target === 'bun-serve' ? [false] : [false, true]) {
      it(`GET (${body ? 'with a body: node:http' : 'bodiless'}), origin repeats Content-Length: 2: one line, the body whole`, async () => {
        const answer = await admitted(p.port, p.ticket, '/g?k=gettwice', { body, idleMs: 600 })
        // node:http's parser may refuse the repeat: a 502 is fair. Never a merged or other length.
        if (body && answer.startsWith('HTTP/1.1 502 ')) return
        expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
        expect(lengths(answer), JSON.stringify(answer)).toEqual(['2'])
        expect(answer.endsWith('\r\n\r\nok')).toBe(true)
      }, 10_000)
    }
  })
}
