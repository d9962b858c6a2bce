/**
 * breakbatch17 guarantees 1 + 3 through the CLI proxy (`node dist/bin/hono-waiting-room.js --redis`, run
 * `npm run build` first): two proxy processes on one Redis room (db 13, a room id of our own), each hit by a burst of
 * concurrent new users at once, then every queued user's cookie replayed twice at once. The origin is hit by at most
 * newUsersPerMinute distinct new users per minute (counted at the origin, per minute spanned), no 5xx, and every
 * admitted user's cookie reaches the origin again.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { connect, sleep } from './fleet.ts'

const BIN = fileURLToPath(new URL('../../../dist/bin/hono-waiting-room.js', import.meta.url))
const children: ChildProcess[] = []
let origin: Server | undefined
afterAll(() => { for (const c of children) c.kill('SIGKILL'); origin?.close() })

function start(args: string[]): Promise<string> {
  const child = spawn(globalThis.process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: globalThis.process.env.PATH ?? '', NODE_PATH: globalThis.process.env.NODE_PATH ?? '' } })
  children.push(child)
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(out)), 20_000)
    const on = (b: Buffer) => { out += b.toString(); const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out); if (m) { clearTimeout(timer); resolve(m[1]!) } }
    child.stdout!.on('data', on)
    child.stderr!.on('data', on)
  })
}

const minuteOf = () => Math.floor(Date.now() / 60_000)

describe('breakbatch17 CLI: two --redis proxies, bursts of new users at once', () => {
  for (const [burst, n] of [[150, 20], [400, 97]] as [number, number][]) {
    it(`bursts of ${burst} per proxy, newUsersPerMinute ${n}`, async () => {
      const hits = new Map<string, number>() // new user id (query) → origin hits
      origin = createServer((req, res) => { const id = new URL(req.url!, 'http://x').searchParams.get('u')!; hits.set(id, (hits.get(id) ?? 0) + 1); res.end('ok') })
      await new Promise<void>((r) => origin!.listen(0, '127.0.0.1', r))
      const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`
      const roomId = `bb17cli-${crypto.randomUUID().slice(0, 8)}`
      const common = ['--origin', originUrl, '--port', '0', '--total-active-users', '100000', '--new-users-per-minute', String(n), '--redis', 'redis://127.0.0.1:6379/13', '--room-id', roomId, '--secret', 'b'.repeat(40)]
      const proxies = await Promise.all([start(common), start(common)])
      // Not across a minute boundary if avoidable: the bound is per minute spanned.
      if (Date.now() % 60_000 > 45_000) await sleep(60_000 - (Date.now() % 60_000) + 200)
      const firstMinute = minuteOf()
      const ask = (proxy: string, u: string, cookie?: string) =>
        fetch(`${proxy}/?u=${u}`, { headers: cookie ? { cookie } : {} }).then(async (r) => ({ u, status: r.status, body: await r.text(), cookie: r.headers.getSetCookie().find((c) => c.startsWith('__wroom='))?.split(';')[0] ?? cookie }))
      const answers = await Promise.all(proxies.flatMap((p, k) => Array.from({ length: burst }, (_, i) => ask(p, `${k}-${i}`))))
      // Replays: every answer's cookie twice at once, on both proxies.
      const replays = await Promise.all(answers.flatMap((a, i) => a.cookie ? [ask(proxies[i % 2]!, a.u, a.cookie), ask(proxies[(i + 1) % 2]!, a.u, a.cookie)] : []))
      const minutes = minuteOf() - firstMinute + 1
      const admitted = [...hits.keys()]
      const fivexx = [...answers, ...replays].filter((a) => a.status >= 500).length
      const sessionsLost = answers.filter((a) => a.body === 'ok').filter((a) => replays.some((r) => r.u === a.u && r.body !== 'ok')).length
      const out = { burst, n, minutes, admittedDistinct: admitted.length, originHits: [...hits.values()].reduce((a, b) => a + b, 0), fivexx, sessionsLost }
      console.log(JSON.stringify(out))
      expect(fivexx, JSON.stringify(out)).toBe(0)
      expect(admitted.length, JSON.stringify(out)).toBeLessThanOrEqual(n * minutes)
      expect(sessionsLost, JSON.stringify(out)).toBe(0)
      const admin = await connect()
      for await (const keys of admin.scanIterator({ MATCH: `wr:{${roomId}}:*`, COUNT: 1000 })) if (keys.length > 0) await admin.unlink(keys)
      await admin.quit()
      for (const c of children.splice(0)) c.kill('SIGKILL')
      origin.close()
    }, 120_000)
  }
})
