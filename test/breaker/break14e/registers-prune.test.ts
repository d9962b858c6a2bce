/**
 * break14e — (d) the memory adapter's move registers stop expiring after one long-session register: memory then grows
 * with every ticket renewed for up to 32 minutes instead of the session window.
 * Promise (README Known limits, "Renewal registers: one per renewed ticket, kept until two minutes after its count has
 * left the session window … memory: a map entry. A room of 100,000 users holds at most about 100,000 registers";
 * task (d): registers expire). The memory adapter prunes its registers in insertion order and stops at the first one
 * it keeps ("insertion order is (nearly) expiry order"). But the expiry depends on the session length the move was made
 * with (`to + (to − since) + 2`), and the session length changes at run time (admin API `session_duration`, or a
 * scheduled event's `sessionDurationMinutes`, 1–30).
 * Attack (the coordinator's public sync API, reports as workers send them): one renewal made during a 30-minute-session
 * event; afterwards, 1-minute sessions, 10,000 new tickets renewed each minute (a busy room with short visits) for
 * 30 minutes. Measured: the heap after a full GC. Control: the same without the one long-session renewal. Expected:
 * the same (registers of 1-minute sessions expire 3 minutes after their move). Observed: 41.5 MB against 5.2 MB — every
 * register of the 30 minutes kept, ~300,000 instead of ~40,000.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import { MINUTE } from './support.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed }

async function heapAfter(longFirst: boolean, perMinute: number, minutes: number) {
  const coordinator = memoryCoordinator()
  const roomId = `b14e-prune-${longFirst}`
  const m0 = 29_500_000
  let id = 0
  const report = (minute: number, moves: { ticket: string; from?: number; to: number; since: number }[]) =>
    coordinator.sync({ id: `r${id++}`, roomId, location: 'local', at: minute * MINUTE + 1_000, keepMinutes: 36, deltas: {}, moves })
  if (longFirst) await report(m0, [{ ticket: 'event-user', from: m0 - 1, to: m0, since: m0 - 30 }])
  const before = heap()
  for (let k = 1; k <= minutes; k++) {
    const minute = m0 + k
    const moves = Array.from({ length: perMinute }, (_, i) => ({ ticket: `t${minute}-${i}-${'x'.repeat(10)}`, from: minute - 1, to: minute, since: minute - 1 }))
    await report(minute, moves)
  }
  await report(m0 + minutes + 1, [])
  return heap() - before
}

describe('break14e: memory registers expire whatever session length made them', () => {
  it('one 30-minute-session register, then 10,000 1-minute renewals a minute for 30 minutes: heap as without it', async () => {
    const control = await heapAfter(false, 10_000, 30)
    const blocked = await heapAfter(true, 10_000, 30)
    console.log(JSON.stringify({ controlMb: Math.round(control / 1e5) / 10, blockedMb: Math.round(blocked / 1e5) / 10 }))
    expect(blocked - control, 'extra heap (bytes) held for one long-session register').toBeLessThan(5_000_000)
  }, 60_000)
})
