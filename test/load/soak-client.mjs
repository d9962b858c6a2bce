/**
 * The soak test's load generator for one proxy group, a child process of run.mjs. Config (JSON in argv[2]):
 * `{ label, targets, durationMs, arrivalsPerSecond, sessionDurationMinutes, browse: { minMs, maxMs,
 * forMinMs, forMaxMs }, abandon: { minMs, maxMs }, flushMs, maxUsers, maxSockets, seed }`.
 *
 * Steady mixed traffic until `durationMs` is over, every user a sequence of requests (never two at once,
 * always with the latest cookie), each request to a random proxy of the group:
 * - new users arrive without a cookie at a steady rate;
 * - admitted users browse with their cookie every browse.minMs–maxMs for forMinMs–forMaxMs, then leave
 *   (their session then expires by itself: the recount sees that);
 * - queued users check in with their cookie when the page's Refresh header says, until admitted or until
 *   they give up (abandon.minMs–maxMs after arriving).
 *
 * What it observes is the recount the runner compares with the coordinator. When the server ends a ticket's
 * session, and the minute it keeps the count under, are read from the response alone: the cookie's Max-Age
 * pins the end to one point of the room's 3.75-s grid (session-end.mjs). So the generator knows, without any of
 * the room's internals, each admission's minute, each admitted ticket's last counted minute and its end.
 *
 * Then it flushes: a proxy reports its counts in the background after requests, so the last requests'
 * counts may sit in a proxy until another request comes. For `flushMs` it sends each proxy, once a second, a
 * queued user's check-in that is too early (before that user's refresh interval is over): the room
 * answers those without counting or deciding anything, but they trigger the proxy's report. When no queued
 * ticket is still too early (the head of the line is asked back within seconds), it waits out `flushMs`
 * instead: each proxy's own timer reports what is pending within one sync interval.
 *
 * Prints one JSON line with what it saw, then exits. Exits when the runner goes away.
 */
import { Agent, request } from 'node:http'
import { sessionEndOf } from './session-end.mjs'

const config = JSON.parse(process.argv[2])
const { targets, durationMs, arrivalsPerSecond, sessionDurationMinutes: sd, browse, abandon, flushMs, maxUsers } = config
const REQUEST_TIMEOUT_MS = 20_000
const START = Date.now()
const STOP_AT = START + durationMs
setTimeout(() => process.exit(3), durationMs + flushMs + 2 * REQUEST_TIMEOUT_MS + 30_000).unref()
if (process.send) process.on('disconnect', () => process.exit(4))

/** mulberry32: the run's random choices are reproducible from the printed seed (timing is not). */
let seed = config.seed >>> 0
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const between = (min, max) => min + random() * (max - min)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

// Idle sockets are closed after 2 s, before the proxies' 5 s keep-alive timeout, so a request is not
// written into a connection the server is closing (Node 20's agent ignores the server's Keep-Alive hint).
const agents = new Map(targets.map((target) => [target, new Agent({ keepAlive: true, maxSockets: config.maxSockets, timeout: 2000 })]))

const seen = {
  requests: { new: 0, checkIn: 0, browse: 0, poke: 0 },
  outcomes: { admitted: 0, session: 0, renewed: 0, queued: 0, tooEarly: 0 },
  statuses: {},
  errors: {},
  anomalies: [],
  anomalyCount: 0,
  users: { arrived: 0, skipped: 0, admitted: 0, left: 0, abandoned: 0, stopped: 0, failed: 0 },
  latencies: { new: [], checkIn: [], browse: [] },
  /** minute → admissions the generator saw in it */
  admissionsByMinute: {},
  /** minute → admitted tickets whose count the store keeps under it (their last counted check-in's) */
  ticketsByLastMinute: {},
  /** user → when its admitted ticket's session ends (ms), by its latest cookie */
  sessionEnds: {},
  flush: { pokes: 0, ok: false, seconds: 0 },
  /** Requests sent again after a kept-alive connection was reset before any answer (see attempt()). */
  retriedResets: 0,
}

function anomaly(text) {
  seen.anomalyCount++
  if (seen.anomalies.length < 20) seen.anomalies.push(text)
}

function bump(map, key, by = 1) {
  map[key] = (map[key] ?? 0) + by
  if (map[key] === 0) delete map[key]
}

/** The session end and counted minute a cookie's Max-Age implies (see the module comment). */
function countedMinute(sentAt, receivedAt, maxAge) {
  const at = sessionEndOf(sentAt, receivedAt, maxAge, sd)
  return at && { minute: at.minute, sessionEnd: at.end }
}

function ticketOf(setCookies) {
  for (const line of setCookies ?? []) {
    if (!line.startsWith('__wroom=')) continue
    const value = line.slice('__wroom='.length, line.indexOf(';'))
    const maxAge = Number(/;\s*Max-Age=(\d+)/i.exec(line)?.[1])
    return { cookie: `__wroom=${value}`, maxAge, cleared: value === '' }
  }
  return undefined
}

