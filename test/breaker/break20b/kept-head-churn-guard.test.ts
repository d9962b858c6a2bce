/// <reference types="node" />
/**
 * break20b guard: the kept origin heads (at most 128 texts of at most 2 KiB, h1-head.ts readAnswerHeadKept) and
 * their kept client lines (fast-h1.ts) under churn: generated answers whose heads repeat or are new each time
 * (a per-request Set-Cookie), lengths around the 2 KiB limit, HEAD and GET with the same head text, chunked and
 * close-delimited and Content-Length framings. Every client must get its own Set-Cookie and the body (or none,
 * for HEAD) its request was answered with: never another user's cookie, never a framing of another answer.
 */
import { describe, expect, it } from 'vitest'
import { raw } from '../breakh1/helpers.ts'
import { proxied, seededRandom, TARGETS } from '../break20/targets.ts'
import { bodyOf } from './answers.ts'

/** The origin's answer for a request line `METHOD /c/<id>/<pad>/<framing>/<shared>`. */
function answerFor(request: string): string {
  const m = /^(\S+) \/c\/(\d+)\/(\d+)\/(\w+)\/(\d)/.exec(request)
  if (!m) return 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'
  const [, method, id, pad, framing, shared] = m
  const cookie = shared === '1' ? 'sid=shared' : `sid=u${id}`
  const body = `body-${id}`
  const lines = [`HTTP/1.1 200 OK`, `Set-Cookie: ${cookie}`, `X-Pad: ${'p'.repeat(Number(pad))}`]
  if (framing === 'cl') lines.push(`Content-Length: ${body.length}`)
  if (framing === 'ch') lines.push('Transfer-Encoding: chunked')
  if (framing === 'close') lines.push('Connection: close')
  const head = `${lines.join('\r\n')}\r\n\r\n`
  if (method === 'HEAD') return head
  if (framing === 'ch') return `${head}${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
  return head + body
}

for (const target of TARGETS) {
  describe(`break20b kept heads under churn (${target})`, () => {
    const p = proxied(target, (socket, head) => {
      const text = answerFor(head)
      socket.write(text)
      if (text.includes('Connection: close')) socket.end()
    })
    it('300 generated answers: each client its own cookie and body', async () => {
      const random = seededRandom(`churn-${target}`)
      for (let id = 0; id < 300; id++) {
        const method = random() < 0.3 ? 'HEAD' : 'GET'
        // pads put the origin's head just under, at and over 2 KiB (the kept limit), or short
        const pad = random() < 0.5 ? 1960 + Math.floor(random() * 100) : Math.floor(random() * 40)
        const framing = ['cl', 'ch', 'close'][Math.floor(random() * 3)]!
        const shared = random() < 0.4 ? 1 : 0
        const a = await raw(p.port, `${method} /c/${id}/${pad}/${framing}/${shared} HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${p.ticket}\r\nConnection: close\r\n\r\n`, 600)
        const cookies = [...a.matchAll(/\r\nset-cookie: *(sid=[^\r\n;]*)/gi)].map((x) => x[1])
        const what = `${method} id ${id} pad ${pad} ${framing} shared ${shared}: ${JSON.stringify(a.slice(0, 120))}`
        expect(a.startsWith('HTTP/1.1 200 OK'), what).toBe(true)
        expect(cookies, what).toEqual([shared ? 'sid=shared' : `sid=u${id}`])
        expect(bodyOf(a).body, what).toBe(method === 'HEAD' ? '' : `body-${id}`)
      }
    }, 120_000)
  })
}
