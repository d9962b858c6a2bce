/// <reference types="node" />
/**
 * break20 — HELD (guard): no answer crosses to another user through the proxy's kept-alive origin connections.
 * Generated mixes (3 seeds × 120 requests, 8 at a time) of admitted users' bodiless requests whose origin answers
 * are good (Content-Length, chunked, close-delimited, after a 100/103) or broken (reset before the head, reset
 * mid-body, Content-Length with Transfer-Encoding, an obs-fold, a bare LF, bytes beyond the body in the same
 * packet, a chunk longer than its size). Each good answer's body names its request: every client gets its own
 * name, a 502, or a cut connection — never another request's bytes — and every good answer arrives whole.
 * (An origin's stray bytes in a LATER packet, after the next request went out, are the README's known limit: not
 * generated here.)
 */
import { describe, expect, it } from 'vitest'
import type { Socket } from 'node:net'
import { admitted } from '../breakh1/helpers.ts'
import { proxied, seededRandom, TARGETS } from './targets.ts'

const GOOD: Record<string, (id: string) => string> = {
  length: (id) => `HTTP/1.1 200 OK\r\nContent-Length: ${id.length}\r\n\r\n${id}`,
  chunked: (id) => `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${id.length.toString(16)}\r\n${id}\r\n0\r\n\r\n`,
  interim: (id) => `HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: ${id.length}\r\n\r\n${id}`,
}
const BAD: Record<string, (id: string) => string> = {
  'te and cl': (id) => `HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n${id.length.toString(16)}\r\n${id}\r\n0\r\n\r\n`,
  'obs-fold': (id) => `HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\nContent-Length: ${id.length}\r\n\r\n${id}`,
  'bare LF': (id) => `HTTP/1.1 200 OK\nContent-Length: ${id.length}\n\n${id}`,
  'extra bytes': (id) => `HTTP/1.1 200 OK\r\nContent-Length: ${id.length}\r\n\r\n${id}HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nEVIL`,
  'long chunk': (id) => `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n${id}\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nEVIL`,
}
const KINDS = [...Object.keys(GOOD), ...Object.keys(BAD), 'close', 'reset', 'reset mid-body']


function answer(socket: Socket, kind: string, id: string): void {
  if (kind === 'close') return void socket.end(`HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n${id}`)
  if (kind === 'reset') return void socket.destroy()
  if (kind === 'reset mid-body') {
    socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${id.length + 10}\r\n\r\n${id.slice(0, 3)}`)
    return void setTimeout(() => socket.destroy(), 5)
  }
  socket.write((GOOD[kind] ?? BAD[kind])!(id))
}

for (const target of TARGETS) {
  describe(`break20 kept-alive origin connections never cross answers (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const url = new URL(head.split(' ')[1]!, 'http://x')
      const kind = url.searchParams.get('kind')
      if (!kind) return void socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok')
      answer(socket, kind, `<${url.searchParams.get('id')}>`)
      })

    for (const seed of [1, 2, 3]) {
      it(`seed ${seed}: every client gets its own answer, a 502 or a cut connection`, async () => {
        const random = seededRandom(`break20-pool-${seed}`)
        const plan = Array.from({ length: 120 }, (_, i) => ({ id: `s${seed}r${i}`, kind: KINDS[Math.floor(random() * KINDS.length)]! }))
        const problems: string[] = []
        for (let i = 0; i < plan.length; i += 8) {
          await Promise.all(plan.slice(i, i + 8).map(async ({ id, kind }) => {
            const got = await admitted(p.port, p.ticket, `/p?kind=${encodeURIComponent(kind)}&id=${id}`, { idleMs: 1500 })
            const names = [...got.matchAll(/<(s\d+r\d+)>/g)].map((m) => m[1])
            if (names.some((n) => n !== id) || got.includes('EVIL')) problems.push(`${kind} ${id}: got ${JSON.stringify(got.slice(-80))}`)
            const whole = kind in GOOD || kind === 'close'
            if (whole && (!got.startsWith('HTTP/1.1 200 OK') || !got.includes(`<${id}>`))) problems.push(`${kind} ${id}: not whole ${JSON.stringify(got.slice(0, 120))}`)
          }))
        }
        expect(problems).toEqual([])
      }, 60_000)
    }
  })
}
