/**
 * breakbatch17 guarantee 4: Redis paused (SIGSTOP, DEBUG SLEEP) or killed while a burst's batch is in flight: every
 * request of the batch follows failMode (open → 'fail-open', closed → 'fail-closed'), none answers 5xx, and admitted
 * users with valid cookies stay admitted ('session'). A redis-server of our own on a free port, so nobody else's
 * Redis is touched.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { connect, minuteStart, MINUTE, process as room, redisProcess, sleep, type Client } from './fleet.ts'

const servers: ChildProcess[] = []
const clients: Client[] = []
afterAll(async () => {
  for (const c of clients) await Promise.race([c.quit().catch(() => {}), sleep(200)])
  for (const s of servers) { s.kill('SIGCONT'); s.kill('SIGKILL') }
})

async function ownRedis(): Promise<{ server: ChildProcess; url: string }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  const server = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1', '--enable-debug-command', 'yes'], { stdio: 'ignore' })
  servers.push(server)
  for (let i = 0; i < 50; i++) {
    try { const c = await connect(`redis://127.0.0.1:${port}`); await c.quit(); return { server, url: `redis://127.0.0.1:${port}` } } catch { await sleep(50) }
  }
  throw new Error('own redis-server did not start')
}

type Fault = 'stop' | 'kill' | 'debug-sleep'
describe('breakbatch17: Redis failing mid-burst — each request follows failMode, sessions survive', () => {
  for (const failMode of ['open', 'closed'] as const) {
    for (const fault of ['stop', 'kill', 'debug-sleep'] as Fault[]) {
      for (const burst of [1, 64, 150]) {
        it(`${failMode}, ${fault}, burst ${burst}`, async () => {
          const { server, url } = await ownRedis()
          const prefix = `bb17f-${crypto.randomUUID().slice(0, 6)}`
          const clock = { now: minuteStart() }
          const options = { totalActiveUsers: 1000, newUsersPerMinute: 1000, sessionDurationMinutes: 30, failMode, coordinatorTimeoutMs: 300, syncIntervalMs: 0 }
          const client = await connect(url)
          clients.push(client)
          const proc = room(redisProcess(client, prefix), clock, 'bb17-fail', options)
          const admitted = await Promise.all(Array.from({ length: 5 }, () => proc()))
          expect(admitted.map((a) => a.reason)).toEqual(Array(5).fill('slot'))
          clock.now += 1000
          const admin = fault === 'debug-sleep' ? await connect(url) : undefined
          if (admin) clients.push(admin)
          // DEBUG SLEEP lands first (the server then hangs 1 s, longer than coordinatorTimeoutMs 300).
          if (fault === 'debug-sleep') { void admin!.sendCommand(['DEBUG', 'SLEEP', '1']).catch(() => {}); await sleep(30) }
          // One turn: the burst and the sessions' requests issued, then the fault before the batch goes out.
          const news = Array.from({ length: burst }, () => proc())
          const sessions = admitted.map((a) => proc(a.fresh))
          if (fault === 'stop') server.kill('SIGSTOP')
          if (fault === 'kill') server.kill('SIGKILL')
          const [n, s] = await Promise.all([Promise.all(news), Promise.all(sessions)])
          if (fault === 'stop') server.kill('SIGCONT')
          const out = { news: count(n.map((a) => `${a.status} ${a.reason}`)), sessions: count(s.map((a) => `${a.status} ${a.reason}`)) }
          console.log(JSON.stringify({ failMode, fault, burst, ...out }))
          expect(out.news, JSON.stringify(out)).toEqual({ [`${failMode === 'open' ? 200 : 200} fail-${failMode}`]: burst })
          expect(out.sessions, JSON.stringify(out)).toEqual({ '200 session': 5 })
          server.kill('SIGKILL')
        }, 30_000)
      }
    }
  }
})

describe('breakbatch17: SCRIPT FLUSH before a burst (every batch answered NOSCRIPT, then loads): limits still exact', () => {
  for (const [burst, n] of [[1, 1], [64, 10], [150, 70], [300, 129]] as [number, number][]) {
    it(`burst ${burst}, n ${n}`, async () => {
      const { url } = await ownRedis()
      const clock = { now: minuteStart() }
      const client = await connect(url)
      const admin = await connect(url)
      clients.push(client, admin)
      const proc = room(redisProcess(client, `bb17s-${crypto.randomUUID().slice(0, 6)}`), clock, 'bb17-flush', { totalActiveUsers: 1000, newUsersPerMinute: n, sessionDurationMinutes: 30, failMode: 'closed', coordinatorTimeoutMs: 3000, syncIntervalMs: 0 })
      await proc(undefined) // warm: the room's state and scripts loaded (takes one of n)
      await admin.sendCommand(['SCRIPT', 'FLUSH'])
      const answers = await Promise.all(Array.from({ length: burst }, () => proc()))
      const reasons = count(answers.map((a) => `${a.status} ${a.reason}`))
      console.log(JSON.stringify({ burst, n, reasons }))
      expect(reasons['200 slot'] ?? 0, JSON.stringify(reasons)).toBe(Math.min(burst, n - 1))
      expect(answers.findIndex((a) => !a.admitted) < 0 || answers.slice(answers.findIndex((a) => !a.admitted)).every((a) => !a.admitted), 'FIFO').toBe(true)
    }, 30_000)
  }
})

function count(xs: string[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const x of xs) out[x] = (out[x] ?? 0) + 1
  return out
}
