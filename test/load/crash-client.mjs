/**
 * The crash case's load generator for one proxy group, a child process of crash.mjs. Config (JSON in argv[2]):
 * `{ targets, startAt, burstUsers, trafficMs, arrivalsPerSecond, sessionDurationMinutes, browse: { minMs,
 * maxMs }, laterStay: { minMs, maxMs }, seed }`.
 *
 * 1. At `startAt`, `burstUsers` cookieless users all at once, round-robin over the targets (as in
 *    burst-client.mjs: one new connection each, every request written before the first answer). Each
 *    carries `x-load-proxy: <target>`, which the proxy passes on, so the origin can tell the runner when it
 *    served whom.
 * 2. The proxy that first answers a user it let in crashes right then (SIGKILL, see child-guard.mjs; its
 *    requests still in flight are cut off); the runner sends `{ phase: 'go', killed }`, and the traffic
 *    starts on the survivors. Nothing is sent before that. Burst users the crash cut off come back as new
 *    users. The runner's `{ phase: 'add', target }` later adds the restarted proxy.
 * 3. For `trafficMs` from `go`: every user is a sequence of requests (never two at once, always with the
 *    latest cookie), each to a random live target. Users the killed proxy admitted keep browsing (every
 *    browse.minMs–maxMs) to the end — the users a lost count would leave uncounted; the burst's other
 *    admitted users leave at once, freeing their places; queued users check in when the Refresh
 *    header says; new users keep arriving; users admitted later browse for laterStay, then leave.
 *
 * The ground truth is every admitted session: the moment of its admission and the moment its session ends,
 * read from the cookies alone (session-end.mjs: the end sits on the room's 3.75-s grid, which the Max-Age
 * window pins down). A session is live from its admission to its end; crash.mjs counts, per minute, the most
 * sessions live at any moment of it.
 *
 * Prints one JSON line with the sessions and what it saw, then exits. Exits when the runner goes away.
 */
import { Agent, request } from 'node:http'
import { sessionEndOf } from './session-end.mjs'

const config = JSON.parse(process.argv[2])
const { startAt, burstUsers, trafficMs, arrivalsPerSecond, sessionDurationMinutes: sd, browse, laterStay } = config
const REQUEST_TIMEOUT_MS = 20_000
// A bound on this process: the burst (its requests time out), the traffic, the last users' last requests.
setTimeout(() => process.exit(3), Math.max(0, startAt - Date.now()) + trafficMs + 4 * REQUEST_TIMEOUT_MS).unref()
if (process.send) process.on('disconnect', () => process.exit(4))

/** mulberry32, seeded by the runner: the run's random choices are reproducible (timing is not). */
let seed = config.seed >>> 0
function random() {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const between = (range) => range.minMs + random() * (range.maxMs - range.minMs)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

let targets = [...config.targets]
// Idle sockets close after 2 s, before the proxies' 5 s keep-alive timeout (see soak-client.mjs).
const agents = new Map()
const agentOf = (target) => agents.get(target) ?? agents.set(target, new Agent({ keepAlive: true, maxSockets: 16, timeout: 2000 })).get(target)

const seen = {
  requests: { burst: 0, new: 0, checkIn: 0, browse: 0 },
  outcomes: { admitted: 0, session: 0, renewed: 0, queued: 0 },
  statuses: {},
  errors: {},
  anomalies: [],
  anomalyCount: 0,
  users: { arrived: 0, left: 0 },
  byTarget: {},
  burst: { admitted: 0, queued: 0, cutOff: 0, issuedAt: 0, admittedBy: {}, answerMs: [] },
  goAt: 0,
  killed: undefined,
  /** Every admitted session: { user, firstBurst, by, admittedAt, end } (ms). */
  sessions: [],
}
const bump = (map, key) => (map[key] = (map[key] ?? 0) + 1)
function anomaly(text) {
  seen.anomalyCount++
  if (seen.anomalies.length < 20) seen.anomalies.push(text)
}

function ticketOf(setCookies) {
  for (const line of setCookies ?? []) {
    if (!line.startsWith('__wroom=')) continue
    return { cookie: `__wroom=${line.slice('__wroom='.length, line.indexOf(';'))}`, maxAge: Number(/;\s*Max-Age=(\d+)/i.exec(line)?.[1]) }
  }
  return undefined
}

/** One request to `target` (a random live one by default); resolves with what the user needs, never rejects. */
function send(kind, path, cookie, target = targets[Math.floor(random() * targets.length)], retry = true) {
  const sentAt = Date.now()
  if (retry) seen.requests[kind]++
  bump(seen.byTarget, target)
  const burst = kind === 'burst'
  return new Promise((resolve) => {
    const headers = { accept: 'text/html', ...(cookie ? { cookie } : {}), ...(burst ? { connection: 'close', 'x-load-proxy': target } : {}) }
    let answered = false
    const req = request(`${target}${path}`, { agent: burst ? false : agentOf(target), headers }, (response) => {
      answered = true
      response.resume()
      response.on('error', (error) => resolve({ error, target }))
      response.on('end', () => {
        bump(seen.statuses, response.statusCode)
        const origin = response.headers['x-origin-hit'] === '1'
        const refresh = Number(response.headers.refresh)
        resolve({ status: response.statusCode, origin, ticket: ticketOf(response.headers['set-cookie']), refresh, sentAt, receivedAt: Date.now(), target })
      })
    })
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })))
    req.on('error', (error) => {
      // A kept-alive connection closed just as the request went out: never read, so sent again once.
      if (retry && !answered && req.reusedSocket && error.code === 'ECONNRESET') resolve(send(kind, path, cookie, target, false))
      else resolve({ error, target })
    })
    req.end()
  })
}

