// breakh1 — was FAILING on be82c08 (Bun only; fixed: heads checked before the Response is built, src/proxy/origin-validate.ts): the fetch-style fast path (`createProxyApp(...).fetch` behind
// Bun.serve, src/proxy/fast-h1.ts `h1Forward`) never answers when building the client's Response throws:
// `respond` sets `answered = true` before `new Response(...)`, the throw lands in the pool's `fail`, and the
// error callback then takes the "broke off mid-body" branch, so the Promise is never resolved — no 502, the
// client hangs and the request leaks. Origin answers that do it: a header value with NUL or a bare CR
// (node:http rejects those: 502), a status outside 200-599 (e.g. 600). The node:http path (a request with a
// body) answers the header cases 502 at once.
import { expect, it } from 'bun:test'
import { createServer } from 'node:net'
import { createProxyApp } from '../../src/proxy/proxy.ts'
import { nodeTransport } from '../../src/proxy/node.ts'

const NOW = Date.UTC(2026, 0, 1, 12, 0, 20)
const REPLIES: Record<string, string> = {
  ok: 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
  nul: 'HTTP/1.1 200 OK\r\nX-A: a\x00b\r\nContent-Length: 2\r\n\r\nok',
  cr: 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 2\r\n\r\nok',
  s600: 'HTTP/1.1 600 Odd\r\nContent-Length: 2\r\n\r\nok',
}

async function setup() {
  const server = createServer((s) => {
    s.on('error', () => {})
    let buf = ''
    s.on('data', (d) => {
      buf += d.toString('latin1')
      for (let e = buf.indexOf('\r\n\r\n'); e !== -1; e = buf.indexOf('\r\n\r\n')) {
        const head = buf.slice(0, e)
        buf = buf.slice(e + 4)
        const cl = /content-length: *(\d+)/i.exec(head)
        if (cl) buf = buf.slice(Number(cl[1]))
        s.write(REPLIES[new URL(head.split(' ')[1]!, 'http://x').searchParams.get('m')!] ?? REPLIES.ok!)
      }
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as { port: number }).port
  const app = createProxyApp({ origin: `http://127.0.0.1:${port}`, transport: nodeTransport(), originTimeoutMs: 3000, onOriginError: () => {}, clientAddress: () => '127.0.0.1', room: { secret: 'breakh1-secret-0123456789-abcdefghijklmnop', totalActiveUsers: 1e6, newUsersPerMinute: 1e6, clock: () => NOW } })
  let cookie = ''
  const send = async (m: string, body = false): Promise<string> => {
    const headers: [string, string][] = [['host', 'shop.example'], ['cookie', cookie]]
    if (body) headers.push(['content-length', '1'])
    return Promise.race([
      app.fetch(new Request(`http://shop.example/x?m=${m}`, { method: body ? 'POST' : 'GET', body: body ? 'z' : undefined, headers })).then(
        async (res) => {
          const c = res.headers.getSetCookie().find((x) => x.startsWith('__wroom='))
          if (c) cookie = c.split(';')[0]!
          await res.arrayBuffer().catch(() => {})
          return String(res.status)
        },
        (error) => `threw ${error}`,
      ),
      new Promise<string>((r) => setTimeout(() => r('no answer within 4 s'), 4000)),
    ])
  }
  await send('ok')
  await send('ok')
  return { send, close: () => server.close() }
}

for (const m of ['nul', 'cr']) {
  it(`breakh1: an origin header value with ${m} gets 502 on the bodiless fast path, as on the node:http path`, async () => {
    const { send, close } = await setup()
    try {
      expect(await send(m, true)).toBe('502')
      expect(await send(m)).toBe('502')
    } finally {
      close()
    }
  }, 15_000)
}

it('breakh1: an origin status of 600 is answered (502, never a hang) on the bodiless fast path', async () => {
  const { send, close } = await setup()
  try {
    expect(await send('s600')).toBe('502')
  } finally {
    close()
  }
}, 15_000)
