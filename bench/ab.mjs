// A/B of the middleware's paths in one process, without sockets: `dist/` against another build (a patched
// copy of it), in alternating batches, by CPU time per request — steadier than req/s on a shared machine,
// so a change of a few µs shows. Each request goes through `app.request` with @hono/node-server-like
// bindings (`c.env.incoming`: a fresh Node IncomingMessage carrying a browser's headers).
//
//   cp -r dist /tmp/patched && (edit /tmp/patched/src/*.js) && node bench/ab.mjs /tmp/patched [--rounds 12] [--batch 400]
//     [--cases admitted,new,queued,too-early]
import { IncomingMessage } from 'node:http'
import { pathToFileURL } from 'node:url'
import { Hono } from 'hono'
import { distDir, median, option, round } from './lib.mjs'

const other = process.argv[2]
if (!other || other.startsWith('--')) {
  console.error('usage: node bench/ab.mjs <other dist dir> [--rounds 12] [--batch 400]')
  process.exit(2)
}
const ROUNDS = Number(option(process.argv, 'rounds', '12'))
const BATCH = Number(option(process.argv, 'batch', '400'))
const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef'
const fixed = Math.floor(Date.now() / 60_000) * 60_000 + 30_000 // mid-minute, and it stays there: no renewals

const BROWSER_HEADERS = [
  'Host', 'shop.example', 'User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  'Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'Accept-Language', 'en-US,en;q=0.9',
  'Accept-Encoding', 'gzip, deflate, br', 'Connection', 'keep-alive', 'Upgrade-Insecure-Requests', '1',
  'Sec-Fetch-Dest', 'document', 'Sec-Fetch-Mode', 'navigate', 'Sec-Fetch-Site', 'none',
]
const kHeadersCount = (message) => Object.getOwnPropertySymbols(message).find((s) => String(s) === 'Symbol(kHeadersCount)')

/** A fresh IncomingMessage per request, as node-server hands one over (its `headers` object is built lazily). */
function incoming(cookie) {
  const message = new IncomingMessage(null)
  message.rawHeaders = cookie ? [...BROWSER_HEADERS, 'Cookie', `_ga=GA1.2.1234567890.1700000000; ${cookie}`] : BROWSER_HEADERS
  const count = kHeadersCount(message)
  if (count) message[count] = message.rawHeaders.length
  return message
}

async function arm(dir) {
  const { waitingRoom } = await import(pathToFileURL(`${dir.replace(/\/$/, '')}/src/room/middleware.js`).href)
  const { memoryCoordinator } = await import(pathToFileURL(`${dir.replace(/\/$/, '')}/adapters/memory/index.js`).href)
  const app = (open) =>
    new Hono()
      .use(waitingRoom({ secret: SECRET, totalActiveUsers: open ? 10_000_000 : 1, newUsersPerMinute: open ? 10_000_000 : 1, sessionDurationMinutes: open ? 5 : 30, refreshIntervalSeconds: open ? 20 : 300, queueingStatusCode: 202, coordinator: memoryCoordinator(), clock: () => fixed }))
      .get('/', (c) => c.text('ok'))
  const get = (target, cookie) => target.request('http://shop.example/', { headers: cookie ? { cookie } : {} }, { incoming: incoming(cookie) })
  const cookieOf = async (target) => (await get(target)).headers.getSetCookie()[0].split(';')[0]
  const openApp = app(true)
  const fullApp = app(false)
  await cookieOf(fullApp) // the one place
  const admitted = await cookieOf(openApp)
  const queued = await cookieOf(fullApp)
  return {
    admitted: () => get(openApp, admitted),
    new: () => get(openApp),
    queued: () => get(fullApp),
    'too-early': () => get(fullApp, queued),
  }
}

const arms = { 'dist/': await arm(distDir), [other]: await arm(other) }
const cpuNow = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}
const cases = option(process.argv, 'cases', 'admitted,new,queued,too-early').split(',')
const times = Object.fromEntries(cases.map((c) => [c, Object.fromEntries(Object.keys(arms).map((a) => [a, []]))]))
for (const c of cases) for (const a of Object.keys(arms)) for (let i = 0; i < BATCH; i++) await (await arms[a][c]()).arrayBuffer() // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const c of cases) {
    const order = r % 2 ? Object.keys(arms).reverse() : Object.keys(arms)
    for (const a of order) {
      const started = cpuNow()
      for (let i = 0; i < BATCH; i++) await (await arms[a][c]()).arrayBuffer()
      times[c][a].push((cpuNow() - started) / BATCH)
    }
  }
}
console.log(`CPU µs per request through app.request (median of ${ROUNDS} alternating batches of ${BATCH}):`)
const result = {}
for (const c of cases) {
  const [a, b] = Object.keys(arms).map((name) => median(times[c][name]))
  result[c] = { dist: round(a, 1), other: round(b, 1), ratio: round(b / a, 3) }
  console.log(`  ${c.padEnd(10)} dist/ ${round(a, 1).toString().padStart(7)}   ${other} ${round(b, 1).toString().padStart(7)}   ${other} / dist/ = ${round(b / a, 3)}`)
}
console.log(JSON.stringify(result))
