/**
 * The bot flood of the load tests (issue 17), a case of run.mjs: 3 proxies sharing one SQLite store, a room
 * with free places for everyone (limits 100,000 / 100,000) and `--challenge proof-of-work --challenge-when
 * always`. 10,000 cookieless requests that never answer the challenge (2,000 with --short), all in flight at
 * once from several generators (burst-client.mjs): none may reach the origin, none may get a ticket, every
 * one gets the queue page (200), no 5xx or failed request. Then one client that does answer (solved here
 * with node:crypto, as an API client would from the JSON) is let through — so the room was open all along —
 * and the same answer replayed on another proxy is refused.
 */
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { mergeResults, percentile } from './results.mjs'

const ANSWER_HEADER = 'Waiting-Room-Challenge'

/** Brute force, as the page's worker does: SHA-256(challenge:counter) with `difficulty` leading zero bits. */
function solve(challenge, difficulty) {
  for (let counter = 0; ; counter++) {
    const answer = `${challenge}:${counter}`
    const digest = createHash('sha256').update(answer).digest()
    let bits = 0
    for (const byte of digest) {
      if (byte === 0) {
        bits += 8
        continue
      }
      bits += Math.clz32(byte) - 24
      break
    }
    if (bits >= difficulty) return answer
  }
}

/**
 * Runs the case with run.mjs's helpers; records its checks and figures there.
 * `h`: { origin, tmp, limits, profile: { users, generators, proxies, timeoutMs }, run, secret, root, here, childEnv,
 *        startProxies, stopProxies, limitFor, originStats, startChild, exitOf, check, log, figures }
 */
export async function botsCase(h) {
  const P = h.profile
  const scenario = 'bots'
  const roomId = `load-bots-${h.run}`
  const args = ['--origin', `${h.origin.url}/s/${scenario}`, '--port', '0', '--secret', h.secret, '--room-id', roomId, '--json']
  args.push('--total-active-users', '100000', '--new-users-per-minute', '100000', '--store', join(h.tmp, 'bots.db'))
  args.push('--challenge', 'proof-of-work:12', '--challenge-when', 'always', '--challenge-fail', 'infinite-queue')
  const perProxy = Math.ceil(P.users / P.proxies)
  const perGenerator = Math.ceil(P.users / P.generators)
  const proxies = await h.startProxies(scenario, args, P.proxies, { fileLimit: h.limitFor(perProxy + 256, h.limits), lifetimeMs: 5 * 60_000 })
  h.log(`bots: ${P.proxies} proxies up, room ${roomId}, ${P.users} cookieless requests that skip the challenge`)

  const startAt = Date.now() + 1500
  const generators = []
  for (let g = 0; g < P.generators; g++) {
    const count = Math.min(perGenerator, P.users - g * perGenerator)
    const config = { targets: proxies.map((p) => p.url), count, offset: g * perGenerator, startAt, timeoutMs: P.timeoutMs }
    generators.push(
      h.startChild(`bots generator ${g + 1}`, process.execPath, [join(h.here, 'burst-client.mjs'), JSON.stringify(config)], {
        cwd: h.root,
        env: h.childEnv,
        fileLimit: h.limitFor(count + 64, h.limits),
      }),
    )
  }
  const results = []
  for (const generator of generators) {
    const code = await h.exitOf(generator, startAt - Date.now() + P.timeoutMs + 30_000)
    const line = generator.stdoutText.trim().split('\n').at(-1)
    if (code !== 0 || !line?.startsWith('{')) throw new Error(`${generator.label} failed (exit ${code}):\n${generator.stdoutText}${generator.stderrText}`)
    results.push(JSON.parse(line))
  }
  const hitsDuringFlood = Object.values(await h.originStats(h.origin, scenario)).reduce((total, n) => total + n, 0)

  // One client that answers: the JSON gives the challenge; the answer goes to proxy 1, its replay to proxy 2.
  const held = await (await fetch(proxies[0].url, { headers: { accept: 'application/json' } })).json()
  const { challenge, difficulty } = held.waitingRoom.challenge
  const answer = solve(challenge, difficulty)
  const answered = await fetch(`${proxies[0].url}/answered`, { headers: { [ANSWER_HEADER]: answer } })
  const answeredHit = answered.headers.get('x-origin-hit') === '1'
  await answered.text()
  const replay = await fetch(`${proxies[1 % proxies.length].url}/replayed`, { headers: { [ANSWER_HEADER]: answer } })
  const replayHit = replay.headers.get('x-origin-hit') === '1'
  await replay.text()
  const hitsAfter = Object.values(await h.originStats(h.origin, scenario)).reduce((total, n) => total + n, 0)
  const stopped = await h.stopProxies(proxies)

  const { sum, statuses, errors, latencies } = mergeResults(results)
  const durationMs = Math.max(...results.map((r) => r.lastResponseAt)) - Math.min(...results.map((r) => r.issueStart))
  h.figures.bots = { users: P.users, originHits: hitsDuringFlood, statuses, errors, withTicket: sum('withTicket'), durationMs, latencyMs: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) } }
  h.log(`bots: ${P.users} answered in ${(durationMs / 1000).toFixed(1)} s (p50 ${percentile(latencies, 0.5)} ms, p99 ${percentile(latencies, 0.99)} ms); origin saw ${hitsDuringFlood}`)

  h.check(`bots: 0 of ${P.users} requests that skip the challenge reach the origin, with free places`, hitsDuringFlood === 0 && sum('admitted') === 0, `origin saw ${hitsDuringFlood}`)
  h.check(
    `bots: every one answered 200 with the queue page and no ticket, no failed request`,
    statuses[200] === P.users && sum('queued') === P.users && sum('withTicket') === 0 && Object.keys(errors).length === 0,
    `statuses ${JSON.stringify(statuses)}, tickets ${sum('withTicket')}${Object.keys(errors).length ? `, errors ${JSON.stringify(errors)}` : ''}`,
  )
  h.check('bots: a client that answers is let through; its answer replayed on another proxy is not', answeredHit && !replayHit && hitsAfter === 1, `origin saw ${hitsAfter} after`)
  h.check('bots: every proxy exits 0 on SIGTERM', stopped.ok, `exit codes ${stopped.codes.join(', ')}`)
}
