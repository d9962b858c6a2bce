/**
 * break14b — issue #14 item 3: SIGKILL at ANY moment (not only right after a burst). Three CLI proxies on one
 * store, limits 4 active / 4 new per minute, 1-minute sessions (a check-in in minute m counts through m+1). New users arrive all the time; admitted users keep
 * browsing (every 3–8 s) for 10–40 s, queued users check in every 5–7 s. At seeded random moments a random proxy
 * gets SIGKILL (every 5–20 s) and is restarted 0.3–2 s (real) later on the same store. Clocks are accelerated (K×) in the test and
 * in every proxy (node --import clock-preload.mjs) so 3+ minutes take ~20 s.
 * Ground truth: in any 20 s (fake) window, the users the origin served. A session counts through the minute after its last
 * request's, so a place cannot legitimately free within 20 s of a user's request: more than 4 distinct users in a
 * window means the room let in more than totalActiveUsers.
 */
import { join } from 'node:path'
import { rng, sleep, startOrigin, startProxy, tmp, type Proxy } from '../break14b/procs.ts'

export const DEFAULT_K = 10
export const LIMIT = 4

export interface CrashOptions { session?: number; boundaryKills?: boolean; pace?: [number, number]; k?: number; limit?: number; fakeMinutes?: number; stay?: [number, number]; killEvery?: [number, number]; killAll?: boolean; arrivalEvery?: [number, number] }
export async function crashRun(backend: { store?: string; redis?: string }, seed: number, opts: CrashOptions = {}) {
  const { session = 1, boundaryKills = true, pace = [3000, 8000], k: K = DEFAULT_K, limit = LIMIT, fakeMinutes = 3, stay = [10_000, 40_000], killEvery = [5000, 20_000], killAll = false, arrivalEvery = [1000, 4000] } = opts
  const random = rng(seed)
  const T0 = Date.now()
  const fake = (real: number) => T0 + (real - T0) * K
  const fakeNow = () => fake(Date.now())
  const env = { B14B_CLOCK_K: String(K), B14B_CLOCK_T0: String(T0) }
  const origin = await startOrigin()
  const roomId = `b14c-crash-${seed}-${T0}`
  const args = ['--origin', origin.url, '--room-id', roomId, '--total-active-users', String(limit), '--new-users-per-minute', String(limit), '--session-duration', String(session), '--refresh-interval', '5',
    ...(backend.store ? ['--store', backend.store] : ['--redis', backend.redis!])]
  const proxies: (Proxy | undefined)[] = await Promise.all([0, 1, 2].map(() => startProxy(args, env)))
  const kills: string[] = []
  const end = fakeNow() + fakeMinutes * 60_000
  const fsleep = (fakeMs: number) => sleep(fakeMs / K)
  const live = () => proxies.filter((p): p is Proxy => !!p && p.child.exitCode === null && p.child.signalCode === null)

  const trace = new Map<string, string[]>()
  async function user(id: string) {
    let cookie = ''
    const log: string[] = []
    trace.set(id, log)
    let admittedUntil = 0
        while (fakeNow() < end) {
      const choices = live()
      if (choices.length === 0) { await fsleep(500); continue }
      const p = choices[Math.floor(random() * choices.length)]!
      let admitted = false
      try {
        const res = await fetch(`${p.url}/page`, { headers: { 'x-user': id, 'x-sent': String(Date.now()), ...(cookie ? { cookie } : {}) }, signal: AbortSignal.timeout(3000) })
        const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!).filter((c) => c.startsWith('__wroom'))
        if (set.length) cookie = set.join('; ')
        admitted = res.headers.get('x-origin') === 'yes'
        const body = await res.text()
        log.push(`${((fakeNow() - T0) / 1000).toFixed(1)}:p${proxies.indexOf(p)}:${admitted ? 'A' : res.status + (body.match(/"reason":"(\w+)"/)?.[1] ?? '')}`)
      } catch { log.push(`${((fakeNow() - T0) / 1000).toFixed(1)}:p${proxies.indexOf(p)}:ERR`) }
      if (admitted) {
        if (!admittedUntil) admittedUntil = fakeNow() + stay[0] + random() * (stay[1] - stay[0])
        if (fakeNow() > admittedUntil) return
        await fsleep(pace[0] + random() * (pace[1] - pace[0]))
      } else {
        if (admittedUntil) { await fsleep(1000); continue }
        await fsleep(5000 + random() * 2000)
      }
    }
  }

  async function killer() {
    while (fakeNow() < end - 20_000) {
      await fsleep(killEvery[0] + random() * (killEvery[1] - killEvery[0]))
      if (boundaryKills) { const b = (Math.floor(fakeNow() / 60_000) + 1) * 60_000 + random() * 3000; await fsleep(b - fakeNow()) }
      const victims = killAll ? [0, 1, 2] : [Math.floor(random() * 3)]
      const dying = victims.map((i) => proxies[i]).filter((p): p is Proxy => !!p)
      kills.push(`${((fakeNow() - T0) / 1000).toFixed(1)}s: killed ${victims.join(',')}`)
      for (const p of dying) p.child.kill('SIGKILL')
      for (const i of victims) proxies[i] = undefined
      await Promise.all(dying.map((p) => p.exited))
      await sleep(300 + random() * 1700)
      await Promise.all(victims.map(async (i) => { proxies[i] = await startProxy(args, env) }))
    }
  }

  const users: Promise<void>[] = []
  const arrivals = (async () => {
    let n = 0
    while (fakeNow() < end - 10_000) {
      users.push(user(`u${n++}`))
      await fsleep(arrivalEvery[0] + random() * (arrivalEvery[1] - arrivalEvery[0]))
    }
  })()
  await Promise.all([arrivals, killer()])
  await Promise.all(users)
  for (const p of live()) p.child.kill('SIGKILL')
  origin.server.close()

  // Ground truth: the most distinct users served in any 20 s (fake) window whose requests were SENT no more than
  // 40 s before it began. A request is decided between its sending and its serving, and a session counts for at
  // least 60 s after its decision, so all of them are counted by the room at the window's end, however slow the
  // processes were (a loaded machine stretches fake time).
  const events: { t: number; sent: number; user: string }[] = []
  for (const [user, times] of origin.served) times.forEach((t, i) => events.push({ t: fake(t), sent: fake(origin.sent.get(user)![i]!), user }))
  events.sort((a, b) => a.t - b.t)
  let worst = { count: 0, at: 0, users: [] as string[] }
  for (let i = 0; i < events.length; i++) {
    const set = new Set<string>()
    const from = events[i]!.t
    for (let j = i; j < events.length && events[j]!.t - from <= 20_000; j++) if (events[j]!.sent >= from - 40_000) set.add(events[j]!.user)
    if (set.size > worst.count) worst = { count: set.size, at: (from - T0) / 1000, users: [...set] }
  }
  let maxLag = 0
  for (const e of events) maxLag = Math.max(maxLag, e.t - e.sent)
  const timeline = [...origin.served].map(([user, times]) => ({ user, first: Math.round((fake(times[0]!) - T0) / 100) / 10, last: Math.round((fake(times.at(-1)!) - T0) / 100) / 10, n: times.length })).sort((a, b) => a.first - b.first)
  return { worst, kills, usersServed: origin.served.size, maxLagFakeMs: Math.round(maxLag), timeline, trace }
}

export const sqliteStore = () => join(tmp(), 'room.db')
