// Per-decision costs inside one process, in µs per operation: a warm-up, then a timed loop of N
// iterations, repeated; the median repetition is reported. Prints a BENCH_RESULT line.
//
//   node bench/micro.mjs [--scale 1]     (scale < 1 shortens every loop)
import { dist, flag, median, option, printResult, round } from './lib.mjs'
import { MINUTE, NOW, roomState } from './fixtures.mjs'

const scale = Number(option(process.argv, 'scale', '1'))
const REPEATS = 5
const { TicketSealer, randomId } = await dist('src/ticket/ticket.js')
const { webCryptoAesGcm, defaultAesGcm } = await dist('src/ticket/aes-gcm.js')
const { buildSnapshot } = await dist('src/admission/snapshot.js')
const { planMinute, fifoLimits, randomLimits, releasedFraction } = await dist('src/admission/plan.js')
const { readCookie } = await dist('src/ticket/cookie.js')
const { queueVariables } = await dist('src/page/queue-variables.js')
const { renderQueuePage, renderUncached, messagesFor } = await dist('src/page/queue-page.js')
const { WorkerLink } = await dist('src/coordination/worker-link.js')
const { memoryCoordinator } = await dist('adapters/memory/index.js')
const { activeField } = await dist('src/coordination/state.js')

const SECRET = 'bench-secret-0123456789abcdef0123456789abcdef'
const ticket = (i) => ({ roomId: 'bench', ticketId: randomId() + i, bucketId: MINUTE - 3, acceptedAt: NOW - 5000, lastCheckInTime: NOW - 5000, refreshIntervalSeconds: 0 })

// Timed by the process's CPU time (user + system, every thread: Web Crypto runs on libuv's pool), not the
// wall clock: on a shared machine a loop can be descheduled for longer than it runs. Wall time is kept too.
const cpuNow = () => {
  const { user, system } = process.cpuUsage()
  return user + system
}
const figures = (n, cpu, wall) => ({ n, microsPerOp: median(cpu), wallMicrosPerOp: median(wall), spread: [Math.min(...cpu), Math.max(...cpu)] })

/** µs per call of a synchronous `fn(i)`. */
function timeSync(n, fn) {
  const cpu = []
  const wall = []
  for (let i = 0; i < Math.ceil(n / 10); i++) fn(i) // warm-up
  for (let r = 0; r < REPEATS; r++) {
    const started = performance.now()
    const cpuStarted = cpuNow()
    for (let i = 0; i < n; i++) fn(i)
    cpu.push((cpuNow() - cpuStarted) / n)
    wall.push(((performance.now() - started) * 1000) / n)
  }
  return figures(n, cpu, wall)
}

/** µs per call of an async `fn(i)`, one at a time (the latency one decision adds). */
async function timeAsync(n, fn, { warmup = Math.ceil(n / 10) } = {}) {
  const cpu = []
  const wall = []
  for (let i = 0; i < warmup; i++) await fn(i)
  for (let r = 0; r < REPEATS; r++) {
    const started = performance.now()
    const cpuStarted = cpuNow()
    for (let i = 0; i < n; i++) await fn(r * n + i)
    cpu.push((cpuNow() - cpuStarted) / n)
    wall.push(((performance.now() - started) * 1000) / n)
  }
  return figures(n, cpu, wall)
}

const N = (n) => Math.max(10, Math.round(n * scale))
const rows = {}
const add = (id, label, figures, note) => {
  rows[id] = { label, ...figures, microsPerOp: round(figures.microsPerOp, 3), wallMicrosPerOp: round(figures.wallMicrosPerOp, 3), spread: figures.spread.map((x) => round(x, 3)), note }
  if (!flag(process.argv, 'quiet')) console.log(`${label.padEnd(66)} ${round(figures.microsPerOp, 3).toString().padStart(10)} µs CPU/op  (${round(figures.wallMicrosPerOp, 3)} µs wall)`)
}

// Tickets. A second sealer with the same secret has an empty cache: its first open of a cookie decrypts.
const sealer = new TicketSealer('bench', [SECRET])
await sealer.seal(ticket(0)) // keys derived
add('seal', `ticket seal (JWE dir+A256GCM, TicketSealer.seal, ${defaultAesGcm().name})`, await timeAsync(N(2000), (i) => sealer.seal(ticket(i))))
const webSealer = new TicketSealer('bench', [SECRET], webCryptoAesGcm)
await webSealer.seal(ticket(0))
add('seal-web-crypto', 'ticket seal through Web Crypto (the fallback)', await timeAsync(N(2000), (i) => webSealer.seal(ticket(i))))
const cookies = []
for (let i = 0; i < N(2000) * (REPEATS + 1); i++) cookies.push(await sealer.seal(ticket(i)))
const opener = new TicketSealer('bench', [SECRET])
await opener.open(cookies[0])
let next = 1
add('open-cold', `ticket open, cold (decrypt + validate, TicketSealer.open, ${defaultAesGcm().name})`, await timeAsync(N(2000), () => opener.open(cookies[next++ % cookies.length]), { warmup: N(200) }))
const warm = cookies.slice(1, 1 + 1000)
add('open-cached', 'ticket open, cached (TicketSealer.cached, a Map lookup)', timeSync(N(1_000_000), (i) => opener.cached(warm[i % warm.length])))
add('open-cached-async', 'ticket open, cached via await open()', await timeAsync(N(200_000), (i) => opener.open(warm[i % warm.length])))

