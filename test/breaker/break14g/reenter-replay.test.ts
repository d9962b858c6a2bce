/**
 * break14g — a pending renewal re-enters through the grant step (commit 0edc24d, token = ticket id). Can one ticket
 * re-enter more than once, by replaying its old pending cookie?
 * Promise (README Known limits): "one ticket holds one place however it replays its cookies"; (renewal row) "a
 * ticket is counted in one minute, whatever order its reports arrive in, … whichever of its cookies (old,
 * replayed, renewed) is renewed".
 * Attack: sessions of S = 2–4 minutes, one user U alone in a room of n. The store fails (throws) for S + 1–2
 * minutes: U keeps checking in; in its confirmed cookie's last minute and after, U is handed pending cookies
 * (confirmed minute unchanged, pending minute advancing); U keeps the last one, P. The store comes back: the move
 * lands after its count left the window (ended), so U re-enters through the grant (confirmed cookie C). Then, in
 * each of the next minutes while P's pending minute is in the window, U first replays P at worker A (another grant,
 * same token, another minute), then renews its current cookie at worker B. Then newcomers.
 * Worker A is SIGKILLed at the end of the outage (its moves never land), so U's count is ended and U must re-enter
 * through the grant; the pending cookie first reaches workers B and C at once (two re-entries in one minute).
 * Held — two workers at once in one minute (the token dedupes): newcomers n − 1.
 * Broke — the pending cookie replayed in a later minute, before U renews its re-entered cookie: another grant (a
 * new minute's token; the re-entry set no register for the replay to meet), so U holds 2 places: newcomers n − 2
 * (4 of 6, S 2–4). An over-count (never above the limit), after a double fault (A killed during the outage), but
 * against "one ticket holds one place however it replays its cookies".
 * And a ticket renewed before the outage (a register holding that minute): its re-entered session's next renewal
 * read the old register as a lost state and was put in again — counted twice until the grant's minute left the
 * window (newcomers n − 2).
 * Fixed (fix14h): the re-entry's grant sets the ticket's register to its minute in the same atomic step
 * (moves.ts `reenteredRegister`, every adapter; conformance: moves-suite). Generated cases — seeds over session
 * lengths 2–5, outages S + 1–3, 0–2 renewals before the outage, replays at once or in later minutes — on memory,
 * SQLite and Redis. Before (20 seeds each): 10, 10 and 15 of 20 cases had U holding 2–3 places (newcomers n − 2
 * or n − 3); after, 0. B14G_SEEDS sets the seeds per backend.
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { Coordinator } from '../../../src/index.ts'
import { closeBackends, coordinatorFor, type Backend } from '../break14d/backends.ts'
import { MINUTE, sleep, worker } from '../break14d/slow.ts'
import { seeded } from '../../conformance/seeded.ts'

afterAll(closeBackends)

function failing(inner: Coordinator, down: { on: boolean }): Coordinator {
  const gate = <R>(f: () => Promise<R>): Promise<R> => (down.on ? Promise.reject(new Error('down')) : f())
  return { name: 'failing', increment: (r) => gate(() => inner.increment(r)), takeSlot: (r) => gate(() => inner.takeSlot!(r)), sync: (r) => gate(() => inner.sync(r)) }
}

interface Case { backend: Backend; S: number; outage: number; pre: number; replay: boolean; how: 'concurrent' | 'later'; n: number; base: number }

async function run({ backend, S, outage, pre, replay, how, n, base }: Case) {
  const inner = await coordinatorFor(backend)
  const down = { on: false }
  const m = base
  const clock = { now: m * MINUTE + 1_000 }
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: S, failMode: 'closed' as const, coordinatorTimeoutMs: 300, syncIntervalMs: 50 }
  const roomId = `b14g-replay-${base}-${crypto.randomUUID().slice(0, 6)}`
  const A = worker(failing(inner, down), clock, roomId, options) // dies during the outage: its moves never land
  const B = worker(inner, clock, roomId, options)
  const C = worker(inner, clock, roomId, options)
  const first = await B(undefined)
  const ticket = first.ticketId
  let cookie = first.fresh
  await B(undefined) // a second user, admitted: its count leaves the window long before the end
  // Renewals before the outage: the ticket's register holds the last one's minute.
  for (let j = 1; j <= pre; j++) {
    clock.now = (m + j) * MINUTE + 1_000
    const r = await B(cookie)
    if (!r.admitted || r.ticketId !== ticket) throw new Error(`setup: U not renewed at +${j}`)
    cookie = r.fresh ?? cookie
    await sleep(20)
  }
  await A(cookie) // A learns the room (same minute: no renewal)
  down.on = true
  let pendingCookie: string | undefined
  for (let k = pre + 1; k <= pre + S + outage; k++) {
    clock.now = (m + k) * MINUTE + 1_000
    const r = await A(cookie)
    if (!r.admitted || r.ticketId !== ticket) throw new Error(`setup: U logged out during the outage at +${k}`)
    if (r.fresh) { cookie = r.fresh; pendingCookie = r.fresh }
    await sleep(20)
  }
  // A is SIGKILLed: it never reports again (down stays on for it)
  const back = m + pre + S + outage + 1
  let replays = 0
  const reasons: string[] = []
  for (let k = 0; k < S; k++) {
    clock.now = (back + k) * MINUTE + 1_000
    if (replay && pendingCookie) {
      // k = 0: the pending cookie at two workers at once; later minutes: replayed at C before U renews at B
      const rs = k === 0 ? (how === 'later' ? [await B(pendingCookie)] : await Promise.all([C(pendingCookie), B(pendingCookie)])) : how === 'concurrent' ? [] : [await C(pendingCookie)]
      replays += rs.filter((r) => r.admitted && r.ticketId === ticket).length
      if (k === 0) { const r = rs.at(-1)!; if (!r.admitted || r.ticketId !== ticket) throw new Error(`U not back: ${r.reason}`); cookie = r.fresh ?? cookie; reasons.push(r.reason ?? ""); continue }
      await sleep(20)
    }
    const r = await B(cookie)
    reasons.push(r.reason ?? "")
    if (!r.admitted || r.ticketId !== ticket) throw new Error(`U logged out after the outage at +${k}: ${r.reason}`)
    if (r.fresh) cookie = r.fresh
    await sleep(20)
  }
  await sleep(200)
  // Newcomers in the last replay minute: U holds one place (the second user's count has left the window).
  let newcomers = 0
  for (let i = 0; i < n; i++) if ((await C(undefined)).admitted) newcomers++
  return { backend, S, outage, pre, replay, how, n, reasons: reasons.join(','), replays, newcomers, expected: n - 1 }
}

const SEEDS = Number(process.env.B14G_SEEDS ?? 20)
const backends: Backend[] = ['memory', 'sqlite', 'redis']

/** The generated cases of `backend`: session length, outage, renewals before it and the replay's timing per seed. */
function cases(backend: Backend): Case[] {
  const out: Case[] = []
  for (let seed = 1; seed <= SEEDS; seed++) {
    const random = seeded(seed * 104_729 + backends.indexOf(backend))
    const S = 2 + Math.floor(random() * 4)
    out.push({ backend, S, outage: 1 + Math.floor(random() * 3), pre: Math.floor(random() * 3), replay: true, how: seed % 2 === 0 ? 'concurrent' : 'later', n: 4 + Math.floor(random() * 4), base: 29_700_000 + seed * 100 + backends.indexOf(backend) * 10 })
  }
  return out
}

describe('break14g: a ticket re-entering through the grant step holds one place however it replays its pending cookie', () => {
  it.each(backends)('%s: generated cases (session, outage, renewals before it, replays at once or later): newcomers fill every place but U\'s', async (backend) => {
    const over: string[] = []
    for (const c of cases(backend)) {
      const out = await run(c)
      if (out.newcomers !== out.expected) over.push(JSON.stringify(out))
    }
    expect(over).toEqual([])
  }, 600_000)
  it('control (holds): no replay', async () => {
    const out = await run({ backend: 'memory', S: 3, outage: 2, pre: 1, replay: false, how: 'later', n: 6, base: 29_790_000 })
    expect(out.newcomers).toBe(out.expected)
  }, 30_000)
})
