/// <reference types="node" />
/**
 * break20 — FAILING behind Bun.serve only (createProxyApp + nodeTransport, the fast path's own client): the answer
 * to a HEAD request gains `content-length: 0` when the origin sent no Content-Length (it answered
 * `Transfer-Encoding: chunked`, or nothing about length), and an origin's repeated `Content-Length: 1234` becomes
 * `content-length: 0`. The CLI on Bun merges that repeated value into one line `content-length: 1234, 1234`, which
 * no client parses as a length (node:http's refuses it). A HEAD answer's Content-Length states the size of the GET's body (RFC 9110 §8.6): the client
 * is told the resource is empty. README: "the client gets the origin's bytes"; every origin header passes, none is
 * invented. The CLI on Node passes them all (its repeated length: as sent, or a
 * 502 on HEAD — a fair refusal); the CLI on Bun passes the other three (guards here).
 */
import { describe, expect, it } from 'vitest'
import { admitted } from '../breakh1/helpers.ts'
import { proxied, TARGETS } from './targets.ts'

const HEADS: Record<string, { reply: string; length: string | null }> = {
  chunked: { reply: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n', length: null },
  'no length': { reply: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n', length: null },
  'content-length': { reply: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1234\r\n\r\n', length: '1234' },
  'content-length twice': { reply: 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1234\r\nContent-Length: 1234\r\n\r\n', length: '1234' },
}

/** The Content-Length values of an answer's head, joined (a repeated equal value counts once). */
function lengthOf(answer: string): string | null {
  const head = answer.slice(0, answer.indexOf('\r\n\r\n'))
  const values = [...head.matchAll(/\r\ncontent-length: *([^\r]*)/gi)].map((m) => m[1]!)
  return values.length === 0 ? null : [...new Set(values)].join(',')
}

for (const target of TARGETS) {
  describe(`break20 HEAD answers keep the origin's length (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const k = new URL(head.split(' ')[1]!, 'http://x').searchParams.get('k')
      socket.write(k !== null && HEADS[k] ? HEADS[k].reply : 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      })

    for (const [name, { length }] of Object.entries(HEADS)) {
      it(`HEAD, origin answers with ${name}: the client's Content-Length is ${length ?? 'absent'}`, async () => {
        const answer = await admitted(p.port, p.ticket, `/h?k=${encodeURIComponent(name)}`, { method: 'HEAD', idleMs: 600 })
        // A repeated Content-Length may fairly be refused (node:http's client does): a 502 then. Never another length.
        if (name === 'content-length twice' && answer.startsWith('HTTP/1.1 502 ')) return
        expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK')
        expect(lengthOf(answer), JSON.stringify(answer)).toBe(length)
      }, 10_000)
    }
  })
}