// Cookie read: our ticket last among a few typical cookies.
const header = `_ga=GA1.2.1234567890.1700000000; _gid=GA1.2.987654321.1700000000; theme=dark; consent=yes; __wroom=${cookies[1]}`
add('read-cookie', 'cookie read (readCookie, 5 cookies, ours last)', timeSync(N(2_000_000), () => readCookie(header, '__wroom')))
// What a repeat request really costs: each request brings a new header string, so the ticket's text is a
// new string whose hash V8 computes before the cache lookup (the rows above reuse one string).
const headers = Array.from({ length: 1000 }, (_, i) => `_ga=GA1.2.${1234567890 + i}.1700000000; theme=dark; __wroom=${cookies[1]}`)
add('read-and-cached', 'cookie read + cached open, a fresh header string each time', timeSync(N(1_000_000), (i) => opener.cached(readCookie(headers[i % 1000].slice(0), '__wroom'))))

// Snapshot and plan on realistic states: 5 locations with 30 queued buckets, and the 300-location, 1M-queued state.
const limits = { totalActiveUsers: 2000, newUsersPerMinute: 300 }
for (const [id, shape, n] of [
  ['5', { locations: 5, waitingUsers: 3000, buckets: 30 }, 5000],
  ['300', { locations: 300, waitingUsers: 1_000_000, buckets: 60 }, 40],
]) {
  const state = roomState(shape)
  const fields = Object.values(state.locations).reduce((sum, l) => sum + Object.keys(l.counts).length, 0)
  add(`snapshot-${id}`, `snapshot build (buildSnapshot), ${shape.locations} locations, ${fields} fields`, timeSync(N(n), () => buildSnapshot(state, NOW, 5)))
  const snapshot = buildSnapshot(state, NOW, 5)
  add(`plan-${id}`, `slot plan (planMinute), ${shape.locations} locations, ${snapshot.buckets.length} buckets`, timeSync(N(n * 4), () => planMinute(snapshot, limits)))
  const plan = planMinute(snapshot, limits)
  add(`fifo-new-${id}`, `fifoLimits, new user, ${shape.locations} locations`, timeSync(N(n * 20), () => fifoLimits(plan, 'l1', undefined)))
  add(`fifo-queued-${id}`, `fifoLimits, queued user (middle bucket), ${shape.locations} locations`, timeSync(N(n * 20), () => fifoLimits(plan, 'l1', MINUTE - Math.floor(shape.buckets / 2))))
  if (id === '5') {
    add('random-limits', 'randomLimits + releasedFraction, 5 locations', timeSync(N(n * 20), () => randomLimits(plan, 'l1', releasedFraction('bench', MINUTE, 30_000))))
    // The queue page a queued user gets: variables, then Mustache over the built-in template.
    const messages = messagesFor('en-US,en;q=0.9', 'en')
    const settings = { ...limits, sessionDurationMinutes: 5, disableSessionRenewal: false, queueingMethod: 'fifo', queueAll: false, suspended: false, queueingStatusCode: 200, template: undefined, phase: { active: false, prequeueing: false, event: undefined } }
    add('queue-variables', 'queue variables (queueVariables, FIFO wait estimate)', timeSync(N(n * 4), () => queueVariables({ settings, snapshot, plan, bucketId: MINUTE - 2, newlyQueued: false, refreshIntervalSeconds: 20, now: NOW, messages })))
    const variables = queueVariables({ settings, snapshot, plan, bucketId: MINUTE - 2, newlyQueued: false, refreshIntervalSeconds: 20, now: NOW, messages })
    add('queue-page', 'queue page (renderQueuePage: built-in template, skeleton filled)', timeSync(N(n * 4), (i) => renderQueuePage({ ...variables, refreshIntervalSeconds: 18 + (i % 5) }, undefined, messages)))
    add('queue-page-full', 'queue page rendered in full by Mustache (what each one cost before)', timeSync(N(n), () => renderUncached(variables, undefined, messages)))
    add('messages-for', 'messagesFor(Accept-Language)', timeSync(N(n * 20), () => messagesFor('en-US,en;q=0.9', 'en')))
  }
}

