/**
 * break14b — issue #14 item 2: one ticket revoked from many processes frees ONE place. Three CLI proxies on one
 * store with --origin-commands revoke, a room of 3 (100 new per minute), accelerated clocks (K×). Users A, B, C are
 * admitted; A's ticket is renewed in a later minute (old cookie c0, renewed c1, and a third renewal c2 one
 * minute on). Then, straddling a minute boundary, 30 requests carrying A's cookies (c0/c1/c2 mixed) go to all three
 * proxies at once: half answer `Waiting-Room-Command: revoke`, half are ordinary (renewing) requests racing them.
 * Afterwards exactly one place is free: of 12 newcomers exactly 1 is admitted — or none and A is back (as a new user
 * admitted into the freed place by a racing request) — and B and C still get in. `racing: false`: all 30 revoke.
 */
import { ADMIN, rng, sleep, startOrigin, startProxy, type Proxy, fakeClock } from './procs.ts'

export const K = 20
const MIN = 60_000

export async function revokeRun(backend: { store?: string; redis?: string }, seed: number, racing = true) {
  const random = rng(seed)
  const { T0, now: fakeNow, until: untilFake, env } = fakeClock(K)
  const origin = await startOrigin()
  const args = ['--origin', origin.url, '--room-id', `b14b-revoke-${seed}-${T0}`, '--total-active-users', '3', '--new-users-per-minute', '100', '--session-duration', '15', '--origin-commands', 'revoke',
    ...(backend.store ? ['--store', backend.store] : ['--redis', backend.redis!])]
  const proxies: Proxy[] = await Promise.all([0, 1, 2].map(() => startProxy(args, env)))
  const get = async (p: Proxy, cookie: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${p.url}/page`, { headers: { ...(cookie ? { cookie } : {}), ...headers } })
    await res.text()
    const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom='))
    return { admitted: res.headers.get('x-origin') === 'yes', cookie: set && set !== '__wroom=' ? set : cookie, status: res.status }
  }
  // Start just after a minute boundary.
  await untilFake((Math.floor(fakeNow() / MIN) + 1) * MIN + 2000)
  const a0 = await get(proxies[0]!, ''); const b = await get(proxies[1]!, ''); const c = await get(proxies[2]!, '')
  if (!a0.admitted || !b.admitted || !c.admitted) throw new Error('setup: A, B, C not admitted')
  await sleep(1500)
  // Next minute: renew A on another proxy (c1), and one more minute on (c2).
  await untilFake((Math.floor(fakeNow() / MIN) + 1) * MIN + 3000)
  const a1 = await get(proxies[1]!, a0.cookie)
  await untilFake((Math.floor(fakeNow() / MIN) + 1) * MIN + 3000)
  const a2 = await get(proxies[2]!, a1.cookie)
  const cookies = [a0.cookie, a1.cookie, a2.cookie]
  const distinct = new Set(cookies).size
  // B and C check in too so they stay counted in this minute.
  await get(proxies[0]!, b.cookie); await get(proxies[0]!, c.cookie)
  await sleep(1500)
  // The burst straddles the next boundary: from `offset` ms (fake) before it.
  const offset = 200 + Math.floor(random() * 3000)
  const boundary = (Math.floor(fakeNow() / MIN) + 1) * MIN
  await untilFake(boundary - offset)
  const burst: Promise<unknown>[] = []
  for (let i = 0; i < 30; i++) {
    const p = proxies[i % 3]!
    const cookie = cookies[Math.floor(random() * 3)]!
    const revoke = !racing || i % 2 === 0
    burst.push(sleep(random() * (2 * offset) / K).then(() => get(p, cookie, revoke ? { 'x-revoke': '1' } : {})).then((r) => (revoke ? null : r)).catch(() => null))
  }
  const answers = await Promise.all(burst)
  // Cookies A was handed by the ordinary (non-revoking) requests: A may legitimately come back as a NEW user into
  // the freed place; then that place is A's, and no newcomer gets it.
  const aCookies = [...new Set(answers.filter((r: any) => r?.admitted).map((r: any) => r.cookie as string))]
  await sleep(2500) // several sync intervals, real time
  // Newcomers arrive, and (queued) check in again just after the next minute starts, and once more 20 s later:
  // a place freed mid-minute may be handed out only from the next minute's slots.
  let newcomers = await Promise.all(Array.from({ length: 12 }, (_, i) => get(proxies[i % 3]!, '')))
  const admittedAtOnce = newcomers.filter((n) => n.admitted).length
  let aBack = false
  for (const wait of [5000, 20_000]) {
    await untilFake(wait === 5000 ? (Math.floor(fakeNow() / MIN) + 1) * MIN + 5000 : fakeNow() + wait)
    newcomers = await Promise.all(newcomers.map((n, i) => get(proxies[i % 3]!, n.cookie)))
    for (const ck of aCookies) if ((await get(proxies[0]!, ck)).admitted) aBack = true
  }
  const admittedNew = newcomers.filter((n) => n.admitted).length
  const bAgain = await get(proxies[1]!, b.cookie)
  const cAgain = await get(proxies[2]!, c.cookie)
  const status = await (await fetch(`${proxies[0]!.url}/_room/status`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()
  for (const p of proxies) p.child.kill('SIGKILL')
  origin.server.close()
  return { admittedNew, admittedAtOnce, aBack, aCookies: aCookies.length, bStill: bAgain.admitted, cStill: cAgain.admitted, distinctCookies: distinct, offset, estimatedTotalActiveUsers: status.estimatedTotalActiveUsers }
}