/** One request; resolves with what the user needs, never rejects. */
function send(kind, path, cookie) {
  const target = targets[Math.floor(random() * targets.length)]
  seen.requests[kind]++
  return attempt(kind, target, path, cookie, true)
}

/**
 * A kept-alive connection the server closed just as the request went out fails with ECONNRESET before
 * any answer: the server never read the request (it counted nothing), so it is sent again, once, on a
 * new connection (the pattern Node's documentation gives for `request.reusedSocket`).
 */
function attempt(kind, target, path, cookie, retry) {
  const sentAt = Date.now()
  return new Promise((resolve) => {
    const headers = { accept: 'text/html' }
    if (cookie) headers.cookie = cookie
    let answered = false
    const req = request(`${target}${path}`, { agent: agents.get(target), headers }, (response) => {
      answered = true
      response.on('data', () => {})
      response.on('error', (error) => resolve({ error, sentAt, receivedAt: Date.now(), target }))
      response.on('end', () => {
        const receivedAt = Date.now()
        if (seen.latencies[kind]) seen.latencies[kind].push(receivedAt - sentAt)
        bump(seen.statuses, response.statusCode)
        resolve({
          status: response.statusCode,
          origin: response.headers['x-origin-hit'] === '1',
          ticket: ticketOf(response.headers['set-cookie']),
          refresh: Number(response.headers.refresh),
          sentAt,
          receivedAt,
          target,
        })
      })
    })
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })))
    req.on('error', (error) => {
      if (retry && !answered && req.reusedSocket && error.code === 'ECONNRESET') {
        seen.retriedResets++
        resolve(attempt(kind, target, path, cookie, false))
      } else resolve({ error, sentAt, receivedAt: Date.now(), target })
    })
    req.end()
  })
}

/** The freshest queued tickets: too early to check in until `until`, so a free flush trigger until then. */
const tooEarly = []

let live = 0
let counter = 0

async function user() {
  const id = ++counter
  const arrivedAt = Date.now()
  const abandonAt = arrivedAt + between(abandon.minMs, abandon.maxMs)
  let cookie
  let state = 'new' // new | queued | admitted
  let ticket // the admitted ticket: { minute, sessionEnd }
  let leaveAt = 0
  let page = 0
  let nextAt = arrivedAt
  let lastQueued // the last queue page with a ticket: { receivedAt, refresh, target }, to say how early a too-early answer was
  for (let step = 0; step < 10_000; step++) {
    // A request due after the run stops is never sent. Waiting until its moment, never less: a sleep cut short to
    // STOP_AT, or a timer firing a millisecond early, sent check-ins seconds before their refresh was due — the
    // "check-in answered as too early" anomalies were this generator's, not the room's.
    if (nextAt >= STOP_AT) {
      seen.users.stopped++
      return
    }
    await sleep(nextAt - Date.now())
    while (Date.now() < nextAt) await sleep(1)
    const kind = state === 'new' ? 'new' : state === 'queued' ? 'checkIn' : 'browse'
    if (state === 'admitted' && Date.now() > ticket.sessionEnd - 5000) {
      anomaly(`user ${id}: would browse after its session ends`)
      return
    }
    const reply = await send(kind, `/${kind}/${id}/${page++}`, cookie)
    if (reply.error) {
      const code = reply.error.code ?? reply.error.message
      bump(seen.errors, code)
      seen.users.failed++
      return
    }
    if (reply.status >= 500 || (reply.status !== 200 && !reply.origin)) {
      seen.users.failed++
      return
    }
    if (reply.origin) {
      if (state === 'admitted') {
        seen.outcomes.session++
        if (reply.ticket) {
          // A renewal: the ticket moves to the minute of this request.
          const at = countedMinute(reply.sentAt, reply.receivedAt, reply.ticket.maxAge)
          if (!at) {
            anomaly(`user ${id}: renewal with an ambiguous Max-Age`)
            return
          }
          if (at.minute !== ticket.minute) {
            bump(seen.ticketsByLastMinute, ticket.minute, -1)
            bump(seen.ticketsByLastMinute, at.minute, 1)
            seen.outcomes.renewed++
          } else anomaly(`user ${id}: a new cookie in the same minute`)
          ticket = at
          seen.sessionEnds[id] = at.sessionEnd
          cookie = reply.ticket.cookie
        }
      } else {
        // Admitted now (a new user, or a queued one at check-in).
        const at = reply.ticket && countedMinute(reply.sentAt, reply.receivedAt, reply.ticket.maxAge)
        if (!at) {
          anomaly(`user ${id}: admitted without a readable ticket`)
          return
        }
        seen.outcomes.admitted++
        seen.users.admitted++
        bump(seen.admissionsByMinute, at.minute, 1)
        bump(seen.ticketsByLastMinute, at.minute, 1)
        ticket = at
        seen.sessionEnds[id] = at.sessionEnd
        cookie = reply.ticket.cookie
        state = 'admitted'
        leaveAt = reply.receivedAt + between(browse.forMinMs, browse.forMaxMs)
      }
      if (reply.receivedAt >= leaveAt) {
        seen.users.left++
        return
      }
      nextAt = reply.receivedAt + between(browse.minMs, browse.maxMs)
      continue
    }
    // The queue page.
    if (state === 'admitted') anomaly(`user ${id}: an admitted cookie was queued`)
    if (!reply.ticket) {
      seen.outcomes.tooEarly++
      const last = lastQueued
      anomaly(`user ${id}: a check-in answered as too early (asked back in ${reply.refresh} s) ${last ? `${reply.sentAt - last.receivedAt} ms after a queue page with Refresh ${last.refresh} from ${last.target.split(':').at(-1)}, sent to ${reply.target.split(':').at(-1)}` : 'with no queue page before'}`)
    } else {
      seen.outcomes.queued++
      cookie = reply.ticket.cookie
      lastQueued = { receivedAt: reply.receivedAt, refresh: reply.refresh, target: reply.target }
      // The room counts a check-in from refresh − 1 s after the last one; a check-in before that is free.
      tooEarly.push({ cookie, until: reply.sentAt + reply.refresh * 1000 - 1500 })
      if (tooEarly.length > 64) tooEarly.splice(0, tooEarly.length - 64)
    }
    state = 'queued'
    if (!(reply.refresh > 0)) {
      anomaly(`user ${id}: queue page without a Refresh header`)
      return
    }
    nextAt = reply.receivedAt + reply.refresh * 1000 + 50
    if (nextAt >= abandonAt) {
      seen.users.abandoned++
      return
    }
  }
}

