/**
 * break14g — mixed-phase-kill.test.ts with real processes: CLI proxies on a Redis of our own; proxy B reaches it over
 * a TCP link that answers every command 600 ms late (within the CLI's default 1 s coordinator timeout; requests reach
 * Redis at once, so a SIGKILL loses nothing B had sent). Sessions of 2 minutes. Minute m: n users admitted at A.
 * m+1: u0 (the regular) renews at A. m+2 (the others' last confirmed minute): at B, u0 renews — not its last minute,
 * so it waits 150 ms, times out with its 600 ms exchange under way and marks B failing — and 250 ms later the
 * returners u1..u(n-1) renew at B: answered at once, pending. B is SIGKILLed as soon as they are answered. m+3 at A:
 * newcomers, then everyone with their cookies. Expected: nobody logged out (≤ n served, all n back). Control: B
 * left running.
 * Broke (3 of 5 logged out, never above the limit): the proxies' clock runs 6× real time (fakeClock K 6), and the
 * worker link judged an exchange hanging by the room's clock — u0's 600 ms exchange, 250 ms old in real time, was
 * 1.5 s old by it, past coordinatorTimeoutMs (1 s) — so the returners' last-minute renewals were handed out pending
 * at once (restMs 73) with their moves unsent, and the SIGKILL lost them. At K 3 (0.75 s by the room's clock) it held
 * (restMs 1002, 5 back). Fixed: the exchange's age is measured on performance.now(), the clock its timeout runs on
 * (worker-link.ts `#reportSentAt`): restMs ~1066, 5 of 5 back.
 */
import { createServer, connect, type Server } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { ADMIN, killAllStarted, sleep, startOrigin, startProxy, startRedis, fakeClock, userGet } from '../break14b/procs.ts'

afterAll(() => killAllStarted())
const MIN = 60_000

function slowLink(port: number, ms: number): Promise<{ url: string; server: Server }> {
  const server = createServer((client) => {
    const up = connect(port, '127.0.0.1')
    client.on('data', (d) => up.write(d))
    up.on('data', (d) => setTimeout(() => client.writable && client.write(d), ms))
    const end = () => { client.destroy(); up.destroy() }
    client.on('error', end); up.on('error', end); client.on('close', end); up.on('close', () => setTimeout(end, ms + 10))
  })
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r({ url: `redis://127.0.0.1:${(server.address() as any).port}`, server })))
}

async function run(port: number, n: number, kill: boolean) {
  const redis = await startRedis(port)
  const link = await slowLink(port, 600)
  const K = 6
  const { T0, until: untilFake, nextMinute, env } = fakeClock(K, 20)
  const origin = await startOrigin()
  const common = ['--origin', origin.url, '--room-id', `b14g-cli-${port}-${T0}`, '--total-active-users', String(n), '--new-users-per-minute', String(n), '--session-duration', '2']
  const [a, b] = await Promise.all([startProxy([...common, '--redis', redis.url], env), startProxy([...common, '--redis', link.url], env)])
  const get = userGet
  try {
    await untilFake(nextMinute() + 2000)
    const users: { id: string; cookie: string }[] = []
    for (let i = 0; i < n; i++) {
      const r = await get(a!.url, `u${i}`)
      if (!r.admitted) throw new Error(`setup: u${i} not admitted`)
      users.push({ id: `u${i}`, cookie: r.cookie })
    }
    await untilFake(nextMinute() + 2000)
    const r0 = await get(a!.url, 'u0', users[0]!.cookie) // the regular renews at m+1
    users[0]!.cookie = r0.cookie
    await untilFake(nextMinute() + 3000)
    await get(b!.url, 'warm') // B's snapshot fresh (a newcomer in a full room: queued)
    const regular = get(b!.url, 'u0', users[0]!.cookie)
    await sleep(250)
    const t = performance.now()
    const rest = await Promise.all(users.slice(1).map((u) => get(b!.url, u.id, u.cookie)))
    const restMs = Math.round(performance.now() - t)
    if (kill) b!.child.kill('SIGKILL')
    const renewed = [await regular, ...rest]
    renewed.forEach((r, i) => { if (r.admitted) users[i]!.cookie = r.cookie })
    await untilFake(nextMinute() + 5000)
    let newcomers = 0
    for (let i = 0; i < n; i++) if ((await get(a!.url, `n${i}`)).admitted) newcomers++
    let back = 0
    for (const u of users) if ((await get(a!.url, u.id, u.cookie)).admitted) back++
    return { n, kill, restMs, renewedServed: renewed.filter((r) => r.admitted).length, newcomers, back, served: newcomers + back }
  } finally {
    a!.child.kill('SIGKILL'); b!.child.kill('SIGKILL'); origin.server.close(); link.server.close(); await redis.stop()
  }
}

describe.concurrent('break14g: CLI proxies, Redis 600 ms away from B, 2-minute sessions in mixed phases, B SIGKILLed after renewing', () => {
  it('room of 5: nobody logged out, never more than 5 served', async () => {
    const out = await run(7601, 5, true)
    console.log(JSON.stringify(out))
    expect(out.renewedServed, 'every renewal served (not vacuous)').toBe(5)
    expect(out.served, JSON.stringify(out)).toBeLessThanOrEqual(5)
    expect(out.back, JSON.stringify(out)).toBe(5)
  }, 90_000)
  it('control (holds): B left running', async () => {
    const out = await run(7602, 5, false)
    console.log(JSON.stringify(out))
    expect(out.served).toBeLessThanOrEqual(5)
    expect(out.back).toBe(5)
  }, 90_000)
})
