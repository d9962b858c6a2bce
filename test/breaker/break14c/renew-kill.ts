/**
 * break14c — issue #14 item 3, renewals: N users admitted at proxy A in minute m; in minute m+1 they renew at
 * proxies B (and C) — concurrently, at a generated offset into the minute — and B is SIGKILLed at a generated
 * moment (before/after the answers). In minute m+2, N newcomers arrive at A, then the originals come back with
 * whatever cookie they hold. 1-minute sessions: an unrenewed cookie of minute m has expired by m+2, so every
 * original admitted in m+2 holds a cookie a renewal handed out. Never more than N may be admitted in m+2.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { ADMIN, sleep, startOrigin, startProxy, rng, type Proxy, fakeClock } from '../break14b/procs.ts'

const MIN = 60_000
export interface RenewKillOptions {
  n?: number
  k?: number
  seed: number
  /** hold the SQLite write lock (ms real) from another process starting at the renewals, or pause Redis */
  stall?: (() => Promise<unknown>) | undefined
  /** proxies renewing (1: only B; 2: B and C alternate) */
  renewers?: number
  kill?: boolean
  stallLead?: number
  verbose?: boolean
  killAfter?: number
}

export async function renewKill(backend: string[], o: RenewKillOptions) {
  const { n = 6, k: K = 20, seed, renewers = 1, kill = true } = o
  const random = rng(seed)
  const { T0, now: fakeNow, until: untilFake, nextMinute, env } = fakeClock(K, 20)
  const origin = await startOrigin()
  const args = ['--origin', origin.url, '--room-id', `b14c-rk-${seed}-${T0}`, '--total-active-users', String(n), '--new-users-per-minute', String(n), '--session-duration', '1', ...backend]
  const procs: Proxy[] = await Promise.all(Array.from({ length: 1 + renewers }, () => startProxy(args, env)))
  const [a, ...rs] = procs
  const get = async (url: string, user: string, cookie = '') => {
    const t = performance.now()
    try {
      const res = await fetch(`${url}/p`, { headers: { 'x-user': user, ...(cookie ? { cookie } : {}) }, signal: AbortSignal.timeout(5000) })
      await res.text()
      const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom='))
      return { admitted: res.headers.get('x-origin') === 'yes', renewed: !!set && set !== '__wroom=', cookie: set && set !== '__wroom=' ? set : cookie, ms: performance.now() - t, err: false }
    } catch { return { admitted: false, renewed: false, cookie, ms: performance.now() - t, err: true } }
  }
  await untilFake(nextMinute() + 2000)
  const users: { id: string; cookie: string }[] = []
  for (let i = 0; i < n; i++) {
    const r = await get(a!.url, `u${i}`)
    if (!r.admitted) throw new Error(`setup: u${i} not admitted`)
    users.push({ id: `u${i}`, cookie: r.cookie })
  }
  for (const p of rs) await fetch(`${p.url}/_room/status`, { headers: { authorization: `Bearer ${ADMIN}` } }).then((r) => r.text())
  const boundary = nextMinute()
  const offset = Math.floor(random() * 4000) // fake ms into minute m+1
  const killAfter = o.killAfter ?? Math.floor(random() * 200) // real ms after the renewals were sent
  await untilFake(boundary + offset)
  const stalled = o.stall?.()
  if (o.stall) await sleep(o.stallLead ?? 80)
  const victim = rs[0]!
  const killer = kill ? sleep(killAfter).then(() => victim.child.kill('SIGKILL')) : Promise.resolve()
  const renewed = await Promise.all(users.map((u, i) => get(rs[i % rs.length]!.url, u.id, u.cookie)))
  await killer
  await stalled
  users.forEach((u, i) => (u.cookie = renewed[i]!.cookie))
  await untilFake(nextMinute() + 4000)
  const st = await fetch(`${a!.url}/_room/status`, { headers: { authorization: `Bearer ${ADMIN}` } }).then((r) => r.json()).catch(() => ({}))
  const newcomers = []
  for (let i = 0; i < n; i++) newcomers.push(await get(a!.url, `n${i}`))
  const back = []
  for (const u of users) back.push(await get(a!.url, u.id, u.cookie))
  for (const p of procs) p.child.kill('SIGKILL')
  origin.server.close()
  return {
    seed, offset, killAfter, status: o.verbose ? st : undefined,
    renewedGiven: renewed.filter((r) => r.renewed).length,
    renewMs: renewed.map((r) => Math.round(r.ms)),
    newcomers: newcomers.filter((x) => x.admitted).length,
    back: back.filter((x) => x.admitted).length,
    total: newcomers.filter((x) => x.admitted).length + back.filter((x) => x.admitted).length,
  }
}

/** Holds SQLite's write lock from another process (sqlite3 CLI: BEGIN IMMEDIATE) for `ms`. */
export function holdSqliteLock(file: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const p: ChildProcess = spawn('sqlite3', [file], { stdio: ['pipe', 'ignore', 'ignore'] })
    p.stdin!.write(`PRAGMA busy_timeout=5000;\nBEGIN IMMEDIATE;\nSELECT 1;\n.shell sleep ${ms / 1000}\nCOMMIT;\n.quit\n`)
    p.stdin!.end()
    p.on('exit', () => resolve())
  })
}
