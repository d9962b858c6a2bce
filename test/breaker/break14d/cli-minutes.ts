/**
 * break14d: two CLI proxies on one store, accelerated clock (K=20), 4 users admitted in a room of 4 with 1-minute
 * sessions, then `minutes` once-a-minute check-ins alternating proxies. `beforeMinute(m)` may start a stall (awaited
 * after the check-ins); `afterSetup` runs once the users are in. Returns the users served per minute.
 */
import { sleep, startOrigin, startProxy } from '../break14b/procs.ts'

const MIN = 60_000
const K = 20

export interface MinutesOptions { minutes?: number; afterSetup?: () => void; beforeMinute?: (m: number) => Promise<unknown> | undefined }
export async function onceAMinute(backend: string[], o: MinutesOptions = {}): Promise<number[]> {
  const origin = await startOrigin()
  const T0 = Date.now()
  const fakeNow = () => T0 + (Date.now() - T0) * K
  const untilFake = async (t: number) => { while (fakeNow() < t) await sleep(Math.max(1, Math.min(20, (t - fakeNow()) / K))) }
  const env = { B14B_CLOCK_K: String(K), B14B_CLOCK_T0: String(T0) }
  const args = ['--origin', origin.url, '--room-id', `b14d-min-${T0}`, '--total-active-users', '4', '--new-users-per-minute', '4', '--session-duration', '1', ...backend]
  const proxies = await Promise.all([startProxy(args, env), startProxy(args, env)])
  const get = async (url: string, user: string, cookie = '') => {
    const res = await fetch(`${url}/p`, { headers: { 'x-user': user, ...(cookie ? { cookie } : {}) }, signal: AbortSignal.timeout(10_000) })
    await res.text()
    const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom=') && c !== '__wroom=')
    return { admitted: res.headers.get('x-origin') === 'yes', cookie: set }
  }
  try {
    await untilFake((Math.floor(fakeNow() / MIN) + 1) * MIN + 3_000)
    const users: { cookie: string }[] = []
    for (let i = 0; i < 4; i++) {
      const r = await get(proxies[0]!.url, `u${i}`)
      if (!r.admitted || !r.cookie) throw new Error('setup')
      users.push({ cookie: r.cookie })
    }
    o.afterSetup?.()
    const served: number[] = []
    for (let m = 1; m <= (o.minutes ?? 4); m++) {
      await untilFake((Math.floor(fakeNow() / MIN) + 1) * MIN + 10_000)
      const stalled = o.beforeMinute?.(m)
      if (stalled) await sleep(60)
      const answers = await Promise.all(users.map((u, i) => get(proxies[(m + i) % 2]!.url, `u${i}`, u.cookie)))
      await stalled
      // a refused user keeps its session's cookie (a queue cookie would start a new line)
      answers.forEach((r, i) => { if (r.admitted && r.cookie) users[i]!.cookie = r.cookie })
      served.push(answers.filter((r) => r.admitted).length)
    }
    return served
  } finally {
    for (const p of proxies) p.child.kill('SIGKILL')
    origin.server.close()
  }
}
