/**
 * break14g — a worker cut off from the store for longer than a session (no crash: a single fault), its users kept
 * (pending cookies), their counts left the window, newcomers took their places. When the worker reports again, its
 * queued reports walk each ticket's count forward and the coordinator counts the cut-off users back in on top of
 * the newcomers. README (renewal row, commit 0edc24d): "put-backs and newcomers together never exceed what the
 * counters give"; issue 14: "never lets the room exceed totalActiveUsers". Also: a revocation of such a ticket.
 * Original idea: a revocation of a ticket the coordinator no longer counts. Worker 1 cannot reach the store for longer
 * than a session (no crash, no double fault): user U keeps checking in there and is handed pending cookies; its
 * count (the admission minute) leaves the session window, so the room counts it nowhere and a newcomer takes the
 * place at the healthy worker 0 (README: "a later renewal puts the ticket back in … while … below totalActiveUsers,
 * else the user is a new user"). Then the origin revokes U at worker 1 (its `x.{ticket}` delta waits with the
 * worker's other unsent deltas); worker 1 comes back and reports. Promise (README revocation row): "A revocation
 * frees at most one place per ticket" — U holds none, so none may be freed: the room stays at totalActiveUsers.
 * Measured: newcomers admitted over the following minutes while everyone else keeps checking in; the room must never
 * hold more live sessions than n. Sessions of 2–3 minutes, outages of S + 1–2 minutes.
 */
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import type { Coordinator } from '../../../src/index.ts'
import { worker } from '../harness.ts'
import { MINUTE } from '../break14e/support.ts'

async function run(S: number, extra: number, revoke: boolean, k1 = 1, n = 3) {
  const inner = memoryCoordinator()
  const down = new Set<number>()
  const wrap = (w: number): Coordinator => {
    const g = <T>(f: () => Promise<T>) => (down.has(w) ? Promise.reject(new Error('down')) : f())
    return { name: `w${w}`, increment: (r) => g(() => inner.increment(r)), takeSlot: (r) => g(() => inner.takeSlot!(r)), sync: (r) => g(() => inner.sync(r)) }
  }
  const m = 29_900_000 + S * 1000 + extra * 100 + k1 * 10 + (revoke ? 1 : 0)
  const clock = { now: m * MINUTE + 2_000 }
  const room = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: S, syncIntervalMs: 0, enabledOriginCommands: ['revoke' as const] }
  const [w0, w1] = [worker(wrap(0), clock, room), worker(wrap(1), clock, room)]
  const flush = async () => { for (const w of [w0, w1]) await w.room.room.flush().catch(() => {}) }
  const live = new Map<string, string | undefined>() // user → cookie, for users the room served
  const cut = (u: string) => u === 'U' || /^U\d+$/.test(u)
  for (let i = 0; i < n; i++) { const r = await w0.request(); if (!r.admitted) throw new Error('setup'); live.set(i === 0 ? 'U' : i < k1 ? `U${i}` : `V${i}`, r.cookie) }
  await w1.request(live.get('U')) // worker 1 learns the room
  down.add(1)
  let newcomer = 0
  const queued = new Map<number, string | undefined>()
  let maxLive = 0
  let maxLiveAfter = 0
  let maxCountedAfter = 0
  let after = false
  const uReasons: string[] = []
  const minute = async (k: number, extraStep?: () => Promise<void>) => {
    clock.now = (m + k) * MINUTE + 10_000
    for (const [u, cookie] of live) {
      const r = await (cut(u) ? w1 : w0).request(cookie)
      if (u === 'U' && after) uReasons.push(`${r.reason}`)
      if (r.admitted) live.set(u, r.cookie)
      else live.delete(u)
    }
    await flush()
    if (extraStep) await extraStep()
    // queued newcomers come back (FIFO), two more arrive
    for (const [i, cookie] of [...queued.entries()]) {
      const r = await w0.request(cookie)
      if (r.admitted) { queued.delete(i); live.set(`N${i}`, r.cookie) } else if (r.cookie) queued.set(i, r.cookie)
    }
    for (let i = 0; i < 2; i++) { const r = await w0.request(); if (r.admitted) live.set(`N${++newcomer}`, r.cookie); else queued.set(++newcomer, r.cookie) }
    await flush()
    maxLive = Math.max(maxLive, live.size)
    if (after) { maxLiveAfter = Math.max(maxLiveAfter, live.size); maxCountedAfter = Math.max(maxCountedAfter, (await w0.status()).estimatedTotalActiveUsers) }
    if (process.env.B14G_DEBUG) console.log(`minute +${k}: live ${[...live.keys()].join(',')}; coordinator counts ${(await w0.status()).estimatedTotalActiveUsers}`)
  }
  const outage = S + extra
  for (let k = 1; k <= outage; k++) await minute(k)
  const liveBefore = live.size
  if (!live.has('U')) throw new Error('setup: U logged out during the outage')
  if (revoke) { const r = await w1.request(live.get('U'), { headers: { 'x-command': 'revoke' } }); if (!r.admitted) throw new Error('setup: revoke not served'); live.delete('U') }
  down.delete(1)
  await flush()
  after = true
  for (let k = outage + 1; k <= outage + S + 1; k++) await minute(k)
  return { S, outage, revoke, n, k1, liveBefore, maxLiveAfter, maxCountedAfter, uReasons: uReasons.join(','), newcomersAdmitted: [...live.keys()].filter((u) => u.startsWith('N')).length, maxLive, liveAtEnd: live.size, uBack: live.has('U') }
}

describe('break14g: a worker cut off from the store for longer than a session — after it comes back, never above n', () => {
  for (const [S, extra, k1, n] of [[2, 1, 1, 3], [3, 2, 1, 3], [2, 1, 2, 4], [3, 1, 3, 5], [2, 2, 2, 5]] as const) {
    it(`S ${S}, worker 1 down S + ${extra} minutes, ${k1} of ${n} users there: live sessions and the coordinator's count ≤ n after it reports`, async () => {
      const out = await run(S, extra, false, k1, n)
      console.log(JSON.stringify(out))
      expect(out.newcomersAdmitted, 'newcomers took the cut-off users\' places (not vacuous)').toBeGreaterThan(0)
      expect(out.maxLiveAfter, 'live sessions after the worker reports').toBeLessThanOrEqual(n)
      expect(out.maxCountedAfter, 'the coordinator\'s count after the worker reports').toBeLessThanOrEqual(n)
    }, 30_000)
  }
  for (const [S, extra] of [[2, 1], [3, 2]] as const) {
    it(`holds: S ${S}, the cut-off user revoked before the worker reports — no live session beyond n after`, async () => {
      const out = await run(S, extra, true)
      console.log(JSON.stringify(out))
      expect(out.maxLiveAfter).toBeLessThanOrEqual(out.n)
    }, 30_000)
  }
})
