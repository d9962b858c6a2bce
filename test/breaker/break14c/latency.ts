/**
 * break14c — renewal latency at minute boundaries: 2 CLI proxies, U admitted users requesting every 100 ms (real),
 * clock 20× (a minute is 3 s real). Optionally a stall (SQLite write lock held by another process, Redis DEBUG
 * SLEEP or CLIENT PAUSE) that starts 300 ms (real) before a minute boundary. Latency split into renewals (the
 * request that got a new cookie) and the rest.
 */
import { sleep, startOrigin, startProxy, type Proxy, fakeClock } from '../break14b/procs.ts'

const K = 20
const MIN = 60_000
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? 0) }

export async function latencyRun(backend: string[], users: number, sessionMinutes: number, stall?: () => Promise<unknown>, minutes = 3) {
  const { T0, now: fakeNow, env } = fakeClock(K)
  const origin = await startOrigin()
  const args = ['--origin', origin.url, '--room-id', `b14c-lat-${T0}`, '--total-active-users', '500', '--new-users-per-minute', '500', '--session-duration', String(sessionMinutes), ...backend]
  const proxies: Proxy[] = await Promise.all([0, 1].map(() => startProxy(args, env)))
  const cookies: string[] = []
  for (let i = 0; i < users; i++) {
    const res = await fetch(`${proxies[i % 2]!.url}/p`); await res.text()
    if (res.headers.get('x-origin') !== 'yes') throw new Error('setup')
    cookies.push(res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom='))!)
  }
  const stopAt = fakeNow() + minutes * MIN
  const lat: { ms: number; renewal: boolean; admitted: boolean; nearBoundary: boolean; at?: number; u?: number }[] = []
  let stallStart = 0
  // the stall starts 300 ms real before the 2nd boundary
  const b2 = (Math.floor(fakeNow() / MIN) + 2) * MIN
  const stalls = stall ? (async () => { while (fakeNow() < b2 - 300 * K) await sleep(10); stallStart = performance.now(); await stall() })() : Promise.resolve()
  await Promise.all(cookies.map(async (cookie, i) => {
    let c = cookie
    await sleep(i * 7)
    while (fakeNow() < stopAt) {
      const t = performance.now()
      const f = fakeNow()
      try {
        const res = await fetch(`${proxies[i % 2]!.url}/p`, { headers: { cookie: c }, signal: AbortSignal.timeout(10_000) })
        await res.text()
        const set = res.headers.getSetCookie().map((x) => x.split(';')[0]!).find((x) => x.startsWith('__wroom='))
        const renewal = !!set && set !== '__wroom=' && set !== c
        if (renewal) c = set!
        lat.push({ ms: performance.now() - t, renewal, admitted: res.headers.get('x-origin') === 'yes', nearBoundary: f % MIN < 5000, at: Math.round(t - stallStart), u: i })
      } catch { lat.push({ ms: performance.now() - t, renewal: false, admitted: false, nearBoundary: false }) }
      await sleep(100)
    }
  }))
  await stalls
  for (const p of proxies) p.child.kill('SIGKILL')
  origin.server.close()
  const ren = lat.filter((l) => l.renewal).map((l) => l.ms)
  const near = lat.filter((l) => l.nearBoundary && !l.renewal).map((l) => l.ms)
  const all = lat.map((l) => l.ms)
  return {
    requests: lat.length, refused: lat.filter((l) => !l.admitted).length,
    renewals: { n: ren.length, p50: pct(ren, 0.5), p99: pct(ren, 0.99), max: Math.round(Math.max(0, ...ren)) },
    otherNearBoundary: { n: near.length, p50: pct(near, 0.5), p99: pct(near, 0.99), max: Math.round(Math.max(0, ...near)) },
    slow: lat.filter((l) => l.ms > 300).map((l) => `${l.at}ms:u${l.u}:${l.renewal ? 'R' : '-'}:${Math.round(l.ms)}`).slice(0, 30),
    all: { p50: pct(all, 0.5), p95: pct(all, 0.95), p99: pct(all, 0.99), max: Math.round(Math.max(0, ...all)) },
  }
}
