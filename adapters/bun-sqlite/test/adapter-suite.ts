/**
 * @module
 * What the conformance suite cannot see, in one process: a locked file is retried and then reported as a
 * WaitingRoomError (never SQLITE_BUSY), other SQLite errors are wrapped, options are checked at build
 * time, the fused takeSlot, and pruning once per minute. Runs under vitest (better-sqlite3) and bun test.
 */
import { COUNTER_TTL_MINUTES, takeSlot, type SlotRequest } from '../../../src/coordination/coordinator.ts'
import type { WorkerReport } from '../../../src/coordination/state.ts'
import type { TestApi } from '../../../test/conformance/coordinator-suite.ts'
import { sqliteCoordinator } from '../index.ts'
import type { ClosableDatabase, SqliteHarness } from './harness.ts'
import { tempFiles } from './temp-files.ts'

const MINUTE = 29_405_520
const MS = MINUTE * 60_000

const report = (roomId: string, at: number, deltas: Record<string, number>, id: string = crypto.randomUUID()): WorkerReport => ({
  id, roomId, location: 'host', at, keepMinutes: 10, deltas,
})

/** A small seeded generator (mulberry32): the same request sequences on every run and runtime. */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Calls `run` and returns what it threw (or `undefined`). */
async function thrown(run: () => unknown): Promise<{ name?: string; code?: string; message?: string } | undefined> {
  try {
    await run()
    return undefined
  } catch (error) {
    return error as { name?: string; code?: string; message?: string }
  }
}

