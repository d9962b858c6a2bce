/**
 * #14.4 probe, the CLI: `--redis` on a Redis run as the README advises against allkeys-* (`maxmemory-policy
 * volatile-lru`, maxmemory 3 MB), shared with another app's cache (keys with a TTL, as volatile-* is chosen for).
 * Two proxies (20x clocks), a room of 3 filled; the cache fills memory; a minute later six newcomers. Must hold:
 * none admitted. (In the same minute: 0–1 admitted in 3 runs — the workers' own views hold part of it.)
 * Measured before the fix: 3 newcomers admitted (6 active), 2 runs. Since the fix the adapter refuses every grant on
 * a Redis that may evict (eviction-guard.ts): under volatile-lru nobody is admitted at all (failMode closed, the
 * CLI's default) and the proxy's log names the setting and the fix; noeviction fills and holds.
 */
import { createServer, type Server } from 'node:http'
import { spawn, type ChildProcess } from 'node:child_process'
import { createClient } from 'redis'
import { afterAll, describe, expect, it } from 'vitest'
import { killAllStarted, sleep, startProxy } from '../break14b/procs.ts'
import { freePort } from './support.ts'

const children: ChildProcess[] = []
let origin: Server | undefined
afterAll(() => { killAllStarted(); for (const c of children) c.kill('SIGKILL'); origin?.close() })


async function visit(url: string, cookie = ''): Promise<{ admitted: boolean; cookie: string }> {
  const res = await fetch(`${url}/page`, { headers: cookie ? { cookie } : {} })
  await res.text()
  const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom='))
  return { admitted: res.headers.get('x-origin') === 'yes', cookie: set && set !== '__wroom=' ? set : cookie }
}

describe('CLI --redis on a volatile-lru Redis shared with a cache', () => {
  for (const policy of ['volatile-lru', 'noeviction']) {
    it(`${policy}: a full room of 3 stays full`, async () => {
      const redisPort = await freePort()
      const server = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory', '3mb', '--maxmemory-policy', policy, '--maxmemory-samples', '10'], { stdio: 'ignore' })
      children.push(server)
      const redis = createClient({ url: `redis://127.0.0.1:${redisPort}`, socket: { reconnectStrategy: false } })
      redis.on('error', () => {})
      for (let i = 0; i < 50; i++) { try { await redis.connect(); break } catch { await sleep(100) } }
      origin ??= await new Promise<Server>((r) => { const s = createServer((req, res) => { req.resume(); res.writeHead(200, { 'x-origin': 'yes' }).end('ok') }); s.listen(0, '127.0.0.1', () => r(s)) })
      const originUrl = `http://127.0.0.1:${(origin.address() as any).port}`
      const args = ['--origin', originUrl, '--redis', `redis://127.0.0.1:${redisPort}`, '--total-active-users', '3', '--new-users-per-minute', '100', '--session-duration', '30']
      // Accelerated clocks (break14b's preload): 20x, so a minute passes in 3 s.
      const env = { B14B_CLOCK_K: '20', B14B_CLOCK_T0: String(Date.now()) }
      const [p1, p2] = await Promise.all([startProxy(args, env), startProxy(args, env)])
      const users = [await visit(p1!.url), await visit(p2!.url), await visit(p1!.url)]
      const evicting = policy !== 'noeviction'
      expect(users.map((u) => u.admitted)).toEqual(Array(3).fill(!evicting))
      await sleep(1500) // both proxies report
      const value = 'x'.repeat(1024)
      for (let i = 0; i < 8000; i += 200) await Promise.all(Array.from({ length: 200 }, (_, j) => redis.set(`cache:${i + j}`, value, { EX: 3600 }).catch(() => null)))
      const evicted = Number(/evicted_keys:(\d+)/.exec(await redis.info('stats'))![1])
      const left = (await redis.keys('*{*')).length
      await sleep(4000) // both proxies sync again; a (fake) minute and more passes
      let admitted = 0
      for (let i = 0; i < 6; i++) if ((await visit(i % 2 ? p2!.url : p1!.url)).admitted) admitted++
      const stillIn = (await Promise.all(users.map((u, i) => visit(i % 2 ? p2!.url : p1!.url, u.cookie)))).filter((u) => u.admitted).length
      console.log(`${policy}: evicted ${evicted} keys (room keys left ${left}); newcomers admitted into the full room: ${admitted}; first 3 still in: ${stillIn}`)
      const logs = p1!.out + p2!.out
      p1!.child.kill('SIGKILL'); p2!.child.kill('SIGKILL'); server.kill('SIGKILL')
      await redis.disconnect().catch(() => {})
      expect(admitted).toBe(0)
      expect(stillIn).toBe(evicting ? 0 : 3)
      if (evicting) expect(logs).toContain('maxmemory-policy noeviction')
    }, 60_000)
  }
})
