/**
 * @module
 * Reference traffic tables in the conformance suite (split14, src/coordination/reference.ts): every adapter fixes
 * each minute's table room-wide, first writer wins, and answers the stored one for every minute a report proposes.
 * On every adapter: proposals for one minute sent at once by many processes and locations are all answered the
 * same table, one of theirs, and so is every later proposal and a retried report; a report proposing several
 * minutes gets each minute's stored table; a table stays fixed for REFERENCE_KEEP_MINUTES after its minute and the
 * stored ones stay bounded however many minutes pass; a table of 300 locations comes back exactly. Web APIs only,
 * like the rest of the suite, so it runs under vitest, `deno test` and workerd's runner alike.
 */
import type { Coordinator } from '../../src/coordination/coordinator.ts'
import { REFERENCE_KEEP_MINUTES, type TrafficReference } from '../../src/coordination/reference.ts'
import type { RoomState, WorkerReport } from '../../src/coordination/state.ts'
import type { TestApi } from './coordinator-suite.ts'
import { seeded } from './seeded.ts'

/** 2026-11-30 12:20 UTC: apart from the other suites' minutes. */
const MINUTE = 29_405_540

/** A reference the backend holds for a room, as its harness reads it from storage. */
export interface StoredReference {
  /** The minute it splits. */
  minute: number
  /** Wall-clock ms until the backend drops it (an expiring key); undefined when it is pruned by the reports' clock. */
  expiresInMs?: number | undefined
}

export interface ReferencesHarness {
  /** Adapter name shown in test titles. */
  name: string
  create(): Coordinator | Promise<Coordinator>
  /** Another process over the same backend (a new connection or coordinator, or restarted objects). */
  reopen(previous: Coordinator): Coordinator | Promise<Coordinator>
  close?(): void | Promise<void>
  /** Every reference the backend stores for `roomId` (read from storage, not through the coordinator). */
  storedReferences(roomId: string): Promise<StoredReference[]>
}

const room = (label: string): string => `${label}-${crypto.randomUUID().slice(0, 8)}`

/** A report proposing `tables` (minute → table), each with an id made of the report's and its minute. */
function proposing(roomId: string, location: string, at: number, tables: Record<number, Record<string, number>>, id: string = crypto.randomUUID()): WorkerReport {
  const references: TrafficReference[] = Object.entries(tables).map(([minute, table]) => ({ minute: Number(minute), table, id: `${id}:${minute}` }))
  return { id, roomId, location, at, keepMinutes: 10, deltas: {}, references }
}

/** A generated traffic table: `size` locations with 1 to 10⁹ users each (names from an awkward alphabet). */
function tableOf(random: () => number, size: number): Record<string, number> {
  const alphabet = ['a', 'Z', '9', '-', '_', '.', ':', ' ', '{', '}', '"', '\\', 'é', '東', '🌍', '*']
  const table: Record<string, number> = {}
  while (Object.keys(table).length < size) {
    let name = ''
    for (let i = 0, n = 1 + Math.floor(random() * 12); i < n; i++) name += alphabet[Math.floor(random() * alphabet.length)]
    table[name] = 1 + Math.floor(random() ** 3 * 1e9)
  }
  return table
}

/** The answer's reference for `minute` (undefined: not answered). */
const answered = (state: RoomState, minute: number): TrafficReference | undefined => state.references?.find((reference) => reference.minute === minute)

