/**
 * break14d — real processes: three CLI proxies on one store (SQLite file or Redis), accelerated clock (K×). Users
 * keep EVERY cookie their ticket was handed and on each visit send the newest, the oldest, a middle one, or 2–3 of
 * them at once to different proxies; queued users check in every 5–7 s. A killer SIGKILLs a random proxy at seeded
 * moments (near minute boundaries) and restarts it; a staller makes the store slow for 0.2–1 s (real) around minute
 * boundaries (Redis DEBUG SLEEP; SQLite: the write lock held by another process). Ground truth as break14c's
 * crash-renew: the most distinct users the origin served in any 20 s (fake) window (a session counts ≥ 60 s).
 */
import { join } from 'node:path'
import { holdSqliteLock } from '../break14c/renew-kill.ts'
import { redisCli, rng, sleep, startOrigin, startProxy, tmp, type Proxy } from '../break14b/procs.ts'

export interface ReplayCrashOptions { session: number; limit: number; k: number; fakeMinutes: number; kills: boolean; stalls: boolean }
export async function crashReplay(backend: { store?: string; redisPort?: number }, seed: number, o: ReplayCrashOptions) {
  const random = rng(seed)
  const K = o.k
  const T0 = Date.now()
  const fake = (real: number) => T0 + (real - T0) * K
  const fakeNow = () => fake(Date.now())
  const fsleep = (ms: number) => sleep(Math.max(0, ms) / K)
  const env = { B14B_CLOCK_K: String(K), B14B_CLOCK_T0: String(T0) }
  const origin = await startOrigin()
  const args = ['--origin', origin.url, '--room-id', `b14d-cr-${seed}-${T0}`, '--total-active-users', String(o.limit), '--new-users-per-minute', String(o.limit),
    '--session-duration', String(o.session), '--refresh-interval', '5',
    ...(backend.store ? ['--store', backend.store] : ['--redis', `redis://127.0.0.1:${backend.redisPort}`])]
  const proxies: (Proxy | undefined)[] = await Promise.all([0, 1, 2].map(() => startProxy(args, env)))
  const live = () => proxies.filter((p): p is Proxy => !!p && p.child.exitCode === null && p.child.signalCode === null)
  const end = fakeNow() + o.fakeMinutes * 60_000
  const counts = { kills: 0, stalls: 0, replays: 0, parallel: 0 }
  const visit = async (p: Proxy, id: string, cookie: string) => {
    try {
      const res = await fetch(`${p.url}/page`, { headers: { 'x-user': id, 'x-sent': String(Date.now()), ...(cookie ? { cookie } : {}) }, signal: AbortSignal.timeout(3000) })
      await res.text()
      const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom=') && c !== '__wroom=')
      return { admitted: res.headers.get('x-origin') === 'yes', set }
    } catch { return { admitted: false, set: undefined } }
  }
  async function user(id: string) {
    let jar: string[] = [] // every cookie of the admitted ticket, oldest first
    let queueCookie = ''
    let until = 0
    while (fakeNow() < end) {
      const choices = live()
      if (!choices.length) { await fsleep(500); continue }
      const pick = () => choices[Math.floor(random() * choices.length)]!
      const r = random()
      const sends = !jar.length ? [queueCookie]
        : r < 0.3 ? [jar.at(-1)!] : r < 0.5 ? [jar[0]!] : r < 0.65 ? [jar[Math.floor(random() * jar.length)]!]
        : Array.from({ length: 2 + Math.floor(random() * 2) }, () => jar[Math.floor(random() * jar.length)]!)
      if (jar.length && sends.some((c) => c !== jar.at(-1))) counts.replays++
      if (sends.length > 1) counts.parallel++
      const answers = await Promise.all(sends.map((c) => visit(pick(), id, c)))
      const admitted = answers.some((a) => a.admitted)
      for (const a of answers) {
        if (!a.set) continue
        if (a.admitted) { if (!jar.includes(a.set)) jar.push(a.set) } else if (!jar.length) queueCookie = a.set
      }
      if (admitted) {
        until ||= fakeNow() + 60_000 * (1 + o.session) * (1 + random())
        if (fakeNow() > until) return
        await fsleep(3000 + random() * 12_000)
      } else if (jar.length) {
        jar = [] // lost the session: a new user from here (keeps the queue cookie it got, if any)
        const q = answers.find((a) => a.set)?.set
        queueCookie = q ?? ''
        await fsleep(5000)
      } else await fsleep(5000 + random() * 2000)
    }
  }
  const boundaryish = async () => { const b = (Math.floor(fakeNow() / 60_000) + 1) * 60_000 - 3000 + random() * 6000; await fsleep(b - fakeNow()) }
  async function killer() {
    while (o.kills && fakeNow() < end - 20_000) {
      await fsleep(10_000 + random() * 20_000)
      await boundaryish()
      const i = Math.floor(random() * 3)
      const p = proxies[i]
      if (!p) continue
      await sleep(random() * 300)
      p.child.kill('SIGKILL'); proxies[i] = undefined; counts.kills++
      await p.exited
      await sleep(300 + random() * 1200)
      proxies[i] = await startProxy(args, env)
    }
  }
  async function staller() {
    while (o.stalls && fakeNow() < end - 20_000) {
      await fsleep(15_000 + random() * 30_000)
      await boundaryish()
      const ms = 200 + Math.floor(random() * 800)
      counts.stalls++
      if (backend.redisPort) await redisCli(backend.redisPort, 'DEBUG', 'SLEEP', String(ms / 1000))
      else await holdSqliteLock(backend.store!, ms)
    }
  }
  const users: Promise<void>[] = []
  const arrivals = (async () => {
    let n = 0
    while (fakeNow() < end - 10_000 && n < 3 * o.limit) { users.push(user(`u${n++}`)); await fsleep(1500 + random() * 3000) }
  })()
  await Promise.all([arrivals, killer(), staller()])
  await Promise.all(users)
  for (const p of live()) p.child.kill('SIGKILL')
  origin.server.close()
  const events: { t: number; sent: number; user: string }[] = []
  for (const [u, times] of origin.served) times.forEach((t, i) => events.push({ t: fake(t), sent: fake(origin.sent.get(u)![i]!), user: u }))
  events.sort((a, b) => a.t - b.t)
  let worst = { count: 0, at: 0, users: [] as string[] }
  for (let i = 0; i < events.length; i++) {
    const set = new Set<string>()
    const from = events[i]!.t
    for (let j = i; j < events.length && events[j]!.t - from <= 20_000; j++) if (events[j]!.sent >= from - 40_000) set.add(events[j]!.user)
    if (set.size > worst.count) worst = { count: set.size, at: Math.round((from - T0) / 1000), users: [...set] }
  }
  return { seed, worst, counts, usersServed: origin.served.size }
}
export const sqliteFile = () => join(tmp(), 'room.db')