let go
const started = new Promise((resolve) => (go = resolve))
let stopAt = Number.POSITIVE_INFINITY

process.on('message', (message) => {
  if (message?.phase === 'go') {
    seen.killed = message.killed
    targets = targets.filter((target) => target !== message.killed)
    agents.get(message.killed)?.destroy()
    seen.goAt = Date.now()
    stopAt = seen.goAt + trafficMs
    go()
  } else if (message?.phase === 'add' && !targets.includes(message.target)) targets.push(message.target)
})

/**
 * One user from its first request to the end. `first` is the burst's answer for a burst user (whose first
 * request was already sent), undefined for a user arriving later.
 */
async function user(id, first) {
  let reply = first ?? (await send('new', `/new/${id}`))
  let state = 'new' // new | queued | admitted
  let cookie
  let session
  let leaveAt = Number.POSITIVE_INFINITY
  for (let step = 0; step < 10_000; step++) {
    if (reply.error) return bump(seen.errors, reply.error.code ?? reply.error.message)
    if (reply.status !== 200 && !reply.origin) return anomaly(`user ${id}: answered ${reply.status} by the proxy`)
    if (reply.origin && state === 'admitted') {
      seen.outcomes.session++
      if (reply.ticket) {
        const at = sessionEndOf(reply.sentAt, reply.receivedAt, reply.ticket.maxAge, sd)
        if (!at) return anomaly(`user ${id}: renewal with an ambiguous Max-Age`)
        if (at.end <= session.end) anomaly(`user ${id}: a renewal that does not move the session's end`)
        session.end = at.end
        seen.outcomes.renewed++
        cookie = reply.ticket.cookie
      }
    } else if (reply.origin) {
      const at = reply.ticket && sessionEndOf(reply.sentAt, reply.receivedAt, reply.ticket.maxAge, sd)
      if (!at) return anomaly(`user ${id}: admitted without a readable ticket`)
      seen.outcomes.admitted++
      session = { user: id, firstBurst: step === 0 && first !== undefined, by: reply.target, admittedAt: reply.receivedAt, end: at.end }
      seen.sessions.push(session)
      cookie = reply.ticket.cookie
      state = 'admitted'
    } else {
      if (state === 'admitted') anomaly(`user ${id}: an admitted cookie was queued`)
      if (!reply.ticket || !(reply.refresh > 0)) return anomaly(`user ${id}: a queue page without a ticket or a Refresh header`)
      seen.outcomes.queued++
      cookie = reply.ticket.cookie
      state = 'queued'
    }
    await started
    if (state === 'admitted' && leaveAt === Number.POSITIVE_INFINITY && !session.stays) {
      // Only the killed proxy's own admissions stay to the end: those are what a lost count leaves out.
      session.stays = session.firstBurst && session.by === seen.killed
      if (!session.stays) leaveAt = session.firstBurst ? seen.goAt : Date.now() + between(laterStay)
    }
    const nextAt = state === 'admitted' ? Math.max(Date.now(), reply.receivedAt + between(browse)) : reply.receivedAt + reply.refresh * 1000 + 50
    if (nextAt >= stopAt || nextAt >= leaveAt) {
      seen.users.left++
      return
    }
    if (state === 'admitted' && nextAt > session.end - 5000) return anomaly(`user ${id}: would browse after its session ends`)
    await sleep(nextAt - Date.now())
    const kind = state === 'admitted' ? 'browse' : 'checkIn'
    reply = await send(kind, `/${kind}/${id}/${step}`, cookie)
  }
}

/** The burst: every request written in one synchronous loop at `startAt`, round-robin over the targets. Resolves with every answer. */
async function burst() {
  await sleep(startAt - Date.now())
  seen.burst.issuedAt = Date.now()
  const replies = []
  for (let i = 0; i < burstUsers; i++) {
    const reply = send('burst', `/burst/${i}`, undefined, targets[i % targets.length])
    replies.push(
      reply.then((answer) => {
        seen.burst.answerMs.push(Date.now() - seen.burst.issuedAt)
        if (answer.origin) {
          seen.burst.admitted++
          bump(seen.burst.admittedBy, answer.target)
        } else if (answer.status === 200) seen.burst.queued++
        return answer
      }),
    )
  }
  return Promise.all(replies)
}

async function arrivals() {
  await started
  const users = []
  const gap = 1000 / arrivalsPerSecond
  let next = Date.now()
  for (let id = burstUsers; Date.now() < stopAt; id++) {
    seen.users.arrived++
    users.push(user(id))
    next += gap * (0.5 + random())
    await sleep(Math.min(next, stopAt) - Date.now())
  }
  await Promise.all(users)
}

const answers = await burst()
seen.users.arrived += answers.length
await started
// A burst user whose request the kill cut off comes back as a new user, as a browser's reload would.
const cutOff = (answer) => answer.error && answer.target === seen.killed
seen.burst.cutOff = answers.filter(cutOff).length
await Promise.all([...answers.map((answer, i) => user(i, cutOff(answer) ? undefined : answer)), arrivals()])
for (const agent of agents.values()) agent.destroy()
process.stdout.write(`${JSON.stringify({ ...seen, finishedAt: Date.now() })}\n`, () => process.exit(0))