export function referencesConformance(t: TestApi, harness: ReferencesHarness): void {
  const { describe, it, expect, beforeAll, afterAll } = t

  describe(`reference conformance: ${harness.name}`, () => {
    let coordinator: Coordinator
    beforeAll(async () => {
      coordinator = await harness.create()
    })
    afterAll(async () => {
      await harness.close?.()
    })

    it('fixes one table per minute, room-wide: generated proposals from many processes and locations at once, later ones and retries', async () => {
      expect(coordinator.fixesReferences).toBe(true)
      for (const seed of [1, 2, 3]) {
        const random = seeded(seed)
        const roomId = room(`refs-${seed}`)
        const processes = [coordinator, await harness.reopen(coordinator), await harness.reopen(coordinator)]
        const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)]!
        const locations = ['SJC', 'LHR', 'DUB', 'NBO'].slice(0, 1 + Math.floor(random() * 4))
        const minute = MINUTE + seed * 10
        const workers = 2 + Math.floor(random() * 7)
        // Each worker proposes its own view of the minute, a few seconds either side of its start.
        const reports = Array.from({ length: workers }, () =>
          proposing(roomId, pick(locations), minute * 60_000 - 5000 + Math.floor(random() * 10_000), { [minute]: tableOf(random, 1 + Math.floor(random() * 6)) }),
        )
        const answers = await Promise.all(reports.map((report) => pick(processes).sync(report)))
        const fixed = answered(answers[0]!, minute)!
        const winner = reports.find((report) => report.references![0]!.id === fixed?.id)
        expect(winner?.references).toEqual([fixed]) // one of the proposals, whole
        for (const answer of answers) expect(answer.references).toEqual([fixed])
        // Later proposals, from any process and location, and a retried report: the same table.
        const later = proposing(roomId, pick(locations), minute * 60_000 + 30_000, { [minute]: tableOf(random, 3) })
        expect((await pick(processes).sync(later)).references).toEqual([fixed])
        expect((await pick(processes).sync(pick(reports))).references).toEqual([fixed])
        // A report that proposes nothing is answered no reference.
        expect((await pick(processes).sync({ ...later, id: crypto.randomUUID(), references: undefined })).references).toBeUndefined()
      }
    }, 120_000)

    it('answers every minute a report proposes: the stored table where there is one, its own where not', async () => {
      const random = seeded(11)
      const roomId = room('refs-minutes')
      const other = await harness.reopen(coordinator)
      const [m1, m2, m3, m4] = [MINUTE, MINUTE + 1, MINUTE + 2, MINUTE + 3]
      const first = proposing(roomId, 'SJC', m1 * 60_000, { [m1]: tableOf(random, 2) })
      expect((await coordinator.sync(first)).references).toEqual(first.references)
      const second = proposing(roomId, 'LHR', m1 * 60_000 + 10, { [m1]: tableOf(random, 2), [m2]: tableOf(random, 3), [m3]: tableOf(random, 1) })
      const answer = await other.sync(second)
      expect(answer.references?.length).toBe(3)
      expect(answered(answer, m1)).toEqual(first.references![0])
      expect(answered(answer, m2)).toEqual(second.references![1])
      expect(answered(answer, m3)).toEqual(second.references![2])
      // Two reports, each proposing several minutes, at once: every minute answered alike in both.
      const a = proposing(roomId, 'SJC', m2 * 60_000, { [m2]: tableOf(random, 4), [m3]: tableOf(random, 4), [m4]: tableOf(random, 4) })
      const b = proposing(roomId, 'DUB', m2 * 60_000 + 1, { [m3]: tableOf(random, 5), [m4]: tableOf(random, 5) })
      const [answerA, answerB] = await Promise.all([coordinator.sync(a), other.sync(b)])
      expect(answered(answerA!, m2)).toEqual(second.references![1])
      expect(answered(answerA!, m3)).toEqual(second.references![2])
      expect(answered(answerB!, m3)).toEqual(second.references![2])
      expect(answered(answerB!, m4)).toEqual(answered(answerA!, m4))
      expect([a.references![2]!.id, b.references![1]!.id].includes(answered(answerA!, m4)!.id)).toBe(true)
    }, 60_000)

    it(`keeps each table ${REFERENCE_KEEP_MINUTES} minutes past its minute, and what is stored stays bounded however many minutes pass`, async () => {
      const random = seeded(21)
      const roomId = room('refs-keep')
      const other = await harness.reopen(coordinator)
      const fixed = new Map<number, TrafficReference>()
      const minutes = 24
      for (let now = MINUTE; now < MINUTE + minutes; now++) {
        // Each minute: a worker proposes this minute, another proposes the kept ones again with its own tables.
        const own = proposing(roomId, 'SJC', now * 60_000 + Math.floor(random() * 59_000), { [now]: tableOf(random, 3) })
        fixed.set(now, (await coordinator.sync(own)).references![0]!)
        const again: Record<number, Record<string, number>> = {}
        for (let m = Math.max(MINUTE, now - REFERENCE_KEEP_MINUTES); m <= now; m++) again[m] = tableOf(random, 2)
        const answer = await other.sync(proposing(roomId, 'LHR', now * 60_000 + 59_500, again))
        for (const minute in again) expect(answered(answer, Number(minute))).toEqual(fixed.get(Number(minute)))
      }
      // Bounded: what the reports' clock has not yet dropped is the kept minutes; the rest expires on the wall clock soon.
      const last = MINUTE + minutes - 1
      const stored = await harness.storedReferences(roomId)
      expect(stored.length).toBeGreaterThanOrEqual(REFERENCE_KEEP_MINUTES + 1)
      for (const { minute, expiresInMs } of stored) {
        const kept = expiresInMs === undefined ? minute >= last - REFERENCE_KEEP_MINUTES - 1 : expiresInMs <= (REFERENCE_KEEP_MINUTES + 2) * 60_000
        expect({ minute, expiresInMs, kept }).toEqual({ minute, expiresInMs, kept: true })
      }
      expect(stored.filter((reference) => reference.expiresInMs === undefined).length).toBeLessThanOrEqual(REFERENCE_KEEP_MINUTES + 2)
    }, 120_000)

    it('round-trips tables of 300 locations exactly, whichever is fixed', async () => {
      for (const seed of [31, 32]) {
        const random = seeded(seed)
        const roomId = room(`refs-300-${seed}`)
        const other = await harness.reopen(coordinator)
        const minute = MINUTE + seed
        const reports = [0, 1, 2].map((i) => proposing(roomId, ['SJC', 'LHR', 'DUB'][i]!, minute * 60_000 + i, { [minute]: tableOf(random, 300) }))
        const answers = await Promise.all(reports.map((report, i) => (i % 2 === 0 ? coordinator : other).sync(report)))
        const fixed = answered(answers[0]!, minute)!
        expect(Object.keys(fixed.table).length).toBe(300)
        expect(reports.map((report) => report.references![0]).find((reference) => reference!.id === fixed.id)).toEqual(fixed)
        for (const answer of answers) expect(answer.references).toEqual([fixed])
      }
    }, 60_000)
  })
}