export function adapterSuite(t: TestApi, h: SqliteHarness): void {
  const { describe, it, expect, afterAll } = t
  const files = tempFiles('sqlite-adapter')
  const open: ClosableDatabase[] = []
  const connect = (path: string): ClosableDatabase => {
    const db = h.open(path)
    open.push(db)
    return db
  }
  const count = (db: ClosableDatabase, table: string): number => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n

  describe(`bun-sqlite adapter: ${h.name}`, () => {
    afterAll(() => {
      for (const db of open) db.close()
      files.remove()
    })

    it('names itself and prefers a short report interval', () => {
      const coordinator = sqliteCoordinator(connect(':memory:'))
      expect(coordinator.name).toBe('bun-sqlite')
      expect(coordinator.preferredSyncIntervalMs).toBe(200)
    })

    it('rejects bad options when built, naming the option', async () => {
      const db = connect(':memory:')
      const prefix = await thrown(() => sqliteCoordinator(db, { tablePrefix: 'wr-x; DROP' }))
      expect(prefix?.code).toBe('ERR_WR_OPTIONS')
      expect(prefix?.message?.includes('tablePrefix')).toBe(true)
      expect((await thrown(() => sqliteCoordinator(db, { maxSyncLockWaitMs: -1 })))?.code).toBe('ERR_WR_OPTIONS')
      expect((await thrown(() => sqliteCoordinator(db, { maxLockWaitMs: 1.5 })))?.code).toBe('ERR_WR_OPTIONS')
    })

    it('takes the location counter, then Anywhere, in one round trip, and answers a repeated token', async () => {
      const coordinator = sqliteCoordinator(connect(files.next()))
      const slot = (token: string) =>
        coordinator.takeSlot({ roomId: 'fused', location: 'host', minute: MINUTE, localLimit: 1, anywhereLimit: 1, token })
      expect(await slot('a')).toEqual({ admitted: true, via: 'location', repeat: false, roundTrips: 1, seq: 0 })
      expect(await slot('b')).toEqual({ admitted: true, via: 'anywhere', repeat: false, roundTrips: 1, seq: 0 })
      expect(await slot('c')).toEqual({ admitted: false, roundTrips: 1 })
      expect(await slot('b')).toEqual({ admitted: true, via: 'anywhere', repeat: true, roundTrips: 1, seq: 0 })
    })

    // The core's check that a counter went back (lost state: the room recovers) needs the grant's `seq` (#14 breaker 2).
    it('the fused takeSlot answers what the two increments would, seq included, over generated request sequences', async () => {
      for (let seed = 1; seed <= 25; seed++) {
        const random = seeded(seed)
        const fused = sqliteCoordinator(connect(':memory:'))
        const { takeSlot: _fusedOnly, ...twoSteps } = sqliteCoordinator(connect(':memory:'))
        for (let i = 0; i < 30; i++) {
          const request: SlotRequest = {
            roomId: 'generated', location: random() < 0.7 ? 'host' : 'other', minute: MINUTE + Math.floor(random() * 2),
            localLimit: Math.floor(random() * 4), anywhereLimit: Math.floor(random() * 3), token: `t${Math.floor(random() * 12)}`,
          }
          const got = await fused.takeSlot(request)
          const { roundTrips: _, ...expected } = await takeSlot(twoSteps, request)
          expect({ ...got, roundTrips: undefined }).toEqual({ ...expected, roundTrips: undefined })
          if (got.admitted) expect(typeof got.seq).toBe('number')
        }
      }
    })

    it('waits out a short lock held by another connection', async () => {
      const path = files.next()
      const coordinator = sqliteCoordinator(connect(path), { maxLockWaitMs: 5000 })
      const other = connect(path)
      other.exec('BEGIN IMMEDIATE')
      let released = false
      // The first attempt runs (and meets the lock) before this timer; the retry runs after it.
      setTimeout(() => {
        other.exec('COMMIT')
        released = true
      }, 0)
      const result = await coordinator.increment({ roomId: 'locked', scope: 'host', minute: MINUTE, limit: 1, token: 'a' })
      expect(released).toBe(true)
      expect(result).toEqual({ taken: true, seq: 0 })
    })

    it('never waits for a locked file on the thread: busy timeout 0, a call returns at once and retries later', async () => {
      const path = files.next()
      const db = connect(path)
      const coordinator = sqliteCoordinator(db)
      expect(Object.values(db.prepare('PRAGMA busy_timeout').get() as object)).toEqual([0])
      const other = connect(path)
      other.exec('BEGIN IMMEDIATE')
      const started = performance.now()
      const pending = coordinator.sync(report('never-waits', MS, { [`a${MINUTE}`]: 1 }))
      // SQLite's busy handler would sleep here, on the thread that serves every request (#14.5).
      expect(performance.now() - started).toBeLessThanOrEqual(40)
      await new Promise((resolve) => setTimeout(resolve, 20))
      other.exec('COMMIT')
      expect((await pending).locations.host?.counts).toEqual({ [`a${MINUTE}`]: 1 })
    })

    it('turns a lock held past maxLockWaitMs into ERR_WR_COORDINATOR, never SQLITE_BUSY', async () => {
      const path = files.next()
      const coordinator = sqliteCoordinator(connect(path), { maxLockWaitMs: 40, maxSyncLockWaitMs: 40 })
      const other = connect(path)
      other.exec('BEGIN IMMEDIATE')
      const error = await thrown(() => coordinator.sync(report('locked', MS, { [`a${MINUTE}`]: 1 })))
      other.exec('COMMIT')
      expect(error?.name).toBe('WaitingRoomError')
      expect(error?.code).toBe('ERR_WR_COORDINATOR')
      expect(error?.message?.includes('bun-sqlite') && error.message.includes('maxSyncLockWaitMs')).toBe(true)
      // Nothing half-done: the same report id applies once the lock is gone.
      const view = await coordinator.sync(report('locked', MS, { [`a${MINUTE}`]: 1 }))
      expect(view.locations.host?.counts).toEqual({ [`a${MINUTE}`]: 1 })
    })

    it('wraps other SQLite errors as ERR_WR_COORDINATOR with the cause in the message', async () => {
      const path = files.next()
      const coordinator = sqliteCoordinator(connect(path))
      connect(path).exec('DROP TABLE wr_counters')
      const error = await thrown(() => coordinator.increment({ roomId: 'gone', scope: 'host', minute: MINUTE, limit: 1, token: 'a' }))
      expect(error?.code).toBe('ERR_WR_COORDINATOR')
      expect(error?.message?.includes('no such table')).toBe(true)
      const field = await thrown(() => coordinator.sync(report('gone', MS, { nonsense: 1 })))
      expect(field?.code).toBe('ERR_WR_COORDINATOR')
    })

    it('keeps stores with different table prefixes apart in one file', async () => {
      const path = files.next()
      const one = sqliteCoordinator(connect(path))
      const two = sqliteCoordinator(connect(path), { tablePrefix: 'other_' })
      const take = (c: typeof one) => c.increment({ roomId: 'r', scope: 'host', minute: MINUTE, limit: 1, token: crypto.randomUUID() })
      expect((await take(one)).taken).toBe(true)
      expect((await take(two)).taken).toBe(true)
    })

    it('prunes old counters once the minute moves on', async () => {
      const db = connect(files.next())
      const coordinator = sqliteCoordinator(db)
      const take = (minute: number, token: string) => coordinator.increment({ roomId: 'old', scope: 'host', minute, limit: 5, token })
      await take(MINUTE, 'a')
      await take(MINUTE + 1, 'b')
      expect(count(db, 'wr_counters')).toBe(2)
      await take(MINUTE + COUNTER_TTL_MINUTES + 1, 'c')
      expect(count(db, 'wr_counters')).toBe(2) // MINUTE is gone, MINUTE + 1 is kept for late retries
      expect(count(db, 'wr_slot_tokens')).toBe(2)
    })

    it('copies the tokens of a file made before they were kept per room and minute: a retry across the upgrade is a repeat at any scope (#14)', async () => {
      const path = files.next()
      const before = connect(path)
      // The table as versions before #14 made it, holding one grant of this minute.
      before.exec(`CREATE TABLE wr_counter_tokens (minute INTEGER NOT NULL, room TEXT NOT NULL, scope TEXT NOT NULL, token TEXT NOT NULL, seq INTEGER NOT NULL,
        PRIMARY KEY (minute, room, scope, token)) WITHOUT ROWID`)
      before.prepare('INSERT INTO wr_counter_tokens VALUES (?, ?, ?, ?, ?)').run(MINUTE, 'up', 'SJC', 'old', 3)
      const coordinator = sqliteCoordinator(connect(path))
      for (const scope of ['SJC', 'LHR', '*']) {
        const again = await coordinator.increment({ roomId: 'up', scope, location: 'SJC', minute: MINUTE, limit: 5, token: 'old' })
        // The first answer, naming the scope that gave it when another was asked.
        expect({ asked: scope, ...again }).toEqual({ asked: scope, taken: true, seq: 3, repeat: true, ...(scope === 'SJC' ? {} : { scope: 'SJC' }) })
      }
    })

    it('prunes old state and report ids once per minute, and never shows old fields', async () => {
      const db = connect(files.next())
      const coordinator = sqliteCoordinator(db)
      await coordinator.sync(report('old', MS, { [`a${MINUTE}`]: 1 }, 'first'))
      const later = MS + 11 * 60_000
      await coordinator.sync(report('old', later, { [`a${MINUTE + 11}`]: 1 }))
      expect(count(db, 'wr_state')).toBe(1)
      expect(count(db, 'wr_reports')).toBe(1) // 'first' is older than the 10 minutes ids are kept
      // Within the same minute nothing is deleted again (cheap), but an old row is still not shown.
      db.prepare(`INSERT INTO wr_state VALUES ('old', 'host', 'a${MINUTE}', ${MINUTE}, 5)`).run()
      const view = await coordinator.sync(report('old', later + 1000, {}))
      expect(view.locations.host?.counts).toEqual({ [`a${MINUTE + 11}`]: 1 })
      expect(count(db, 'wr_state')).toBe(2)
      await coordinator.sync(report('old', later + 60_000, {}))
      expect(count(db, 'wr_state')).toBe(1)
    })

    it('fixes one reference per minute across connections, first writer wins (a retry answered too); a file made before the table gets it; pruned', async () => {
      const path = files.next()
      const first = connect(path)
      sqliteCoordinator(first)
      first.exec('DROP TABLE wr_references') // a file made before references existed
      for (let seed = 1; seed <= 12; seed++) {
        const random = seeded(seed)
        const [a, b] = [sqliteCoordinator(connect(path)), sqliteCoordinator(connect(path))]
        const roomId = `refs-${seed}`
        const proposal = (id: string, minute: number) => ({ minute, id: `${id}:${minute}`, table: { host: 1 + Math.floor(random() * 9), other: Math.floor(random() * 3) } })
        const proposing = (id: string, minutes: number[]): WorkerReport => ({ ...report(roomId, MS + 1_000, {}, id), references: minutes.map((m) => proposal(id, m)) })
        const fixed = new Map<number, unknown>()
        for (let i = 0; i < 6; i++) {
          const minutes = random() < 0.5 ? [MINUTE] : [MINUTE, MINUTE + 1]
          const sent = proposing(`r${i}`, minutes)
          const coordinator = random() < 0.5 ? a : b
          const answered = (await coordinator.sync(sent)).references ?? []
          const again = (await coordinator.sync(sent)).references ?? [] // a retried report: nothing changes, answered alike
          expect(again).toEqual(answered)
          expect(answered.map((r) => r.minute)).toEqual(minutes)
          for (const [k, reference] of answered.entries()) {
            if (!fixed.has(reference.minute)) expect(reference).toEqual(sent.references![k]) // the first proposal is stored
            expect(reference).toEqual(fixed.get(reference.minute) ?? reference)
            fixed.set(reference.minute, reference)
          }
        }
      }
      // Kept REFERENCE_KEEP_MINUTES past their minute, then pruned with the room's minute prune.
      const coordinator = sqliteCoordinator(connect(path))
      await coordinator.sync({ ...report('refs-1', MS + 10 * 60_000, {}) })
      expect((first.prepare(`SELECT count(*) AS n FROM wr_references WHERE room = 'refs-1'`).get() as { n: number }).n).toBe(0)
      expect(count(first, 'wr_references') > 0).toBe(true)
    })
  })
}