async function arrivals() {
  const users = []
  const gap = 1000 / arrivalsPerSecond
  let next = Date.now()
  for (let i = 0; i < arrivalsPerSecond * durationMs / 1000 + 1 && Date.now() < STOP_AT; i++) {
    if (live < maxUsers) {
      live++
      seen.users.arrived++
      users.push(user().finally(() => live--))
    } else seen.users.skipped++
    next += gap * between(0.5, 1.5)
    await sleep(next - Date.now())
  }
  await Promise.all(users)
}

async function flush() {
  const started = Date.now()
  const end = started + flushMs
  let ok = true
  for (let round = 0; Date.now() < end && round < 120; round++) {
    const now = Date.now()
    tooEarly.sort((a, b) => b.until - a.until)
    const poke = tooEarly[0]
    if (!poke || poke.until < now + 500) {
      // No ticket whose check-in is still free: the head of the line is asked back within seconds of a minute's
      // start (issue 15), so near the end every queued user may be due. The proxies' own timers report what is
      // pending within one sync interval of their last decision; the flush time covers it.
      seen.flush.waited = true
      await sleep(end - Date.now())
      break
    }
    await Promise.all(
      targets.map(
        (target) =>
          new Promise((resolve) => {
            seen.requests.poke++
            seen.flush.pokes++
            const req = request(`${target}/flush`, { agent: agents.get(target), headers: { accept: 'text/html', cookie: poke.cookie } }, (response) => {
              response.resume()
              response.on('end', () => {
                if (response.headers['x-origin-hit'] || ticketOf(response.headers['set-cookie']) || response.statusCode !== 200) {
                  ok = false
                  anomaly(`flush: a too-early check-in was answered ${response.statusCode}${response.headers['x-origin-hit'] ? ' by the origin' : ''} (cookie set: ${Boolean(ticketOf(response.headers['set-cookie']))})`)
                }
                resolve()
              })
            })
            req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('timeout')))
            req.on('error', (error) => {
              ok = false
              bump(seen.errors, `flush ${error.code ?? error.message}`)
              resolve()
            })
            req.end()
          }),
      ),
    )
    await sleep(now + 1000 - Date.now())
  }
  seen.flush.ok = ok
  seen.flush.seconds = (Date.now() - started) / 1000
}

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b)
  const pick = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0)
  return { n: sorted.length, p50: pick(0.5), p99: pick(0.99), max: sorted.at(-1) ?? 0 }
}

await arrivals()
const trafficEnd = Date.now()
// Tells the runner the traffic is over, so it can read the store before the flush too (for the report).
if (process.send) process.send({ phase: 'flush' })
await flush()
for (const agent of agents.values()) agent.destroy()
const latencies = Object.fromEntries(Object.entries(seen.latencies).map(([kind, values]) => [kind, percentiles(values)]))
const total = seen.requests.new + seen.requests.checkIn + seen.requests.browse
process.stdout.write(
  `${JSON.stringify({ ...seen, latencies, trafficSeconds: (trafficEnd - START) / 1000, requestsPerSecond: total / ((trafficEnd - START) / 1000), finishedAt: Date.now() })}\n`,
  () => process.exit(0),
)
