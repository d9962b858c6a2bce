/**
 * sametick18: every copy and retry of an admitted ticket is admitted as that ticket and counted once, whichever
 * process it reaches and whenever in the minute — also after the minute's slots are gone, where the plan gives a
 * queued ticket no place (`not-eligible`) and, before the fix, the request never reached the ticket's own first
 * answer at the counters. The interleaving is forced (the grant and the minute filled first, awaited), so the
 * cases fail the same way on every run. The minute's distinct admissions are then exactly n.
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import type { Coordinator } from '../../../src/index.ts'
import { connect, minuteStart, MINUTE, process, redisProcess, type Client } from './fleet.ts'

type Answer = Awaited<ReturnType<ReturnType<typeof process>>>
const clients: Client[] = []
afterAll(async () => { for (const c of clients) await c.quit().catch(() => {}) })

interface Case { copies: number; processes: number; n: number; before: number; retries: number; together: boolean }
const caseArbitrary = fc.record({
  copies: fc.integer({ min: 1, max: 65 }),
  processes: fc.integer({ min: 1, max: 3 }),
  n: fc.integer({ min: 1, max: 8 }),
  before: fc.integer({ min: 0, max: 65 }), // copies sent with the first grant, the rest once the minute is full
  retries: fc.integer({ min: 0, max: 3 }),
  together: fc.boolean(), // the newcomers that fill the minute at once (one batch) or one by one
})

async function run(backends: () => Promise<Coordinator[]>, k: Case): Promise<void> {
  const clock = { now: minuteStart() }
  const options = { totalActiveUsers: 1000, newUsersPerMinute: k.n, sessionDurationMinutes: 30, failMode: 'closed' as const, coordinatorTimeoutMs: 5000, syncIntervalMs: 0 }
  const procs = (await backends()).map((coordinator) => process(coordinator, clock, 'st18', options))
  const at = (i: number) => procs[i % procs.length]!
  // Minute 0: n + 1 newcomers, the last one queued: its cookie is the ticket.
  const first: Answer[] = []
  for (let i = 0; i <= k.n; i++) first.push(await procs[0]!())
  const ticket = first[k.n]!
  expect(ticket.admitted).toBe(false)
  clock.now += MINUTE
  // Minute 1: some copies with the ticket's first grant, then newcomers fill the minute, then the other copies
  // (a plan that shows the minute full), then retries with the old queue cookie — spread over the processes.
  const before = Math.max(1, Math.min(k.before, k.copies))
  const copies = await Promise.all(Array.from({ length: before }, (_, i) => at(i)(ticket.fresh)))
  const minute: Answer[] = [...copies]
  const newcomers = k.together ? await Promise.all(Array.from({ length: k.n }, (_, i) => at(i)())) : []
  if (!k.together) for (let i = 0; i < k.n; i++) newcomers.push(await at(i)())
  minute.push(...newcomers)
  copies.push(...(await Promise.all(Array.from({ length: k.copies - before }, (_, i) => at(i + 1)(ticket.fresh)))))
  for (let i = 0; i < k.retries; i++) copies.push(await at(i + 1)(ticket.fresh))
  const seen = JSON.stringify({ k, copies: copies.map((a) => a.reason), newcomers: newcomers.map((a) => a.reason) })
  expect(copies.every((a) => a.admitted && a.ticketId === copies[0]!.ticketId), seen).toBe(true)
  // Demand ≥ n: the newcomers queued in this minute check in again when due, then more newcomers arrive.
  clock.now += 26_000
  for (const a of newcomers) if (!a.admitted && a.fresh) minute.push(await procs[0]!(a.fresh))
  for (let i = 0; i <= k.n; i++) minute.push(await procs[0]!())
  const admitted = new Set(minute.filter((a) => a.reason === 'slot').map((a) => a.ticketId))
  expect(admitted.size, seen).toBe(k.n)
}

const memory = async () => { const shared = memoryCoordinator(); return (n: number) => Array.from({ length: n }, () => shared) }
const redis = async () => (n: number) => {
  const prefix = `wrtest-st18-${crypto.randomUUID().slice(0, 8)}`
  return Promise.all(Array.from({ length: n }, async () => { const c = await connect(); clients.push(c); return redisProcess(c, prefix) }))
}

describe('sametick18: copies and retries of an admitted ticket, in any order over the processes', () => {
  it('the forced interleaving: the minute filled, then a copy at another process and a retry', async () => {
    for (const make of [memory, redis]) {
      const backends = await make()
      await run(async () => backends(2), { copies: 3, processes: 2, n: 3, before: 1, retries: 1, together: false })
    }
  }, 60_000)
  it('generated cases, memory coordinator', async () => {
    await fc.assert(fc.asyncProperty(caseArbitrary, async (k) => { const b = await memory(); await run(async () => b(k.processes), k) }), { numRuns: 120, seed: 18 })
  }, 120_000)
  it('generated cases, Redis', async () => {
    await fc.assert(fc.asyncProperty(caseArbitrary, async (k) => { const b = await redis(); await run(() => Promise.resolve(b(k.processes)), k) }), { numRuns: 40, seed: 18 })
  }, 120_000)
})
