/**
 * @module
 * History cases of the conformance suite (`coordinatorConformance` runs them with its coordinator, in each
 * adapter's own runtime): counters add up across batches, locations and concurrent writers, gauges keep the
 * highest value, a batch id is applied once, moves (negative deltas) cancel, and retention prunes old minutes.
 * Web APIs only, like the suite.
 */
import type { Coordinator } from '../../src/coordination/coordinator.ts'
import type { HistoryBatch, HistoryRow } from '../../src/history/model.ts'
import type { TestApi } from './coordinator-suite.ts'

const MINUTE = 29_405_520
const MS = MINUTE * 60_000

const roomOf = (label: string): string => `h-${label}-${crypto.randomUUID().slice(0, 8)}`

function batch(roomId: string, at: number, rows: HistoryRow[], retentionMinutes = 10_080, id: string = crypto.randomUUID()): HistoryBatch {
  return { id, roomId, at, retentionMinutes, rows }
}

/** Rows merged per minute and location, zero counters dropped: what a backend holds, whatever its row split. */
async function held(coordinator: Coordinator, roomId: string, fromMinute: number, toMinute: number): Promise<Record<string, Record<string, number>>> {
  const rows = await coordinator.readHistory!({ roomId, fromMinute, toMinute })
  const out: Record<string, Record<string, number>> = {}
  for (const row of rows) {
    const key = `${row.minute - MINUTE}/${row.location}`
    const fields = (out[key] ??= {})
    for (const [field, value] of Object.entries(row.fields)) {
      fields[field] = field.startsWith('max:') ? Math.max(fields[field] ?? -Infinity, value) : (fields[field] ?? 0) + value
      if (fields[field] === 0 && !field.startsWith('max:')) delete fields[field]
    }
    if (Object.keys(fields).length === 0) delete out[key]
  }
  return out
}

export function historyConformance(t: TestApi, coordinatorOf: () => Coordinator): void {
  const { it, expect } = t

  it('history: keeps a per-minute, per-location record (recordHistory and readHistory both present)', () => {
    const coordinator = coordinatorOf()
    expect(typeof coordinator.recordHistory).toBe('function')
    expect(typeof coordinator.readHistory).toBe('function')
  })

  it('history: adds counters, max-merges gauges, reads [from, to) only', async () => {
    const coordinator = coordinatorOf()
    const roomId = roomOf('merge')
    await coordinator.recordHistory!(batch(roomId, MS, [
      { minute: MINUTE, location: 'SJC', fields: { adm: 3, wq2: 1, 'max:active': 10, 'x.challenge.passed': 2 } },
      { minute: MINUTE, location: 'AMS', fields: { adm: 1, 'max:active': 12 } },
      { minute: MINUTE + 1, location: 'SJC', fields: { adm: 5 } },
    ]))
    await coordinator.recordHistory!(batch(roomId, MS + 2000, [
      { minute: MINUTE, location: 'SJC', fields: { adm: 2, wq2: 1, 'max:active': 7, 'x.challenge.passed': 1 } },
      { minute: MINUTE - 1, location: 'SJC', fields: { adm: 9 } },
    ]))
    expect(await held(coordinator, roomId, MINUTE, MINUTE + 1)).toEqual({
      '0/SJC': { adm: 5, wq2: 2, 'max:active': 10, 'x.challenge.passed': 3 },
      '0/AMS': { adm: 1, 'max:active': 12 },
    })
    expect(await held(coordinator, roomId, MINUTE - 1, MINUTE + 2)).toEqual({
      '-1/SJC': { adm: 9 },
      '0/SJC': { adm: 5, wq2: 2, 'max:active': 10, 'x.challenge.passed': 3 },
      '0/AMS': { adm: 1, 'max:active': 12 },
      '1/SJC': { adm: 5 },
    })
    expect(await held(coordinator, roomOf('other'), MINUTE - 1, MINUTE + 2)).toEqual({})
  })

  it('history: applies a batch id once (a resend after a lost reply adds nothing)', async () => {
    const coordinator = coordinatorOf()
    const roomId = roomOf('once')
    const sent = batch(roomId, MS, [{ minute: MINUTE, location: 'SJC', fields: { adm: 4, arr: 6 } }])
    await coordinator.recordHistory!(sent)
    await coordinator.recordHistory!(sent)
    await Promise.all([coordinator.recordHistory!(sent), coordinator.recordHistory!(sent)])
    expect(await held(coordinator, roomId, MINUTE, MINUTE + 1)).toEqual({ '0/SJC': { adm: 4, arr: 6 } })
  })

  it('history: concurrent writers sum exactly, and the highest gauge wins', async () => {
    const coordinator = coordinatorOf()
    const roomId = roomOf('concurrent')
    const writes = Array.from({ length: 40 }, (_, i) =>
      coordinator.recordHistory!(batch(roomId, MS + i, [{ minute: MINUTE, location: i % 2 ? 'SJC' : 'AMS', fields: { adm: 1, arr: 2, 'max:waiting': i } }])),
    )
    await Promise.all(writes)
    const rows = await held(coordinator, roomId, MINUTE, MINUTE + 1)
    expect(rows).toEqual({ '0/SJC': { adm: 20, arr: 40, 'max:waiting': 39 }, '0/AMS': { adm: 20, arr: 40, 'max:waiting': 38 } })
  }, 60_000)

  it('history: a session moved between bins and minutes (negative deltas) is counted once', async () => {
    const coordinator = coordinatorOf()
    const roomId = roomOf('move')
    await coordinator.recordHistory!(batch(roomId, MS, [{ minute: MINUTE, location: 'SJC', fields: { so0: 2 } }]))
    await coordinator.recordHistory!(batch(roomId, MS + 60_000, [
      { minute: MINUTE, location: 'SJC', fields: { so0: -1 } },
      { minute: MINUTE + 1, location: 'SJC', fields: { so2: 1 } },
    ]))
    expect(await held(coordinator, roomId, MINUTE, MINUTE + 2)).toEqual({ '0/SJC': { so0: 1 }, '1/SJC': { so2: 1 } })
  })

  it('history: retention prunes minutes older than the newest batch allows', async () => {
    const coordinator = coordinatorOf()
    const roomId = roomOf('retention')
    const retention = 10
    await coordinator.recordHistory!(batch(roomId, MS, [{ minute: MINUTE, location: 'SJC', fields: { adm: 1 } }], retention))
    await coordinator.recordHistory!(batch(roomId, MS + 5 * 60_000, [{ minute: MINUTE + 5, location: 'SJC', fields: { adm: 2 } }], retention))
    expect(Object.keys(await held(coordinator, roomId, MINUTE, MINUTE + 30)).sort()).toEqual(['0/SJC', '5/SJC'])
    // 12 minutes on, minute 0 is past the 10-minute retention; minute 5 is still kept.
    await coordinator.recordHistory!(batch(roomId, MS + 12 * 60_000, [{ minute: MINUTE + 12, location: 'SJC', fields: { adm: 3 } }], retention))
    expect(await held(coordinator, roomId, MINUTE, MINUTE + 30)).toEqual({ '5/SJC': { adm: 2 }, '12/SJC': { adm: 3 } })
  })
}
