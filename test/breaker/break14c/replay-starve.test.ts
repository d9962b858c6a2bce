/**
 * break14c — issue #14 item 3 / Known limits "An older cookie replayed": can ONE admitted ticket starve the room?
 * One CLI proxy (in-memory store), clock 20×, room of 5 (5 new per minute), 5-minute sessions. The attacker is
 * admitted once, in minute 0, and then sends ONE request a minute (at k:01), carrying the oldest cookie of its own
 * ticket that is still valid — cookie c0 in minutes 1–5, then the cookie it was given in minute k−5. Each such
 * request renews into minute k (a new target key) while its source minute has been left already or leaves the
 * window anyway, so the ticket stays counted in every minute of the window: 5 places, forever, for one user.
 * Honest users (one ticket, any cookie) count once. From minute 6 on, one newcomer a minute arrives: a room holding
 * one real user must let them in (4 free places).
 *
 * README Known limits documents "counted in up to sessionDurationMinutes minutes at once ... the extra counts leave
 * the window with their minutes": this shows the extra counts never leave — the attacker renews them every minute.
 * Failed before the move registers (0 newcomers admitted in minutes 6–11); each renewal is now a compare-and-move
 * against the ticket's register and the renewed cookie carries the minute it answered: 4 get in (src/coordination/moves.ts).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { killAllStarted, sleep, startOrigin, startProxy, fakeClock } from '../break14b/procs.ts'

afterAll(() => killAllStarted())
const K = 20
const MIN = 60_000

async function run(attack: boolean) {
  const { T0, now: fakeNow, until: untilFake, env } = fakeClock(K, 20)
  const origin = await startOrigin()
  const p = await startProxy(['--origin', origin.url, '--room-id', `b14c-starve-${T0}`, '--total-active-users', '5', '--new-users-per-minute', '5', '--session-duration', '5'], env)
  const get = async (user: string, cookie = '') => {
    const res = await fetch(`${p.url}/p`, { headers: { 'x-user': user, ...(cookie ? { cookie } : {}) } })
    await res.text()
    const set = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('__wroom='))
    return { admitted: res.headers.get('x-origin') === 'yes', cookie: set && set !== '__wroom=' ? set : undefined }
  }
  const m0 = Math.floor(fakeNow() / MIN) + 1
  await untilFake(m0 * MIN + 1500)
  const first = await get('attacker')
  expect(first.admitted).toBe(true)
  const cookies = new Map<number, string>([[0, first.cookie!]]) // minute it was given → cookie
  const log: string[] = []
  let attackerOk = 0
  const newcomers: boolean[] = []
  for (let k = 1; k <= 11; k++) {
    await untilFake((m0 + k) * MIN + 1000)
    const old = !attack ? cookies.get(k - 1)! : k <= 5 ? cookies.get(0)! : cookies.get(k - 5)!
    const r = await get('attacker', old)
    if (r.admitted) attackerOk++
    if (r.cookie) cookies.set(k, r.cookie)
    if (k >= 6) {
      const n = await get(`n${k}`)
      newcomers.push(n.admitted)
    }
    log.push(`${k}:${r.admitted ? 'A' : 'q'}${r.cookie ? '+' : ''}`)
  }
  p.child.kill('SIGKILL'); origin.server.close()
  console.log(attack ? 'replay attack:' : 'honest control:', log.join(' '), 'newcomers', newcomers)
  return { attackerOk, newcomersIn: newcomers.filter(Boolean).length }
}

// Fixed by the move registers (issue 14 item 3): runs by default.
describe.concurrent('break14c: one ticket replaying its own older cookies', () => {
  it('the attacker cannot keep a room of 5 full with one ticket — newcomers in minutes 6–11 must get in', async () => {
    const out = await run(true)
    expect(out.attackerOk).toBe(11) // the attack keeps its own session alive with one request a minute
    expect(out.newcomersIn).toBeGreaterThanOrEqual(4) // a room of 5 with one user lets 4 in
  }, 60_000)
  it('control (holds): the same user sending its latest cookie leaves 4 places to newcomers', async () => {
    const out = await run(false)
    expect(out).toEqual({ attackerOk: 11, newcomersIn: 4 })
  }, 60_000)
})
