/**
 * break14h — re-entry sets the register (issue 14, session.ts `reenter`, moves.ts `reenteredRegister`): "a re-entered
 * ticket holds one place however its cookies are replayed" (README renewal row).
 * Setup as break14g reenter-replay: user U in a room, the store fails (for worker A only) for S + 1–2 minutes, U keeps
 * checking in at A and is handed pending cookies; A is SIGKILLed (its moves never land), so U's count has ended
 * and U re-enters through the grant step. In the comeback minute's reference minute 30 users arrived at L0 and L1,
 * so both locations' counters have a share. U's pending cookie P then reaches two workers at once in the comeback
 * minute — B at location L0 and C at location L1 (a phone switching networks, or one cookie replayed at two points
 * of presence), or both at L0 (control).
 * BROKE on memory and SQLite (Redis holds): each grant dedupes the ticket's token only within the counter it takes
 * (memory: counter.tokens; SQLite: counter_tokens keyed by scope), so B's re-entry takes L0's location counter and
 * C's takes the Anywhere counter — two fresh grants for one ticket; the second finds the register at the grant's
 * minute already (reenteredRegister: unchanged) but its grant still counts U active. Figures: 3 of 3 cases per
 * backend, 2 fresh grants, the comeback minute's active count 2 (control: 1 grant, active 1).
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { Coordinator } from '../../../src/index.ts'
import { closeBackends, coordinatorFor, type Backend } from '../break14d/backends.ts'
import { MINUTE, sleep } from '../break14d/slow.ts'
import { locatedWorker } from './located.ts'
import { activeField } from '../../../src/coordination/state.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

function failing(inner: Coordinator, down: { on: boolean }): Coordinator {
  const gate = <R>(f: () => Promise<R>): Promise<R> => (down.on ? Promise.reject(new Error('down')) : f())
  return { name: 'failing', fixesReferences: inner.fixesReferences, increment: (r) => gate(() => inner.increment(r)), takeSlot: (r) => gate(() => inner.takeSlot!(r)), sync: (r) => gate(() => inner.sync(r)) }
}

export interface Case { backend: Backend; S: number; outage: number; n: number; second: 'L0' | 'L1'; copies: number }

export async function run({ backend, S, outage, n, second, copies }: Case) {
  const inner = await coordinatorFor(backend)
  const down = { on: false }
  const m = 29_800_000 + Math.floor(Math.random() * 5000) * 20
  const clock = { now: m * MINUTE + 1_000 }
  const options = { totalActiveUsers: 40, newUsersPerMinute: n, sessionDurationMinutes: S, failMode: 'closed' as const, coordinatorTimeoutMs: 300, syncIntervalMs: 50 }
  const roomId = `b14h-reloc-${backend}-${crypto.randomUUID().slice(0, 6)}`
  const A = locatedWorker(failing(inner, down), clock, roomId, options)
  // The grant step's answers to U's re-entries: a fresh (not repeated) grant counts U active once more.
  const grants: string[] = []
  const spy: Coordinator = { ...inner, name: 'spy', increment: (r) => inner.increment(r), sync: (r) => inner.sync(r), takeSlot: async (r) => { const a = await inner.takeSlot!(r); if (r.reentry && a.admitted && !a.repeat) grants.push(`${r.location}:${a.via}`); return a } }
  const B = locatedWorker(spy, clock, roomId, options)
  const C = locatedWorker(spy, clock, roomId, options)
  const first = await B('L0')
  const ticket = first.ticketId
  let cookie = first.fresh
  await A('L0', cookie)
  down.on = true
  let pending: string | undefined
  for (let k = 1; k <= S + outage; k++) {
    clock.now = (m + k) * MINUTE + 1_000
    const r = await A('L0', cookie)
    if (!r.admitted || r.ticketId !== ticket) throw new Error(`setup: U logged out during the outage at +${k}`)
    if (r.fresh) { cookie = r.fresh; pending = r.fresh }
    // The comeback minute's reference minute: 30 arrivals at L0 and L1 (n admitted, the rest queued), so the
    // reference gives both locations' counters a share of the comeback minute's slots.
    if (k === S + outage - 1) await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? C('L1') : B('L0'))))
    await sleep(20)
  }
  if (!pending) throw new Error('setup: no pending cookie')
  const back = m + S + outage + 1
  clock.now = back * MINUTE + 1_000
  // The pending cookie at B (L0) and at C (second), `copies` times each, all at once.
  const rs = await Promise.all(Array.from({ length: copies }, () => [B('L0', pending), C(second, pending)]).flat())
  const kept = rs.filter((r) => r.admitted && r.ticketId === ticket).length
  await sleep(300) // B's and C's reports land
  const state = await inner.sync({ id: crypto.randomUUID(), roomId, location: 'L0', at: clock.now, keepMinutes: S + 6, deltas: {} })
  let activeBack = 0 // users the room counts in the comeback minute (U's grants and the arrivals of back − 2 are not there)
  for (const name in state.locations) activeBack += state.locations[name]!.counts[activeField(back)] ?? 0
  return { backend, S, outage, n, second, copies, kept, activeBack, reasons: rs.map((r) => r.reason).join(','), grants: grants.join(' '), counted: grants.length }
}

describe('break14h: one pending cookie re-entering at two locations at once holds one place', () => {
  for (const backend of ['memory', 'sqlite', 'redis'] as Backend[]) {
    it(`${backend}: control — at B and C, both at L0`, async () => {
      const out = await run({ backend, S: 2, outage: 1, n: 7, second: 'L0', copies: 2 })
      console.log(JSON.stringify(out))
      expect(out.counted, JSON.stringify(out)).toBe(1)
    }, 30_000)
    it(`${backend}: at B (L0) and C (L1) — U is granted (counted active) once`, async () => {
      const bad: string[] = []
      for (const [S, outage, n, copies] of [[2, 1, 7, 1], [3, 2, 8, 2], [2, 2, 6, 3]] as const) {
        const out = await run({ backend, S, outage, n, second: 'L1', copies })
        console.log(JSON.stringify(out))
        if (out.counted !== 1) bad.push(JSON.stringify(out))
      }
      expect(bad).toEqual([])
    }, 55_000)
  }
})
