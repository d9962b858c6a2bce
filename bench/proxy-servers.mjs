// The servers of bench/proxy-passthrough.mjs, one per process: `<runtime> bench/proxy-servers.mjs <kind>
// [origin URL]` prints `READY <port>`. Kinds: origin; plain-pipe (node:http piping to http.request with a
// keep-alive agent); hono-pipe (the same pipe as a bare Hono handler on @hono/node-server); plain-fetch (the
// runtime's server + fetch, Bun with `decompress: false`); proxy (createProxyApp + nodeTransport, on
// @hono/node-server under Node and Bun.serve under Bun); proxy-fetch (the fetch transport);
// proxy-node-server (Bun serving through @hono/node-server, as the CLI does under bun).
import { createServer, request as httpRequest, Agent } from 'node:http'
import { dist } from './lib.mjs'

const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef'
const HUGE = 10_000_000
/** Bodies the origin serves, by path. */
export const BODIES = { small: 'x'.repeat(200), large: 'y'.repeat(64 * 1024) }
const isBun = typeof globalThis.Bun !== 'undefined'

export async function serveKind(kind, originUrl) {
  const origin = originUrl ? new URL(originUrl) : undefined
  const ready = (port) => console.log(`READY ${port}`)
  if (kind === 'origin') {
    const server = createServer((req, res) => {
      const body = BODIES[req.url.slice(1)] ?? 'not found'
      res.writeHead(body === 'not found' ? 404 : 200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) })
      res.end(body)
    })
    return server.listen(0, '127.0.0.1', () => ready(server.address().port))
  }
  if (kind === 'plain-pipe') {
    // The plainest pass-through on Node: headers as received, bodies piped both ways, one keep-alive pool.
    const agent = new Agent({ keepAlive: true })
    const server = createServer((req, res) => {
      const upstream = httpRequest({ host: origin.hostname, port: origin.port, path: req.url, method: req.method, headers: req.headers, agent }, (answer) => {
        res.writeHead(answer.statusCode, answer.headers)
        answer.pipe(res)
      })
      upstream.on('error', () => res.destroy())
      req.pipe(upstream)
    })
    return server.listen(0, '127.0.0.1', () => ready(server.address().port))
  }
  if (kind === 'hono-pipe') {
    // What serving through Hono on @hono/node-server costs by itself: the plain pipe as a Hono handler, no room.
    const agent = new Agent({ keepAlive: true })
    const { Hono } = await import('hono')
    const { serve } = await import('@hono/node-server')
    const { RESPONSE_ALREADY_SENT } = await import('@hono/node-server/utils/response')
    const app = new Hono().all('*', (c) => new Promise((resolve) => {
      const { incoming, outgoing } = c.env
      const upstream = httpRequest({ host: origin.hostname, port: origin.port, path: incoming.url, method: incoming.method, headers: incoming.headers, agent }, (answer) => {
        outgoing.writeHead(answer.statusCode, answer.headers)
        answer.pipe(outgoing)
        resolve(RESPONSE_ALREADY_SENT)
      })
      upstream.on('error', () => outgoing.destroy())
      incoming.pipe(upstream)
    }))
    return serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => ready(info.port))
  }
  if (kind === 'plain-fetch') {
    // A pass-through in the runtime's own idiom: its server, its fetch (Bun: `decompress: false`).
    const forward = (req) => {
      const url = new URL(req.url)
      const body = req.method === 'GET' || req.method === 'HEAD' ? null : req.body
      return fetch(`${origin.origin}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body, duplex: 'half', redirect: 'manual', decompress: false })
    }
    if (isBun) return ready(Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: forward }).port)
    const { serve } = await import('@hono/node-server')
    const server = serve({ fetch: forward, hostname: '127.0.0.1', port: 0 }, (info) => ready(info.port))
    return server
  }
  const { createProxyApp } = await dist('src/proxy/proxy.js')
  const { nodeTransport } = await dist('src/proxy/node.js')
  // `proxy`: as the README recommends on this runtime (node:http to the origin, which forwards exactly);
  // `proxy-fetch`: the fetch transport (on Bun, fetch adds User-Agent and Accept); `proxy-node-server`: Bun
  // serving through @hono/node-server, as the CLI does under bun.
  const transport = kind === 'proxy-fetch' ? undefined : nodeTransport()
  let peer = () => undefined
  const app = createProxyApp({
    origin: originUrl,
    transport,
    room: { secret: SECRET, totalActiveUsers: HUGE, newUsersPerMinute: HUGE },
    clientAddress: (c) => peer(c),
  })
  if (isBun && kind !== 'proxy-node-server') {
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => app.fetch(req, { incoming: undefined }) })
    peer = (c) => server.requestIP(c.req.raw)?.address
    return ready(server.port)
  }
  const { getConnInfo } = await import('@hono/node-server/conninfo')
  const { listen } = await dist('bin/listen.js')
  peer = (c) => getConnInfo(c).remote.address
  const listening = await listen(app.fetch, 0, '127.0.0.1', { upgrades: true, fastPath: app.fastPath }) // as the CLI serves it
  ready(listening.port)
}

// Run as a script (not imported for BODIES): serve the kind named.
if (process.argv[1] && import.meta.url.endsWith('/proxy-servers.mjs') && process.argv[1].endsWith('proxy-servers.mjs')) await serveKind(process.argv[2], process.argv[3] || undefined)
