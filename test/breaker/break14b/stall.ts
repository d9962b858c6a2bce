/**
 * break14b — issue #14 item 5: admitted users never wait on the coordinator. Two CLI proxies; 4 admitted users
 * request every 100 ms (real) while the store stalls for 4 s (real). Clocks run 20× (a minute is 3 s real), so the
 * stall spans a minute boundary: the first request of a minute (a renewal) must not wait either.
 */
import { sleep, startOrigin, startProxy, type Proxy } from './procs.ts'

export const K = 20

/**
 * A renewal waits (bounded) for the coordinator to count its move before the renewed cookie is given (session.ts):
 * the stall must not make that a wait per request — one bounded wait per worker, then none until a report gets
 * through. `sessionMinutes` 1: every renewal falls in its old cookie's last minute, so unacknowledged it renews anyway.
 */
export async function stallRun(backend: { store?: string; redis?: string }, stall: () => Promise<unknown>, stallMs: number, sessionMinutes = 5) {
  const T0 = Date.now()
  const env = { B14B_CLOCK_K: String(K), B14B_CLOCK_T0: String(T0) }
  const origin = await startOrigin()
  const args = ['--origin', origin.url, '--room-id', `b14b-stall-${T0}`, '--total-active-users', '50', '--new-users-per-minute', '50', '--session-duration', String(sessionMinutes),
    ...(backend.store ? ['--store', backend.store] : ['--redis', backend.redis!])]
  const proxies: Proxy[] = await Promise.all([0, 1].map(() => startProxy(args, env)))
  const cookies: string[] = []
  for (let i = 0; i < 4; i++) {
    const res = await fetch(`${proxies[i % 2]!.url}/p`)
    await res.text()
    if (res.headers.get('x-origin') !== 'yes') throw new Error('setup: not admitted')
    cookies.push(res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom='))!)
  }
  await sleep(1000)
  const lat: { ms: number; admitted: boolean; during: boolean }[] = []
  let stalling = false
  const stop = Date.now() + stallMs + 2500
  const users = cookies.map(async (cookie, i) => {
    let c = cookie
    while (Date.now() < stop) {
      const t = performance.now()
      const during = stalling
      try {
        const res = await fetch(`${proxies[i % 2]!.url}/p`, { headers: { cookie: c }, signal: AbortSignal.timeout(10_000) })
        await res.text()
        const set = res.headers.getSetCookie().map((x) => x.split(';')[0]!).find((x) => x.startsWith('__wroom='))
        if (set && set !== '__wroom=') c = set
        lat.push({ ms: performance.now() - t, admitted: res.headers.get('x-origin') === 'yes', during })
      } catch { lat.push({ ms: performance.now() - t, admitted: false, during }) }
      await sleep(100)
    }
  })
  await sleep(500)
  stalling = true
  const stalled = stall()
  await sleep(stallMs)
  stalling = false
  await stalled
  await Promise.all(users)
  for (const p of proxies) p.child.kill('SIGKILL')
  origin.server.close()
  const during = lat.filter((l) => l.during)
  const sorted = during.map((l) => l.ms).sort((a, b) => a - b)
  return {
    requestsDuring: during.length,
    refusedDuring: during.filter((l) => !l.admitted).length,
    maxMs: Math.round(sorted.at(-1) ?? 0),
    p95Ms: Math.round(sorted[Math.floor(sorted.length * 0.95)] ?? 0),
    avgMs: Math.round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
  }
}
