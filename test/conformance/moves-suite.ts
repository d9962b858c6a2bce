/**
 * @module
 * Renewal moves in the conformance suite (`coordinatorConformance` runs it, in each adapter's own runtime): a
 * renewal's move travels as two room-wide `once` keys (src/coordination/moves.ts), so on every adapter a move
 * sent by many processes and locations at once, retried, or replayed from an old cookie in a later minute takes
 * the session out of its old minute once per (ticket, source minute), and puts it into a target minute once per
 * (ticket, target minute). Web APIs only, like the suite.
 */
import type { Coordinator } from '../../src/coordination/coordinator.ts'
import { moveEntries } from '../../src/coordination/moves.ts'
import type { RoomState, WorkerReport } from '../../src/coordination/state.ts'
import type { TestApi } from './coordinator-suite.ts'
import { seeded } from './seeded.ts'

const MINUTE = 29_405_530
const MS = MINUTE * 60_000

export interface MovesHarness {
  coordinator(): Coordinator
  reopen(previous: Coordinator): Coordinator | Promise<Coordinator>
  /** Syncs every location until the view has propagated (the suite's `propagate`). */
  propagate(coordinator: Coordinator, roomId: string, locations: string[], from: number): Promise<RoomState>
}

export function movesConformance(t: TestApi, harness: MovesHarness): void {
  const { it, expect } = t
  it('counts a renewal move once per ticket and source minute: generated moves from many processes, retried and replayed', async () => {
    for (const seed of [1, 2, 3]) {
      const random = seeded(seed)
      const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!
      const roomId = `moves-${seed}-${crypto.randomUUID().slice(0, 8)}`
      const coordinator = harness.coordinator()
      const processes = [coordinator, await harness.reopen(coordinator), await harness.reopen(coordinator)]
      const locations = ['SJC', 'LHR', 'DUB'].slice(0, 1 + Math.floor(random() * 3))
      const tickets = 3 + Math.floor(random() * 4)
      await coordinator.sync({ id: crypto.randomUUID(), roomId, location: locations[0]!, at: MS, keepMinutes: 10, deltas: { [`a${MINUTE}`]: tickets } })
      // The model, independent of how moves are keyed: a session leaves a minute once per (ticket, source
      // minute), and enters a target minute once per (ticket, target minute).
      const expected: Record<string, number> = { [`a${MINUTE}`]: tickets }
      const left = new Set<string>()
      const entered = new Set<string>()
      const reports: WorkerReport[] = []
      let at = MS + 1
      const send = (ticket: string, from: number, to: number, countedBefore = false) => {
        const once = moveEntries(ticket, from, to, countedBefore)
        if (!countedBefore && !left.has(`${ticket}/${from}`)) {
          left.add(`${ticket}/${from}`)
          expected[`a${from}`] = (expected[`a${from}`] ?? 0) - 1
        }
        if (!entered.has(`${ticket}/${to}`)) {
          entered.add(`${ticket}/${to}`)
          expected[`a${to}`] = (expected[`a${to}`] ?? 0) + 1
        }
        const copies = 1 + Math.floor(random() * 4) // the same old cookie renewed by several processes at once
        for (let c = 0; c < copies; c++) reports.push({ id: crypto.randomUUID(), roomId, location: pick(locations), at: at++, keepMinutes: 10, deltas: {}, once })
      }
      for (let i = 0; i < tickets; i++) {
        const ticket = `s${seed}-t${i}`
        send(ticket, MINUTE, MINUTE + 1)
        if (random() < 0.5) send(ticket, MINUTE, MINUTE + 2) // the old cookie replayed a minute later: counted there too, never out twice
        if (random() < 0.3) send(ticket, MINUTE - 1, MINUTE + 1) // an older cookie renewed in the same minute: in once
        if (random() < 0.5) send(ticket, MINUTE + 1, MINUTE + 2) // the renewed cookie renewed again
      }
      send(`s${seed}-lost`, MINUTE - 1, MINUTE + 1, true) // a session from a lost state: only put in
      for (let i = 0; i < 3; i++) reports.push(pick(reports)) // retries: the same report id again
      await Promise.all(reports.map((r) => pick(processes).sync(r)))
      const view = await harness.propagate(coordinator, roomId, locations, at + 100)
      const sums: Record<string, number> = {}
      for (const name in view.locations) {
        for (const [field, n] of Object.entries(view.locations[name]!.counts)) if (field.startsWith('a')) sums[field] = (sums[field] ?? 0) + n
      }
      for (const field in expected) if (expected[field] === 0) delete expected[field]
      for (const field in sums) if (sums[field] === 0) delete sums[field]
      expect(sums).toEqual(expected)
    }
  }, 120_000)
}
