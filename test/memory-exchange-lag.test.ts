/**
 * The memory coordinator's `exchangeIntervalMs` is a bounded lag, as a Durable Object's alarm makes it: what a
 * location's counters grant and its workers report reaches every other location within two intervals (one to
 * be stored, one for the reader's view to be refreshed) and one round of syncs, even when no worker of that
 * location reports again. Without that bound, the small locations of a 300-location room (issue 15's
 * `planet`) kept their grants and renewals out of the others' views indefinitely, so every other location
 * counted those users as gone and handed their places out again.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../src/clock.ts'
import { memoryCoordinator } from '../src/coordination/memory.ts'
import { activeField } from '../src/coordination/state.ts'

const ROOM = 'lag-bound'
const MINUTE = 29_000_000
const START = MINUTE * MINUTE_MS

describe('memory coordinator: exchange lag is bounded', () => {
  it('a grant or a report at a location that never reports again reaches every location within 2 intervals + 1 sync round', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 500, max: 10_000 }),
        fc.integer({ min: 250, max: 3000 }),
        fc.array(fc.record({ at: fc.integer({ min: 0, max: 20_000 }), location: fc.nat(), report: fc.boolean() }), { minLength: 1, maxLength: 12 }),
        async (locations, intervalMs, syncEveryMs, events) => {
          const coordinator = memoryCoordinator({ exchangeIntervalMs: intervalMs })
          const names = Array.from({ length: locations }, (_, i) => `L${i}`)
          const changes = events
            .map((e) => ({ ...e, location: names[e.location % locations]! }))
            .sort((x, y) => x.at - y.at)
          // Each change is one active user at its location: a counter's grant, or a renewal a worker reports.
          const expected = new Map<string, { at: number }[]>()
          let reportId = 0
          const sync = (location: string, at: number, deltas: Record<string, number> = {}) =>
            coordinator.sync({ id: `r${reportId++}`, roomId: ROOM, location, at: START + at, keepMinutes: 10, deltas })
          // Every location's workers start with a sync (a cold start); after a change, the changed ones fall silent.
          for (const name of names) await sync(name, 0)
          let next = 0
          const end = 20_000 + 2 * intervalMs + 2 * syncEveryMs
          for (let t = 0; t <= end; t += syncEveryMs) {
            // Changes due by now, then a round of syncs.
            for (; next < changes.length && changes[next]!.at <= t; next++) {
              const change = changes[next]!
              if (change.report) await sync(change.location, t, { [activeField(MINUTE)]: 1 })
              else await coordinator.takeSlot({ roomId: ROOM, location: change.location, minute: MINUTE, localLimit: 1000, anywhereLimit: 0, token: `g${next}` })
              const list = expected.get(change.location) ?? []
              list.push({ at: t })
              expected.set(change.location, list)
            }
            // Changed locations stay silent: only the bound can carry their changes out. `reader` never changes.
            for (const reader of ['reader', ...names]) {
              if (expected.has(reader)) continue
              const state = await sync(reader, t)
              for (const [location, list] of expected) {
                const due = list.filter((c) => t >= c.at + 2 * intervalMs + syncEveryMs).length
                const counts = state.locations[location]?.counts ?? {}
                const seen = counts[activeField(MINUTE)] ?? 0
                expect(seen, `${reader} at ${t} ms sees ${location}'s changes (interval ${intervalMs} ms)`).toBeGreaterThanOrEqual(due)
              }
            }
          }
        },
      ),
      { numRuns: 40, seed: 15 },
    )
  }, 60_000)
})
