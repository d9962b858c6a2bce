/**
 * break14b — items 3/"never exceed totalActiveUsers": a proxy process PAUSED (SIGSTOP: a VM pause, a debugger, a
 * long GC) rather than killed. Clocks run 10× (a minute is 6 s real). Two proxies on one store, room of 4 (4 new per
 * minute), 5-minute sessions (no place frees during the test).
 *   1. Both proxies are up and synced with the empty room; proxy A is stopped (SIGSTOP).
 *   2. Proxy B admits 4 users: the room is full. They keep browsing through B.
 *   3. Two minutes (fake) later, 10 new users send their requests to A, and A is continued (SIGCONT): A wakes with
 *      its snapshot of the empty room from before the pause.
 * Expected: A admits no one (the room is full); at most 4 distinct users are served in total.
 */
import { join } from 'node:path'
import { afterAll, describe, it } from 'vitest'
import { killAllStarted, sleep, startOrigin, startProxy, startRedis, tmp } from './procs.ts'

const K = 10
afterAll(() => killAllStarted())

async function pausedRun(backend: string[]) {
  const T0 = Date.now()
  const env = { B14B_CLOCK_K: String(K), B14B_CLOCK_T0: String(T0) }
  const origin = await startOrigin()
  const args = ['--origin', origin.url, '--room-id', `b14b-pause-${T0}`, '--total-active-users', '4', '--new-users-per-minute', '4', '--session-duration', '5', ...backend]
  const [a, b] = await Promise.all([startProxy(args, env), startProxy(args, env)])
  const get = async (url: string, user: string, cookie = '') => {
    const res = await fetch(`${url}/p`, { headers: { 'x-user': user, ...(cookie ? { cookie } : {}) }, signal: AbortSignal.timeout(8000) })
    await res.text()
    return { admitted: res.headers.get('x-origin') === 'yes', cookie: res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom=')) ?? cookie }
  }
  await sleep(1500)
  a!.child.kill('SIGSTOP')
  const inside: { user: string; cookie: string }[] = []
  for (let i = 0; i < 4; i++) { const r = await get(b!.url, `in${i}`); if (r.admitted) inside.push({ user: `in${i}`, cookie: r.cookie }) }
  // They keep browsing through B for 2 fake minutes (every ~10 fake seconds).
  const until = Date.now() + (2 * 60_000 + 10_000) / K
  while (Date.now() < until) { for (const u of inside) await get(b!.url, u.user, u.cookie); await sleep(1000) }
  const wake = Promise.all(Array.from({ length: 10 }, (_, i) => get(a!.url, `new${i}`).catch(() => ({ admitted: false }))))
  await sleep(200)
  a!.child.kill('SIGCONT')
  const newcomers = await wake
  const late = await Promise.all(Array.from({ length: 5 }, (_, i) => get(a!.url, `late${i}`).catch(() => ({ admitted: false }))))
  a!.child.kill('SIGKILL'); b!.child.kill('SIGKILL'); origin.server.close()
  return { insideFirst: inside.length, admittedOnWake: newcomers.filter((n) => n.admitted).length, admittedLater: late.filter((n) => n.admitted).length, servedUsers: origin.served.size }
}

// SQLite and Redis run at the same time: separate rooms, origins and proxies, mostly asleep, and the claims
// (4 let in by B, never more than 4 served) hold whatever the timing.
describe.concurrent('break14b: a proxy paused (SIGSTOP) for two minutes wakes to a full room', () => {
  it('SQLite --store: the woken proxy admits no one; never more than 4 users served', async ({ expect }) => {
    const out = await pausedRun(['--store', join(tmp(), 'room.db')])
    console.log('sqlite paused:', JSON.stringify(out))
    expect(out.insideFirst).toBe(4)
    expect(out.servedUsers).toBeLessThanOrEqual(4)
  }, 60_000)
  it('Redis: the woken proxy admits no one; never more than 4 users served', async ({ expect }) => {
    const redis = await startRedis(7394)
    try {
      const out = await pausedRun(['--redis', redis.url])
      console.log('redis paused:', JSON.stringify(out))
      expect(out.insideFirst).toBe(4)
      expect(out.servedUsers).toBeLessThanOrEqual(4)
    } finally { await redis.stop() }
  }, 60_000)
})
