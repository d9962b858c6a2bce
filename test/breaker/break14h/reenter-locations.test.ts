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
 * backend, 2 fresh grants, the comeback minute's active count 2 (control: 1 grant, active 1). Redis's take-slot script
 * keys a token's answer by room and minute, not by counter (scripts.ts takeSlotScript KEYS[2]), so there the second
 * re-entry is answered as a repeat. (The same per-counter dedupe would let a queued ticket's cookie, sent at two
 * locations at once, take two slots on memory/SQLite: not tested here.)
 */
import { afterAll, describe, expect, it } from 'vitest'
import { closeBackends, type Backend } from '../break14d/backends.ts'
import { MINUTE, sleep } from '../break14d/slow.ts'
import { reentryRoom } from './reentry.ts'

afterAll(async () => { await sleep(300); await closeBackends() })

interface Case { backend: Backend; S: number; outage: number; n: number; second: 'L0' | 'L1'; copies: number }

async function run({ backend, S, outage, n, second, copies }: Case) {
  const room = await reentryRoom({ backend, S, outage, n, pre: 0 })
  const { B, C, clock, ticket, pending, back, grants } = room
  clock.now = back * MINUTE + 1_000
  // The pending cookie at B (L0) and at C (second), `copies` times each, all at once.
  const rs = await Promise.all(Array.from({ length: copies }, () => [B('L0', pending), C(second, pending)]).flat())
  const kept = rs.filter((r) => r.admitted && r.ticketId === ticket).length
  const activeBack = await room.activeIn(back) // U's grants only: the arrivals of back − 2 are counted there
  return { backend, S, outage, n, second, copies, kept, activeBack, grants: grants.join(' '), counted: grants.length }
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
