/**
 * split14, the worker's side (coordination/held-references.ts, worker-link.ts, decide.ts): with a coordinator that fixes
 * each minute's reference (fixesReferences), a worker splits a minute's slots only from the reference the backend
 * answered — whatever its own view of the traffic minute — grants nothing before it holds one, and from a minute's
 * second half holds the next minute's already (no wait at the boundary). Generated over seeds, views and timings.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../src/clock.ts'
import { memoryCoordinator } from '../src/coordination/memory.ts'
import { trafficField, type RoomState, type WorkerReport } from '../src/coordination/state.ts'
import { WorkerLink } from '../src/coordination/worker-link.ts'
import { PREFETCH_FROM_MS } from '../src/coordination/held-references.ts'
import { TRAFFIC_REFERENCE_AGE } from '../src/admission/snapshot.ts'
import { planMinute } from '../src/admission/plan.ts'
import type { Coordinator } from '../src/index.ts'
import { worker } from './breaker/break14d/slow.ts'

const M = 29_400_000
const START = M * MINUTE_MS

const linkOf = (clock: { now: number }, roomId: string) =>
  new WorkerLink({ roomId, sessionDurationMinutes: 2, syncIntervalMs: 0, maxSnapshotAgeMs: 5_000, timeoutMs: 1_000, clock: () => clock.now })

/** A coordinator that answers no reference while `withhold.on` (an authority not reached yet), and counts grant calls. */
function withholding(inner: Coordinator, withhold: { on: boolean }, calls: { grants: number; syncs: number }): Coordinator {
  return Object.assign(Object.create(inner) as Coordinator, {
    increment: (r: Parameters<Coordinator['increment']>[0]) => (calls.grants++, inner.increment(r)),
    takeSlot: undefined,
    sync: async (report: WorkerReport): Promise<RoomState> => {
      calls.syncs++
      const state = await inner.sync(withhold.on ? { ...report, references: undefined } : report)
      if (withhold.on) delete state.references
      return state
    },
  })
}

