/**
 * @module
 * Renewal moves in the conformance suite (`coordinatorConformance` runs it, in each adapter's own runtime): a move
 * is a compare-and-move against the ticket's register (src/coordination/moves.ts `moveStep`), applied atomically
 * with its report and answered in `RoomState.moved`. On every adapter: moves sent by many processes and locations
 * at once, in any order, retried and replayed from old cookies leave each ticket counted once, in the latest minute
 * it was moved to; a late report never moves it back; a count that left the window is never put back by a move
 * (a pending renewal or a late report included: its way back is the grant step); a session of a lost state is put in;
 * a re-entry's grant sets the ticket's register, so its next renewal moves that count and a replayed older cookie
 * takes nothing more. Web APIs only, like the suite.
 */
import { takeSlot, type Coordinator } from '../../src/coordination/coordinator.ts'
import { MOVE_ENDED, type Move } from '../../src/coordination/moves.ts'
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

/** The room's active counts (`a{m}`), summed over locations, zeros left out. */
function activeSums(view: RoomState): Record<string, number> {
  const sums: Record<string, number> = {}
  for (const name in view.locations) {
    for (const [field, n] of Object.entries(view.locations[name]!.counts)) if (field.startsWith('a')) sums[field] = (sums[field] ?? 0) + n
  }
  for (const field in sums) if (sums[field] === 0) delete sums[field]
  return sums
}

const report = (roomId: string, location: string, at: number, moves: Move[], deltas: Record<string, number> = {}): WorkerReport => ({ id: crypto.randomUUID(), roomId, location, at, keepMinutes: 10, deltas, moves })

