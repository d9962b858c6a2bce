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
 * Held: 1–3 replays admitted (S 2–4), newcomers n − 1 every time — U holds one place, as without replays.
 */
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import type { Coordinator } from '../../../src/index.ts'
import { MINUTE, sleep, worker } from '../break14d/slow.ts'

function failing(inner: Coordinator, down: { on: boolean }): Coordinator {
  const gate = <R>(f: () => Promise<R>): Promise<R> => (down.on ? Promise.reject(new Error('down')) : f())
  return { name: 'failing', increment: (r) => gate(() => inner.increment(r)), takeSlot: (r) => gate(() => inner.takeSlot!(r)), sync: (r) => gate(() => inner.sync(r)) }
}

async function run(S: number, outage: number, replay: boolean, n = 6) {
  const inner = memoryCoordinator()
  const down = { on: false }
  const m = 29_700_000 + S * 100 + outage * 10 + (replay ? 1 : 0)
  const clock = { now: m * MINUTE + 1_000 }
  const options = { totalActiveUsers: n, newUsersPerMinute: n, sessionDurationMinutes: S, failMode: 'closed' as const, coordinatorTimeoutMs: 300, syncIntervalMs: 50 }
  const roomId = `b14g-replay-${S}-${outage}-${replay}`
  const A = worker(failing(inner, down), clock, roomId, options)
  const B = worker(failing(inner, down), clock, roomId, options)
  const first = await A(undefined)
  const ticket = first.ticketId
  let cookie = first.fresh
  await B(undefined) // B learns the room (a second user, admitted: its count leaves the window long before the end)
  down.on = true
  let pendingCookie: string | undefined
  for (let k = 1; k <= S + outage; k++) {
    clock.now = (m + k) * MINUTE + 1_000
    const r = await A(cookie)
    if (!r.admitted || r.ticketId !== ticket) throw new Error(`setup: U logged out during the outage at +${k}`)
    if (r.fresh) { cookie = r.fresh; pendingCookie = r.fresh }
    await sleep(20)
  }
  down.on = false
  const back = m + S + outage + 1
  let replays = 0
  for (let k = 0; k < S; k++) {
    clock.now = (back + k) * MINUTE + 1_000
    if (replay && pendingCookie && k > 0) { const r = await A(pendingCookie); if (r.admitted && r.ticketId === ticket) replays++; await sleep(20) }
    const r = await B(cookie)
    if (!r.admitted || r.ticketId !== ticket) throw new Error(`U logged out after the outage at +${k}: ${r.reason}`)
    if (r.fresh) cookie = r.fresh
    await sleep(20)
  }
  await sleep(200)
  // Newcomers in the last replay minute at A: U holds one place (the second user's count has left the window).
  let newcomers = 0
  for (let i = 0; i < n; i++) if ((await A(undefined)).admitted) newcomers++
  return { S, outage, replay, n, replays, newcomers, expected: n - 1 }
}

describe('break14g: a ticket re-entering through the grant step holds one place however it replays its pending cookie', () => {
  for (const [S, outage] of [[2, 1], [3, 1], [3, 2], [4, 2]] as const) {
    it(`S ${S}, outage S + ${outage} minutes: newcomers fill every place but U's`, async () => {
      const out = await run(S, outage, true)
      console.log(JSON.stringify(out))
      expect(out.newcomers).toBe(out.expected)
    }, 30_000)
  }
  it('control (holds): no replay', async () => {
    const out = await run(3, 2, false)
    console.log(JSON.stringify(out))
    expect(out.newcomers).toBe(out.expected)
  }, 30_000)
})