describe('split14: workers split a minute only from the reference the backend fixed', () => {
  it('a worker holding no reference for the minute grants no new slot (and asks no counter) until one is answered', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 4, max: 9 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1_000, max: 50_000 }), async (n, asks, offset) => {
        const withhold = { on: true }
        const calls = { grants: 0, syncs: 0 }
        const clock = { now: START + offset }
        const ask = worker(withholding(memoryCoordinator(), withhold, calls), clock, `ref-wait-${n}-${asks}-${offset}`, {
          totalActiveUsers: n, newUsersPerMinute: n, failMode: 'closed', coordinatorTimeoutMs: 500, syncIntervalMs: 0,
        })
        for (let i = 0; i < asks; i++) expect((await ask(undefined)).admitted).toBe(false) // queued (the room's page)
        expect(calls.grants).toBe(0)
        withhold.on = false
        const reasons = []
        for (let i = 0; i < n; i++) reasons.push((await ask(undefined)).reason)
        // Answered now: the minute's slots are granted — all but those FIFO keeps for the users queued meanwhile.
        expect(reasons.filter((r) => r === 'slot').length).toBe(n - asks)
      }),
      { numRuns: 25 },
    )
  })

  it('workers with different views of the traffic minute all split from the first proposal the backend fixed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.dictionary(fc.constantFrom('L0', 'L1', 'L2'), fc.integer({ min: 0, max: 9 })), { minLength: 2, maxLength: 4 }),
        fc.integer({ min: 1_000, max: 29_000 }),
        fc.integer({ min: 1, max: 40 }),
        async (views, offset, slots) => {
          const coordinator = memoryCoordinator()
          const clock = { now: START + offset }
          const roomId = `ref-first-${JSON.stringify(views)}-${offset}`
          const links = views.map(() => linkOf(clock, roomId))
          // Every worker learns the (empty) state first, then holds its own unreported traffic of the reference minute.
          for (const link of links) await link.sync(coordinator, 'L0', clock.now)
          const held: Record<string, number>[] = []
          for (const [i, link] of links.entries()) {
            for (const [location, seen] of Object.entries(views[i]!)) link.record(location, trafficField(M - TRAFFIC_REFERENCE_AGE), seen)
            const expected = Object.fromEntries(Object.entries(views[i]!).filter(([, seen]) => seen > 0))
            held.push(expected)
          }
          // Each proposes in turn (its view: the state plus its own deltas, which its report carries too).
          for (const link of links) await link.sync(coordinator, 'L0', clock.now)
          const first = links[0]!.snapshot(clock.now)!.traffic
          expect(first).toEqual(held[0])
          const limits = { totalActiveUsers: slots, newUsersPerMinute: slots }
          for (const link of links) {
            const snapshot = link.snapshot(clock.now)!
            expect(snapshot.traffic).toBe(first) // the one table, shared: every view splits the slots alike
            expect(planMinute(snapshot, limits).allocation.locations).toEqual(planMinute(links[0]!.snapshot(clock.now)!, limits).allocation.locations)
          }
        },
      ),
      { numRuns: 40 },
    )
  })

  it("from a minute's second half a worker holds the next minute's reference, so the boundary costs no wait", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: MINUTE_MS - 1 }), fc.integer({ min: 0, max: 5 }), async (offset, seen) => {
        const coordinator = memoryCoordinator()
        const clock = { now: START + offset }
        const link = linkOf(clock, `ref-next-${offset}-${seen}`)
        await link.sync(coordinator, 'L0', clock.now) // learns the state
        if (seen > 0) link.record('L0', trafficField(M - 1), seen)
        await link.sync(coordinator, 'L0', clock.now) // proposes
        expect(link.lacksReference(coordinator, M)).toBe(false)
        expect(link.lacksReference(coordinator, M + 1)).toBe(offset < PREFETCH_FROM_MS)
        if (offset < PREFETCH_FROM_MS) return
        // The next minute's table is the traffic of its own reference minute (M − 1), as this worker saw it.
        clock.now = START + MINUTE_MS + 1
        expect(link.snapshot(clock.now)!.traffic).toEqual(seen > 0 ? { L0: seen } : ({} as Record<string, number>))
      }),
      { numRuns: 60 },
    )
  })

  it('with lagged stages, every location is answered the first proposal at once, whatever the exchange lag', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 500, max: 10_000 }),
        fc.array(fc.record({ location: fc.constantFrom('L0', 'L1', 'L2'), at: fc.integer({ min: 0, max: 20_000 }), seen: fc.integer({ min: 0, max: 9 }), next: fc.boolean() }), { minLength: 1, maxLength: 12 }),
        async (intervalMs, proposals) => {
          const coordinator = memoryCoordinator({ exchangeIntervalMs: intervalMs })
          const roomId = `ref-lag-${intervalMs}-${JSON.stringify(proposals)}`
          const first = new Map<number, string>()
          for (const [i, { location, at, seen, next }] of [...proposals].sort((x, y) => x.at - y.at).entries()) {
            const minute = next ? M + 1 : M
            const table: Record<string, number> = seen > 0 ? { [location]: seen } : {}
            const id = `r${i}:${minute}`
            const state = await coordinator.sync({ id: `r${i}`, roomId, location, at: START + at, keepMinutes: 10, deltas: {}, references: [{ minute, table, id }] })
            if (!first.has(minute)) first.set(minute, id)
            expect(state.references?.map((r) => r.id)).toEqual([first.get(minute)])
          }
        },
      ),
      { numRuns: 40 },
    )
  })

  it('a coordinator without fixesReferences keeps the old split: the worker splits from its own view and never waits', async () => {
    const inner = memoryCoordinator()
    const coordinator = Object.assign(Object.create(inner) as Coordinator, { fixesReferences: false })
    const clock = { now: START + 1_000 }
    const ask = worker(coordinator, clock, 'ref-custom', { totalActiveUsers: 3, newUsersPerMinute: 3, failMode: 'closed', coordinatorTimeoutMs: 500, syncIntervalMs: 0 })
    const reasons = [await ask(undefined), await ask(undefined), await ask(undefined)].map((a) => a.reason)
    expect(reasons).toEqual(['slot', 'slot', 'slot'])
  })
})
