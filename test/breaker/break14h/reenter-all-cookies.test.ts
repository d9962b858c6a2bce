/**
 * break14h — re-entry sets the register: replays of EVERY cookie U was ever handed (the first, the confirmed renewals
 * before the outage, each pending one), at once over three workers of ONE location, racing U's own renewal of its
 * current cookie, in the comeback minute and each later minute of the session; then the store counts U once.
 * Generated: sessions 2–4, outages S + 1–2, 0–2 renewals before, memory / SQLite / Redis.
 * Measured: fresh grants to U's re-entries (the spy), and the users the store counts active in the last minute
 * less the replays of ended cookies admitted there as new users (new tickets): U alone, once.
 * HELD: 4 seeds per backend (8–45 cookies replayed per case), 1 fresh grant each, U counted once, never logged out.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { closeBackends, type Backend } from '../break14d/backends.ts'
import { MINUTE, sleep } from '../break14d/slow.ts'
import { rng } from './located.ts'
import { reentryRoom } from './reentry.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

const SEEDS = Number(process.env.B14H_SEEDS ?? 4)

async function run(backend: Backend, seed: number) {
  const random = rng(seed * 7717 + backend.length)
  const S = 2 + Math.floor(random() * 3)
  const outage = 1 + Math.floor(random() * 2)
  const pre = Math.floor(random() * 3)
  const room = await reentryRoom({ backend, S, outage, n: 6, pre })
  const { B, C, D, clock, ticket, cookies, back, grants } = room
  let current = room.pending
  const ws = [B, C, D]
  let out = 0
  let strangers = 0 // replays of cookies whose session ended: new users (new tickets), counted in their minute
  for (let k = 0; k < S; k++) {
    clock.now = (back + k) * MINUTE + 1_000 + Math.floor(random() * 30_000)
    const replays = cookies.map((cookie) => ws[Math.floor(random() * 3)]!('L0', cookie))
    const own = ws[Math.floor(random() * 3)]!('L0', current)
    const [mine, ...rest] = await Promise.all([own, ...replays])
    if (!mine!.admitted || mine!.ticketId !== ticket) out++
    else if (mine!.fresh) current = mine!.fresh
    for (const r of rest) if (r.admitted && r.ticketId === ticket && r.fresh) cookies.push(r.fresh)
    if (k === S - 1) strangers = rest.filter((r) => r.admitted && r.ticketId !== ticket).length
    await sleep(30)
  }
  const last = back + S - 1
  const active = await room.activeIn(last)
  return { backend, seed, S, outage, pre, cookies: cookies.length, grants: grants.join(' '), fresh: grants.length, out, strangers, uCounted: active - strangers }
}

describe('break14h: every cookie of a re-entered ticket replayed at once, racing its renewal: one place', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
    it(`${backend}: generated`, async () => {
      const bad: string[] = []
      for (let seed = 1; seed <= SEEDS; seed++) {
        const r = await run(backend, seed)
        console.log(JSON.stringify(r))
        if (r.fresh !== 1 || r.uCounted !== 1 || r.out > 0) bad.push(JSON.stringify(r))
      }
      expect(bad).toEqual([])
    }, 55_000)
  }
})
