/// <reference types="node" />
/**
 * The fast path's client keeps an origin head's reading and its lines for the client by the head's text
 * (src/proxy/h1-head.ts `readAnswerHeadKept`, src/proxy/fast-h1.ts): an origin that answers the same head to
 * many requests must still give each request what is its own — a Location pointed at the host that request
 * came through, an origin's `revoke` obeyed for the session that request carries — and every other answer the
 * same lines as the first. Over node:net sockets (node-dial.ts); Bun.connect runs the same client.
 */
import { createServer, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProxyApp } from '../src/proxy/proxy.ts'
import { nodeTransport } from '../src/proxy/node.ts'
import { nodeDial } from '../src/proxy/node-dial.ts'
import { EXACT_TRANSPORT, type H1Dial } from '../src/proxy/h1-pool.ts'

const SECRET = 'fast-kept-secret-0123456789abcdef0123'
const NOW = Date.UTC(2026, 0, 1, 12, 0, 20)
const sockets = new Set<Socket>()

/** An origin answering every request for a path with one fixed head (its Date too): the same bytes each time. */
const origin = createServer((socket) => {
  sockets.add(socket)
  socket.on('close', () => sockets.delete(socket))
  let buffer = ''
  socket.setEncoding('latin1').on('data', (chunk: string) => {
    buffer += chunk
    for (let end = buffer.indexOf('\r\n\r\n'); end !== -1; end = buffer.indexOf('\r\n\r\n')) {
      const path = buffer.slice(0, end).split(' ')[1]!
      buffer = buffer.slice(end + 4)
      const own = `127.0.0.1:${port()}`
      const extra = path.endsWith('/loc') ? `Location: http://${own}/base/next\r\n` : path.endsWith('/revoke') ? 'Waiting-Room-Command: revoke\r\n' : path.endsWith('/untyped') ? '' : 'Content-Type: text/plain\r\n'
      socket.write(`HTTP/1.1 200 OK\r\nDate: Thu, 01 Jan 2026 12:00:20 GMT\r\n${extra}X-Same: 1\r\nContent-Length: 2\r\n\r\nok`)
    }
  })
})
const port = () => (origin.address() as { port: number }).port

let heads = 0
const counted: H1Dial = async (host, p, events) => {
  const socket = await nodeDial(host, p, events)
  return { ...socket, write: (data) => (heads++, socket.write(data)) }
}

function proxy() {
  const base = nodeTransport({ keepAliveMs: 2000 })
  const transport = { ...base, [EXACT_TRANSPORT]: { keepAliveMs: 2000, dial: counted } }
  return createProxyApp({ origin: `http://127.0.0.1:${port()}/base`, transport, clientAddress: () => '127.0.0.1', room: { secret: SECRET, totalActiveUsers: 1e6, newUsersPerMinute: 1e6, enabledOriginCommands: ['revoke'], clock: () => NOW } })
}

/** A user admitted and remembered (two requests the whole way), then its requests through `send`. */
async function user(app: ReturnType<typeof proxy>) {
  let cookie = ''
  const send = async (path: string, host = 'shop.example') => {
    const response = await app.fetch(new Request(`http://${host}${path}`, { headers: { host, cookie } }))
    const ticket = response.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    if (ticket && !cookie) cookie = ticket.split(';')[0]!
    return { response, body: await response.text() }
  }
  await send('/warm')
  await send('/warm')
  return send
}

beforeAll(() => new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve)))
afterAll(() => {
  origin.close()
  for (const socket of sockets) socket.destroy()
})

describe('the fast path\'s kept heads', () => {
  it('points each Location at the host its own request came through, the same head every time', async () => {
    const send = await user(proxy())
    heads = 0
    for (const host of ['a.example', 'b.example', 'a.example', 'c.example:8080', 'b.example']) {
      const { response } = await send('/loc', host)
      expect(response.headers.get('location')).toBe(`http://${host}/next`)
      expect(response.headers.get('x-same')).toBe('1')
    }
    expect(heads).toBe(5) // every one through the fast path's client
  })

  it('gives every answer of one head the same lines, Content-Type as sent or none', async () => {
    const send = await user(proxy())
    heads = 0
    const seen = new Set<string>()
    for (let i = 0; i < 6; i++) {
      const path = i % 2 === 0 ? '/plain' : '/untyped'
      const { response, body } = await send(path)
      expect(body).toBe('ok')
      expect(response.headers.get('content-type')).toBe(path === '/plain' ? 'text/plain' : null)
      seen.add(`${path} ${[...response.headers].map(([n, v]) => `${n}=${v}`).join(';')}`)
    }
    expect(seen.size).toBe(2)
    expect(heads).toBe(6)
  })

  it('obeys an origin\'s revoke for each session that gets it, though the head is the same', async () => {
    const app = proxy()
    for (let i = 0; i < 3; i++) {
      const send = await user(app)
      heads = 0
      const { response } = await send('/revoke')
      expect(heads).toBe(1)
      expect(response.headers.get('waiting-room-command')).toBeNull()
      expect(response.headers.getSetCookie().some((c) => c.startsWith('__wroom=') && /max-age=0|expires=thu, 01 jan 1970/i.test(c))).toBe(true)
      // The session is over in the room too: its cookie no longer takes the fast path.
      heads = 0
      const after = await send('/plain')
      expect(heads).toBe(0)
      expect(after.response.headers.getSetCookie().some((c) => c.startsWith('__wroom=') && /max-age=[1-9]/i.test(c))).toBe(true)
    }
  })
})