// A worker's background report through the memory coordinator (what a new user's decision triggers when
// syncIntervalMs is 0): merge into the location aggregator, exchange with the global one, rebuild the snapshot.
{
  const coordinator = memoryCoordinator()
  let now = NOW
  const link = new WorkerLink({ roomId: 'bench', sessionDurationMinutes: 5, syncIntervalMs: 0, maxSnapshotAgeMs: 5000, timeoutMs: 1000, clock: () => now })
  add(
    'memory-sync',
    'report + snapshot rebuild via memory coordinator (WorkerLink.sync)',
    await timeAsync(N(5000), () => {
      link.record('local', activeField(MINUTE), 1)
      return link.sync(coordinator, 'local', now)
    }),
  )
}

// The admitted path of the middleware itself, without HTTP: a stub of the few Context members it touches
// on that path (Node's raw headers, as under @hono/node-server), a fixed clock in the middle of a minute so
// no renewal happens. Next to an empty async middleware called the same way.
{
  const { Hono } = await import('hono')
  const { waitingRoom } = await dist('src/room/middleware.js')
  const fixed = Math.floor(Date.now() / 60_000) * 60_000 + 30_000
  const middleware = waitingRoom({ secret: SECRET, totalActiveUsers: 10_000_000, newUsersPerMinute: 10_000_000, coordinator: memoryCoordinator(), clock: () => fixed })
  const app = new Hono().use(middleware).get('/', (c) => c.text('ok'))
  const minted = await app.request('http://localhost/')
  const cookie = minted.headers.getSetCookie()[0].split(';')[0]
  const stub = {
    env: { incoming: { headers: { cookie: `_ga=GA1.2.1234567890.1700000000; theme=dark; ${cookie}` } } },
    set() {},
    get() {},
    // What the handler answered: the middleware looks at it after next() (origin commands, the ticket).
    res: new Response('ok'),
  }
  const next = async () => {}
  const empty = async function empty(_c, next) {
    await next()
  }
  add('empty-middleware', 'empty async middleware (same stub, for reference)', await timeAsync(N(300_000), () => empty(stub, next)))
  add('admitted-middleware', 'admitted request through waitingRoom() (stub Context, no HTTP)', await timeAsync(N(300_000), () => middleware(stub, next)))
  const decisions = middleware.room.metrics.decisions
  if (decisions.session < N(300_000)) throw new Error(`the stub requests were not admitted by session: ${JSON.stringify(decisions)}`)
}

// Challenges (issue 17): issuing a proof-of-work challenge (a random nonce and one HMAC-SHA-256) is what every
// held request costs; verifying an answer is one HMAC, one SHA-256 and the single-use claim.
{
  const { issueChallenge, solveChallenge, verifyAnswer } = await dist('src/challenge/signed-challenge.js')
  const { challengeCrypto, webChallengeCrypto, deriveChallengeKey } = await dist('src/challenge/crypto.js')
  const key = await deriveChallengeKey(SECRET)
  const coordinator = memoryCoordinator()
  const env = {
    roomId: 'bench',
    now: NOW,
    waitingUsers: 0,
    key,
    async claimOnce(id, issuedAt) {
      const result = await coordinator.increment({ roomId: 'bench', scope: '~challenge', minute: Math.floor(issuedAt / 60_000), limit: 1e9, token: id })
      return result.taken && !result.repeat
    },
  }
  const hashes = challengeCrypto()
  add('challenge-issue', `proof-of-work challenge issued (nonce + HMAC-SHA-256, ${hashes.name})`, await timeAsync(N(20_000), () => issueChallenge(env, 16, 120, hashes)))
  add('challenge-issue-web-crypto', 'proof-of-work challenge issued through Web Crypto (the fallback)', await timeAsync(N(5_000), () => issueChallenge(env, 16, 120, webChallengeCrypto)))
  // Each answer is accepted once: every call takes the next (warm-up and repetitions alike).
  const answers = []
  for (let i = 0; i < N(5_000) * REPEATS + Math.ceil(N(5_000) / 10); i++) answers.push(solveChallenge(await issueChallenge(env, 4, 120, hashes)))
  let used = 0
  add('challenge-verify', `proof-of-work answer verified (HMAC + SHA-256 + single-use claim, ${hashes.name}, memory coordinator)`, await timeAsync(N(5_000), async () => {
    const verdict = await verifyAnswer(answers[used++], env, hashes)
    if (!verdict.ok) throw new Error(`bench answer refused: ${verdict.reason}`)
  }))
}

printResult({ scale, rows })
