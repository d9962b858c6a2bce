/**
 * The tiny origin behind every proxy of the load tests: a child process on a free loopback port. Each
 * proxy group forwards to `http://127.0.0.1:<port>/s/<scenario>`, so the origin can tell the groups apart.
 * Every request that reaches it is a user the room let through: it counts them per scenario and per
 * wall-clock minute (its own clock, the same host's), marks the response `x-origin-hit: 1`, and answers
 * `GET /__stats` (sent to it directly, never through a proxy) with the counts as JSON.
 *
 * A request carrying `x-load-proxy` (the crash case's burst, see crash.mjs) is also told to the runner over
 * IPC, `{ scenario, proxy, at }`, the moment it arrives: the runner kills that proxy right after the decision.
 *
 * Prints `origin listening on <port>` when ready. Exits when the runner's IPC channel closes, or after
 * WR_LOAD_MAX_LIFETIME_MS.
 */
import { createServer } from 'node:http'

const lifetime = Number(process.env.WR_LOAD_MAX_LIFETIME_MS ?? 600_000)
setTimeout(() => process.exit(3), lifetime).unref()
if (process.send) process.on('disconnect', () => process.exit(0))

/** scenario → minute → hits */
const hits = new Map()

const server = createServer((request, response) => {
  const url = request.url ?? '/'
  if (url === '/__stats') {
    const body = {}
    for (const [scenario, minutes] of hits) body[scenario] = Object.fromEntries(minutes)
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify(body))
    return
  }
  const match = /^\/s\/([^/]+)/.exec(url)
  const scenario = match ? match[1] : 'unknown'
  const minute = Math.floor(Date.now() / 60_000)
  let minutes = hits.get(scenario)
  if (!minutes) hits.set(scenario, (minutes = new Map()))
  minutes.set(minute, (minutes.get(minute) ?? 0) + 1)
  const proxy = request.headers['x-load-proxy']
  if (proxy && process.send) process.send({ scenario, proxy, at: Date.now() })
  // Drain any body, then answer: small, cacheable by nobody.
  request.resume()
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/plain', 'x-origin-hit': '1', 'cache-control': 'no-store' })
    response.end('origin ok\n')
  })
})
server.keepAliveTimeout = 30_000
server.headersTimeout = 35_000
server.listen(0, '127.0.0.1', () => {
  console.log(`origin listening on ${server.address().port}`)
})
