/**
 * A worker proposes an empty table for a minute whose reference an in-process backend already fixed
 * (Coordinator.holdsReference): it is answered the fixed one either way, so walking every location's traffic for
 * it was wasted (issue 15: a tenth of planet's CPU). Generated over locations, syncs and traffic: every worker
 * holds the same references as when each proposal carries its full table, and only the first proposal of a
 * minute is ever made in full.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../src/clock.ts'
import { memoryCoordinator } from '../src/coordination/memory.ts'
import { trafficField, type WorkerReport } from '../src/coordination/state.ts'
import { WorkerLink } from '../src/coordination/worker-link.ts'
import { TRAFFIC_REFERENCE_AGE } from '../src/admission/snapshot.ts'
import type { Coordinator } from '../src/index.ts'

const M = 29_400_000
const START = M * MINUTE_MS
const LOCATIONS = ['L0', 'L1', 'L2', 'L3']

interface Step {
  worker: number
  at: number
  seen: number
}

/** Runs `steps` against one memory coordinator; `peek` false hides holdsReference (every proposal in full). */
async function run(steps: Step[], peek: boolean) {
  const inner = memoryCoordinator({ exchangeIntervalMs: 2_000 })
  const proposals: { fixedBefore: boolean; table: Record<string, number> }[] = []
  /** The references each sync answered (minute and table: ids are random per report). */
  const held: [number, Record<string, number>][][] = []
  const coordinator: Coordinator = Object.assign(Object.create(inner) as Coordinator, {
    holdsReference: peek ? inner.holdsReference : undefined,
    sync: async (report: WorkerReport) => {
      for (const r of report.references ?? []) proposals.push({ fixedBefore: inner.holdsReference!('room', r.minute), table: r.table })
      const state = await inner.sync(report)
      held.push((state.references ?? []).map((r) => [r.minute, r.table]))
      return state
    },
  })
  const clock = { now: START }
  const links = LOCATIONS.map(() => new WorkerLink({ roomId: 'room', sessionDurationMinutes: 2, syncIntervalMs: 0, maxSnapshotAgeMs: 5_000, timeoutMs: 1_000, clock: () => clock.now }))
  for (const { worker, at, seen } of [...steps].sort((x, y) => x.at - y.at)) {
    clock.now = START + at
    const location = LOCATIONS[worker]!
    if (seen > 0) links[worker]!.record(location, trafficField(M + Math.floor(at / MINUTE_MS) - TRAFFIC_REFERENCE_AGE), seen)
    await links[worker]!.sync(coordinator, location, clock.now)
  }
  return { proposals, held }
}

describe('proposals for a minute the backend fixed already', () => {
  it('are empty, and every worker holds the references it holds when every proposal is made in full', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ worker: fc.integer({ min: 0, max: LOCATIONS.length - 1 }), at: fc.integer({ min: 0, max: 2 * MINUTE_MS }), seen: fc.integer({ min: 0, max: 5 }) }), { minLength: 2, maxLength: 30 }),
        async (steps) => {
          const peeked = await run(steps, true)
          const full = await run(steps, false)
          expect(peeked.held).toEqual(full.held)
          for (const proposal of peeked.proposals) if (proposal.fixedBefore) expect(proposal.table).toEqual({})
          // Proposals after the first of their minute (the ones the backend discards) were made in full before.
          expect(full.proposals.filter((p) => p.fixedBefore).length).toBe(peeked.proposals.filter((p) => p.fixedBefore).length)
        },
      ),
      { numRuns: 60 },
    )
  })
})
