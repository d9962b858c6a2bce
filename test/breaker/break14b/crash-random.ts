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
import { rng, sleep, startOrigin, startProxy, tmp, type Proxy } from './procs.ts'

export const K = 10
export const LIMIT = 4

export async function crashRun(backend: { store?: string; redis?: string }, seed: number, fakeMinutes = 3.5) {
  const random = rng(seed)
  const T0 = Date.now()
  const fake = (real: number) => T0 + (real - T0) * K
  const fakeNow = () => fake(Date.now())
  const env = { B14B_CLOCK_K: String(K), B14B_CLOCK_T0: String(T0) }
  const origin = await startOrigin()
  const roomId = `b14b-crash-${seed}-${T0}`
  const args = ['--origin', origin.url, '--room-id', roomId, '--total-active-users', String(LIMIT), '--new-users-per-minute', String(LIMIT), '--session-duration', '1', '--refresh-interval', '5',
    ...(backend.store ? ['--store', backend.store] : ['--redis', backend.redis!])]
  const proxies: (Proxy | undefined)[] = await Promise.all([0, 1, 2].map(() => startProxy(args, env)))
  const kills: string[] = []
  const end = fakeNow() + fakeMinutes * 60_000
  const fsleep = (fakeMs: number) => sleep(fakeMs / K)
  const live = () => proxies.filter((p): p is Proxy => !!p && p.child.exitCode === null && p.child.signalCode === null)

  async function user(id: string) {
    let cookie = ''
    let admittedUntil = 0
        while (fakeNow() < end) {
      const choices = live()
      if (choices.length === 0) { await fsleep(500); continue }
      const p = choices[Math.floor(random() * choices.length)]!
      let admitted = false
      try {
        const res = await fetch(`${p.url}/page`, { headers: { 'x-user': id, ...(cookie ? { cookie } : {}) }, signal: AbortSignal.timeout(3000) })
        const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!).filter((c) => c.startsWith('__wroom'))
        if (set.length) cookie = set.join('; ')
        admitted = res.headers.get('x-origin') === 'yes'
        await res.text()
      } catch { /* proxy died mid-request */ }
      if (admitted) {
        if (!admittedUntil) admittedUntil = fakeNow() + 10_000 + random() * 30_000
        if (fakeNow() > admittedUntil) return
        await fsleep(3000 + random() * 5000)
      } else {
        if (admittedUntil) { await fsleep(1000); continue }
        await fsleep(5000 + random() * 2000)
      }
    }
  }

  async function killer() {
    while (fakeNow() < end - 20_000) {
      await fsleep(5000 + random() * 15_000)
      const i = Math.floor(random() * 3)
      const p = proxies[i]
      if (!p) continue
      kills.push(`${((fakeNow() - T0) / 1000).toFixed(1)}s: killed proxy ${i}`)
      p.child.kill('SIGKILL')
      proxies[i] = undefined
      await p.exited
      await sleep(300 + random() * 1700)
      proxies[i] = await startProxy(args, env)
    }
  }

  const users: Promise<void>[] = []
  const arrivals = (async () => {
    let n = 0
    while (fakeNow() < end - 10_000) {
      users.push(user(`u${n++}`))
      await fsleep(1000 + random() * 3000)
    }
  })()
  await Promise.all([arrivals, killer()])
  await Promise.all(users)
  for (const p of live()) p.child.kill('SIGKILL')
  origin.server.close()

  // Ground truth: the most distinct users served in any 20 s (fake) window.
  const events: { t: number; user: string }[] = []
  for (const [user, times] of origin.served) for (const t of times) events.push({ t: fake(t), user })
  events.sort((a, b) => a.t - b.t)
  let worst = { count: 0, at: 0, users: [] as string[] }
  for (let i = 0; i < events.length; i++) {
    const set = new Set<string>()
    for (let j = i; j < events.length && events[j]!.t - events[i]!.t <= 20_000; j++) set.add(events[j]!.user)
    if (set.size > worst.count) worst = { count: set.size, at: (events[i]!.t - T0) / 1000, users: [...set] }
  }
  return { worst, kills, usersServed: origin.served.size }
}

export const sqliteStore = () => join(tmp(), 'room.db')
