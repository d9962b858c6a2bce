/**
 * sametick19: a queued ticket the plan gives no place is looked up at the counters (sametick18: a copy of an admitted
 * ticket is admitted as it) only where it may hold a slot — never on a refresh a worker can tell is a queued user's:
 * too early, in a minute nobody was admitted, or again at a worker that saw it this minute while its bucket is shown
 * waiting. A copy or retry at the worker that admitted it costs no call at all (grants.ts). Generated schedules over
 * 1–3 processes: one ticket T admitted first in minute 1 (the minute's only place: the room is then full), copies of
 * T and refreshes of the other queued tickets (sticky to a process or not, any gaps) over three minutes; each
 * request awaited alone, so the counter calls it cost are its own. (The others queue in a bucket after T's: a copy of T
 * admitted at another worker takes T's bucket count off again — decide.ts `recordAdmission`, per worker — so a
 * bucket shared with T shows fewer waiting than it holds, and its refreshes may look up.)
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import type { Coordinator } from '../../../src/index.ts'
import { connect, counting, minuteStart, MINUTE, process, redisProcess, type Client } from './fleet.ts'

const clients: Client[] = []
afterAll(async () => { for (const c of clients) await c.quit().catch(() => {}) })
const turn = () => new Promise((r) => setImmediate(r))

interface Step { gap: number; copy: boolean; who: number; proc: number }
interface Case { n: number; processes: number; others: number; sticky: boolean; grantAt: number; steps: Step[] }
const caseArbitrary = fc.record({
  n: fc.integer({ min: 1, max: 5 }),
  processes: fc.integer({ min: 1, max: 3 }),
  others: fc.integer({ min: 1, max: 5 }),
  sticky: fc.boolean(),
  grantAt: fc.nat(),
  steps: fc.array(fc.record({ gap: fc.oneof(fc.integer({ min: 0, max: 900 }), fc.integer({ min: 0, max: 25_000 })), copy: fc.boolean(), who: fc.nat(), proc: fc.nat() }), { minLength: 10, maxLength: 80 }),
})

async function run(backend: () => Promise<Coordinator>, k: Case): Promise<void> {
  const clock = { now: minuteStart() }
  const { coordinator, calls } = counting(await backend())
  const options = { totalActiveUsers: k.n + 1, newUsersPerMinute: k.n, sessionDurationMinutes: 30, failMode: 'closed' as const, coordinatorTimeoutMs: 5000, syncIntervalMs: 0 }
  const procs = Array.from({ length: k.processes }, () => process(coordinator, clock, 'st19', options))
  const spent = () => calls.takeSlot + calls.takeSlots.reduce((a, b) => a + b, 0)
  // Minute 0: n newcomers admitted, T queued. Minute 1: the one place is kept for T, so the others (newcomers then)
  // are queued in a bucket of their own; then T takes the place, and the room is full from then on.
  for (let i = 0; i < k.n; i++) expect((await procs[0]!()).admitted).toBe(true)
  const t = (await procs[0]!()).fresh!
  const first = Math.floor(clock.now / MINUTE) + 1
  clock.now += MINUTE
  await turn()
  const queued = []
  for (let i = 0; i < k.others; i++) queued.push(await procs[0]!())
  expect(queued.every((a) => !a.admitted)).toBe(true)
  const cookies = [t, ...queued.map((a) => a.fresh!)]
  await turn()
  const granted = await procs[k.grantAt % k.processes]!(t)
  expect(granted.reason).toBe('slot')
  const registered = new Set([k.grantAt % k.processes])
  const seen = new Set(Array.from({ length: k.others }, (_, i) => `${i + 1}/0/${first}`))
  const log: string[] = []
  for (const step of k.steps) {
    clock.now += step.gap
    const minute = Math.floor(clock.now / MINUTE)
    if (minute > first + 2) break
    await turn()
    const before = spent()
    if (step.copy && minute === first) {
      const p = step.proc % k.processes
      const a = await procs[p]!(t)
      log.push(`T@${p} ${a.reason} +${spent() - before}`)
      expect(a.admitted && a.ticketId === granted.ticketId, log.join(', ')).toBe(true)
      expect(spent() - before, log.join(', ')).toBeLessThanOrEqual(registered.has(p) ? 0 : 1)
      registered.add(p)
    } else {
      const who = 1 + (step.who % k.others)
      const p = k.sticky ? who % k.processes : step.proc % k.processes
      const a = await procs[p]!(cookies[who])
      const cost = spent() - before
      log.push(`${who}@${p} m${minute - first} ${a.reason.slice(0, 9)} +${cost}`)
      expect(a.admitted, log.join(', ')).toBe(false)
      if (a.fresh) cookies[who] = a.fresh
      // A refresh costs a call only as a ticket's first check-in of the minute at a worker, in a minute with a grant.
      const key = `${who}/${p}/${minute}`
      expect(cost, log.join(', ')).toBeLessThanOrEqual(a.reason !== 'too-early' && minute === first && !seen.has(key) ? 1 : 0)
      if (a.reason !== 'too-early') seen.add(key)
    }
  }
}

const memory = () => { const shared = memoryCoordinator(); return async () => shared }
const redis = () => {
  const prefix = `wrtest-st19-${crypto.randomUUID().slice(0, 8)}`
  return async () => { const c = await connect(); clients.push(c); return redisProcess(c, prefix) }
}

describe('sametick19: copies of an admitted ticket and a flood of queued refreshes', () => {
  it('generated schedules, memory coordinator', async () => {
    await fc.assert(fc.asyncProperty(caseArbitrary, async (k) => run(memory(), k)), { numRuns: 150, seed: 19, endOnFailure: true })
  }, 120_000)
  it('generated schedules, Redis', async () => {
    await fc.assert(fc.asyncProperty(caseArbitrary, async (k) => run(redis(), k)), { numRuns: 30, seed: 19, endOnFailure: true })
  }, 120_000)
})
