/**
 * One load generator of the burst test, a child process of run.mjs. Config (JSON in argv[2]):
 * `{ targets: string[], count, offset, startAt, timeoutMs }`.
 *
 * What "concurrent" means here: at `startAt` (epoch ms, the same for every generator) this process issues
 * all of its `count` requests in one synchronous loop, each a cookieless new user on its own new TCP
 * connection (no agent, `Connection: close`), spread round-robin over `targets` starting at `offset`.
 * No request waits for any other's response: every socket is opened and every request written before
 * the event loop runs again, so all users are in flight at once (the kernel may still hold some
 * connections in the proxies' accept queues for a moment). It reports when its loop finished, when its
 * first response arrived and the most requests it had in flight, so the runner can show that every
 * request was issued before the first answer.
 *
 * Prints one JSON line with the results, then exits. Exits when the runner goes away.
 */
import { request } from 'node:http'

const config = JSON.parse(process.argv[2])
const { targets, count, offset, startAt, timeoutMs } = config
setTimeout(() => process.exit(3), Math.max(0, startAt - Date.now()) + timeoutMs + 30_000).unref()
if (process.send) process.on('disconnect', () => process.exit(4))

const result = {
  count,
  issueStart: 0,
  issueEnd: 0,
  firstResponseAt: 0,
  lastResponseAt: 0,
  peakInFlight: 0,
  admitted: 0,
  queued: 0,
  withTicket: 0,
  statuses: {},
  errors: {},
  latencies: [],
}

let inFlight = 0
let done = 0

function finish() {
  const sorted = result.latencies.sort((a, b) => a - b)
  const pick = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0)
  const out = { ...result, p50: pick(0.5), p90: pick(0.9), p99: pick(0.99), max: sorted.at(-1) ?? 0 }
  process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0))
}

function settle(started, status, response, error) {
  const now = Date.now()
  inFlight--
  done++
  if (!result.firstResponseAt) result.firstResponseAt = now
  result.lastResponseAt = now
  result.latencies.push(now - started)
  if (error) {
    const code = error.code ?? error.message
    result.errors[code] = (result.errors[code] ?? 0) + 1
  } else {
    result.statuses[status] = (result.statuses[status] ?? 0) + 1
    if (response.headers['x-origin-hit'] === '1') result.admitted++
    else if (status === 200) result.queued++
    if ((response.headers['set-cookie'] ?? []).some((cookie) => cookie.startsWith('__wroom='))) result.withTicket++
  }
  if (done === count) finish()
}

function fire(index) {
  const target = targets[(offset + index) % targets.length]
  const started = Date.now()
  let settled = false
  const once = (status, response, error) => {
    if (settled) return
    settled = true
    settle(started, status, response, error)
  }
  const req = request(`${target}/burst/${offset + index}`, { agent: false, headers: { accept: 'text/html', connection: 'close' } }, (response) => {
    response.on('data', () => {})
    response.on('end', () => once(response.statusCode, response))
    response.on('error', (error) => once(0, undefined, error))
  })
  req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })))
  req.on('error', (error) => once(0, undefined, error))
  req.end()
  inFlight++
  if (inFlight > result.peakInFlight) result.peakInFlight = inFlight
}

console.error(`burst client ready: ${count} users at ${new Date(startAt).toISOString()}`)
setTimeout(() => {
  result.issueStart = Date.now()
  for (let i = 0; i < count; i++) fire(i)
  result.issueEnd = Date.now()
  if (count === 0) finish()
}, Math.max(0, startAt - Date.now()))