export function movesConformance(t: TestApi, harness: MovesHarness): void {
  const { it, expect } = t
  it('counts each ticket once, in the latest minute it moved to: generated moves from many processes, any order, retried and replayed', async () => {
    for (const seed of [1, 2, 3]) {
      const random = seeded(seed)
      const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!
      const roomId = `moves-${seed}-${crypto.randomUUID().slice(0, 8)}`
      const coordinator = harness.coordinator()
      const processes = [coordinator, await harness.reopen(coordinator), await harness.reopen(coordinator)]
      const locations = ['SJC', 'LHR', 'DUB'].slice(0, 1 + Math.floor(random() * 3))
      const tickets = 3 + Math.floor(random() * 4)
      await coordinator.sync(report(roomId, locations[0]!, MS, [], { [`a${MINUTE}`]: tickets }))
      // 5-minute sessions: every source minute is still in the window, so each ticket ends in its latest target.
      // Rounds: a cookie renewed in a round is one the coordinator answered before it (or the first); some reports
      // are delayed to a later round (a late report), some sent twice (a retry: the same id), all in shuffled order.
      const latest = new Map<string, number>()
      const held = new Map<string, number[]>()
      let delayed: WorkerReport[] = []
      let at = MS + 1
      for (let round = 0; round < 4; round++) {
        const batch = round < 3 ? [...delayed] : delayed
        if (round < 3) delayed = []
        for (let i = 0; round < 3 && i < tickets; i++) {
          const ticket = `s${seed}-t${i}`
          if (random() < 0.3) continue
          // A position on the 3.75 s grid (coordination/positions.ts): moves a slice apart, within a minute and across.
          const to = MINUTE + (16 + Math.floor(random() * 64)) / 16
          const sources = (held.get(ticket) ?? [MINUTE]).filter((m) => m < to)
          if (sources.length === 0) continue
          const from = pick(sources) // an old cookie replayed, or the latest
          latest.set(ticket, Math.max(latest.get(ticket) ?? MINUTE, to))
          const copies = 1 + Math.floor(random() * 3) // the same cookie renewed by several processes at once
          for (let c = 0; c < copies; c++) (random() < 0.25 ? delayed : batch).push(report(roomId, pick(locations), at++, [{ ticket, from, to, since: to - 5 }]))
        }
        if (batch.length > 0) batch.push(pick(batch)) // a retry
        for (let i = batch.length - 1; i > 0; i--) { const j = Math.floor(random() * (i + 1)); [batch[i], batch[j]] = [batch[j]!, batch[i]!] }
        const answers = await Promise.all(batch.map((r) => pick(processes).sync(r)))
        answers.forEach((state, i) => {
          const move = batch[i]!.moves![0]!
          const answer = state.moved?.[move.ticket]
          expect(answer).toBeGreaterThanOrEqual(move.to) // a late one answers the newer minute
          held.set(move.ticket, [...(held.get(move.ticket) ?? [MINUTE]), answer!])
        })
      }
      const expected: Record<string, number> = { [`a${MINUTE}`]: tickets - latest.size }
      for (const to of latest.values()) expected[`a${to}`] = (expected[`a${to}`] ?? 0) + 1
      for (const field in expected) if (expected[field] === 0) delete expected[field]
      const view = await harness.propagate(coordinator, roomId, locations, at + 100)
      expect(activeSums(view)).toEqual(expected)
      // A replay of the oldest cookie afterwards changes nothing and answers where the ticket is.
      for (const [ticket, to] of latest) {
        const state = await pick(processes).sync(report(roomId, pick(locations), at++, [{ ticket, from: MINUTE, to: MINUTE + 1, since: MINUTE - 4 }]))
        expect(state.moved?.[ticket]).toBe(to)
      }
      expect(activeSums(await harness.propagate(coordinator, roomId, locations, at + 200))).toEqual(expected)
    }
  }, 120_000)

  it('a late report never moves a ticket back; an ended session is not put back, even when sent again; a lost session is, once', async () => {
    const roomId = `moves-late-${crypto.randomUUID().slice(0, 8)}`
    const coordinator = harness.coordinator()
    const other = await harness.reopen(coordinator)
    await coordinator.sync(report(roomId, 'SJC', MS, [], { [`a${MINUTE}`]: 3 }))
    // Ticket A: renewed to +2 (answered), then the report of its renewal to +1 lands late.
    expect((await coordinator.sync(report(roomId, 'SJC', MS + 1, [{ ticket: 'A', from: MINUTE, to: MINUTE + 2, since: MINUTE }]))).moved).toEqual({ A: MINUTE + 2 })
    expect((await other.sync(report(roomId, 'LHR', MS + 2, [{ ticket: 'A', from: MINUTE, to: MINUTE + 1, since: MINUTE - 1 }]))).moved).toEqual({ A: MINUTE + 2 })
    // Ticket B (1-minute sessions): its count left the window before this renewal — ended, on every retry (a pending
    // renewal's way back is the grant step, never a move: break14g outage-overshoot).
    const ended = report(roomId, 'SJC', MS + 3, [{ ticket: 'B', from: MINUTE, to: MINUTE + 3, since: MINUTE + 2 }])
    expect((await coordinator.sync(ended)).moved).toEqual({ B: MOVE_ENDED })
    expect((await other.sync(ended)).moved).toEqual({ B: MOVE_ENDED })
    // Ticket C, a session of a lost state (no `from`): put in once, however often it is sent.
    const lost = { ticket: 'C', to: MINUTE + 3, since: MINUTE - 2 }
    await Promise.all([coordinator.sync(report(roomId, 'SJC', MS + 6, [lost])), other.sync(report(roomId, 'LHR', MS + 7, [lost]))])
    // Ticket D, a store restored from an older copy: its register (+1) is older than the cookie's confirmed minute
    // (+2), and below the window — lost state, put in rather than ended (break14e restore-logout).
    expect((await coordinator.sync(report(roomId, 'SJC', MS + 8, [{ ticket: 'D', from: MINUTE, to: MINUTE + 1, since: MINUTE }]))).moved).toEqual({ D: MINUTE + 1 })
    expect((await other.sync(report(roomId, 'LHR', MS + 9, [{ ticket: 'D', from: MINUTE + 2, to: MINUTE + 4, since: MINUTE + 3 }]))).moved).toEqual({ D: MINUTE + 4 })
    const view = await harness.propagate(coordinator, roomId, ['SJC', 'LHR'], MS + 100)
    expect(activeSums(view)).toEqual({ [`a${MINUTE}`]: 1, [`a${MINUTE + 1}`]: 1, [`a${MINUTE + 2}`]: 1, [`a${MINUTE + 3}`]: 1, [`a${MINUTE + 4}`]: 1 })
  }, 60_000)
  it("a re-entry's grant sets the ticket's register: its next renewal moves that count, a replayed older cookie counts nothing more", async () => {
    const roomId = `moves-reentry-${crypto.randomUUID().slice(0, 8)}`
    const coordinator = harness.coordinator()
    const other = await harness.reopen(coordinator)
    const at = (k: number, ms: number): number => MS + k * 60_000 + ms
    // Ticket R (1-minute sessions), counted in MINUTE by its register; T, a newcomer, has none.
    await coordinator.sync(report(roomId, 'SJC', at(0, 1), [{ ticket: 'R', to: MINUTE, since: MINUTE - 1 }]))
    // Its pending renewal in +3: the count left the window — ended — so it re-enters through the grant step.
    const pending = (to: number): Move => ({ ticket: 'R', from: MINUTE, to, since: to - 1 })
    expect((await coordinator.sync(report(roomId, 'SJC', at(3, 1), [pending(MINUTE + 3)]))).moved).toEqual({ R: MOVE_ENDED })
    const grant = (token: string, reentry?: { ticket: string; since: number }) =>
      takeSlot(coordinator, { roomId, location: 'SJC', minute: MINUTE + 3, localLimit: 5, anywhereLimit: 0, token, ...(reentry ? { reentry } : {}) })
    expect((await grant('R', { ticket: 'R', since: MINUTE + 2 })).admitted).toBe(true)
    expect((await grant('T')).admitted).toBe(true)
    // The same pending cookie replayed in the grant's minute, at another process: the register answers, not "ended".
    expect((await other.sync(report(roomId, 'LHR', at(3, 2), [pending(MINUTE + 3)]))).moved).toEqual({ R: MINUTE + 3 })
    // The re-entered cookie's renewal moves the grant's count (before: read as lost state, put in a second time).
    expect((await coordinator.sync(report(roomId, 'SJC', at(4, 1), [{ ticket: 'R', from: MINUTE + 3, to: MINUTE + 4, since: MINUTE + 3 }]))).moved).toEqual({ R: MINUTE + 4 })
    expect((await other.sync(report(roomId, 'LHR', at(4, 2), [pending(MINUTE + 4)]))).moved).toEqual({ R: MINUTE + 4 })
    // Replayed in a later minute before R renews: it moves R's one count (before: "ended", and a second grant).
    expect((await other.sync(report(roomId, 'LHR', at(5, 1), [pending(MINUTE + 5)]))).moved).toEqual({ R: MINUTE + 5 })
    const view = await harness.propagate(coordinator, roomId, ['SJC', 'LHR'], at(5, 500))
    expect(activeSums(view)).toEqual({ [`a${MINUTE}`]: 1, [`a${MINUTE + 3}`]: 1, [`a${MINUTE + 5}`]: 1 })
  }, 60_000)
}
