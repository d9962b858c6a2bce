/**
 * @module
 * Several processes on one file, as a Bun `reusePort` server or a Node cluster runs: a race of 2,000
 * concurrent new users against one limit, a process SIGKILLed mid-minute and started again, and a
 * process killed while it holds the write lock. The workers (`worker.mjs`) open their own connections.
 */
import { ANYWHERE } from '../../../src/coordination/coordinator.ts'
import type { TestApi } from '../../../test/conformance/coordinator-suite.ts'
import { sqliteCoordinator } from '../index.ts'
import { killAllWorkers, startWorker } from './child.ts'
import type { ClosableDatabase, SqliteHarness } from './harness.ts'
import { tempFiles } from './temp-files.ts'

const MINUTE = 29_405_520
const USERS_PER_PROCESS = 500
const LOCAL_LIMIT = 120
const ANYWHERE_LIMIT = 80

export function processSuite(t: TestApi, h: SqliteHarness): void {
  const { describe, it, expect, afterAll } = t
  const files = tempFiles('sqlite-processes')
  const open: ClosableDatabase[] = []
  const coordinatorOn = (path: string, options?: Parameters<typeof sqliteCoordinator>[1]) => {
    const db = h.open(path)
    open.push(db)
    return sqliteCoordinator(db, options)
  }
  const runtime = h.processRuntimes[0]!

  describe(`bun-sqlite across processes: ${h.name}`, () => {
    afterAll(() => {
      killAllWorkers()
      for (const db of open) db.close()
      files.remove()
    })

    it(`${h.processRuntimes.length} processes, ${h.processRuntimes.length * USERS_PER_PROCESS} concurrent new users, limit ${LOCAL_LIMIT + ANYWHERE_LIMIT}: exactly that many admitted and counted, no errors`, async () => {
      const file = files.next() // a new file: the processes also race to create the tables
      // Exactness under the most contention, not the deadlines (busy-suite.ts): 4,000 transactions queue up
      // within 50 ms, longer than a decision's default 250 ms wait on a loaded machine, so waits are raised.
      const options = { maxLockWaitMs: 20_000, maxSyncLockWaitMs: 20_000 }
      const job = { mode: 'race', file, roomId: 'race', minute: MINUTE, location: 'host', localLimit: LOCAL_LIMIT, anywhereLimit: ANYWHERE_LIMIT, users: USERS_PER_PROCESS, spreadMs: 50, options }
      const workers = h.processRuntimes.map((rt, i) => startWorker(rt, { ...job, name: `p${i}` }))
      await Promise.all(workers.map((w) => w.waitFor((line) => line === 'ready')))
      for (const w of workers) w.send('go')
      const results = await Promise.all(
        workers.map(async (w) => JSON.parse((await w.waitFor((line) => line.startsWith('result '))).slice(7)) as { admitted: number; errors: string[] }),
      )
      expect(await Promise.all(workers.map((w) => w.exited))).toEqual(workers.map(() => 0))
      expect(results.flatMap((r) => r.errors)).toEqual([])
      expect(results.reduce((sum, r) => sum + r.admitted, 0)).toBe(LOCAL_LIMIT + ANYWHERE_LIMIT)

      // Both counters stopped exactly at their limits, and every report was merged once.
      const coordinator = coordinatorOn(file)
      const late = (scope: string, limit: number) => coordinator.increment({ roomId: 'race', scope, minute: MINUTE, limit, token: 'late' })
      expect(await late('host', LOCAL_LIMIT)).toEqual({ taken: false, seq: LOCAL_LIMIT })
      expect(await late(ANYWHERE, ANYWHERE_LIMIT)).toEqual({ taken: false, seq: ANYWHERE_LIMIT })
      const view = await coordinator.sync({ id: 'check', roomId: 'race', location: 'host', at: MINUTE * 60_000 + 2000, keepMinutes: 10, deltas: {} })
      expect(view.locations.host?.counts).toEqual({
        [`t${MINUTE}`]: workers.length * USERS_PER_PROCESS,
        // Counted by the grants, in the slots' own transactions: active users, admissions, Anywhere's share.
        [`a${MINUTE}`]: LOCAL_LIMIT + ANYWHERE_LIMIT,
        [`n${MINUTE}`]: LOCAL_LIMIT + ANYWHERE_LIMIT,
        [`y${MINUTE}`]: ANYWHERE_LIMIT,
      })
    }, 60_000)

    it('a process SIGKILLed mid-minute and started again on the same file admits no more than the limit', async () => {
      const file = files.next()
      const limit = 40
      const job = { mode: 'admit', file, roomId: 'restart', minute: MINUTE, limit }
      const first = startWorker(runtime, { ...job, name: 'first', paceMs: 5 })
      await first.waitFor((line) => line === 'admitted first-9')
      first.kill('SIGKILL')
      expect(await first.exited).toBe(null)
      const reported = first.lines.filter((line) => line.startsWith('admitted ')).map((line) => line.slice('admitted '.length))
      expect(first.lines.includes('full')).toBe(false) // it really died mid-minute, before the limit

      // The same minute, a new process: the tickets the first one admitted are remembered, not recounted.
      const second = startWorker(runtime, { ...job, name: 'second', paceMs: 0, retry: reported })
      await second.waitFor((line) => line === 'full')
      expect(await second.exited).toBe(0)
      expect(second.lines.filter((line) => line.startsWith('repeat ')).length).toBe(reported.length)
      const admittedAfter = second.lines.filter((line) => line.startsWith('admitted ')).length
      expect(reported.length + admittedAfter).toBeLessThanOrEqual(limit)
      // Exactly `limit` slots are taken in all: none lost to the kill, none extra.
      const coordinator = coordinatorOn(file)
      expect(await coordinator.increment({ roomId: 'restart', scope: 'host', minute: MINUTE, limit, token: 'late' })).toEqual({ taken: false, seq: limit })
    }, 30_000)

    it('a process killed while holding the write lock neither wedges the file nor leaves its writes', async () => {
      const file = files.next()
      const coordinator = coordinatorOn(file)
      const impatient = coordinatorOn(file, { maxLockWaitMs: 50 })
      const take = (c: typeof coordinator, token: string) => c.increment({ roomId: 'held', scope: 'host', minute: MINUTE, limit: 5, token })
      expect(await take(coordinator, 'before')).toEqual({ taken: true, seq: 0 })

      const holder = startWorker(runtime, { mode: 'hold', file, roomId: 'held', minute: MINUTE, rows: 100_000 })
      await holder.waitFor((line) => line === 'holding')
      const blocked = await take(impatient, 'blocked').then(
        () => undefined,
        (error: { code?: string }) => error.code,
      )
      expect(blocked).toBe('ERR_WR_COORDINATOR')
      holder.kill('SIGKILL')
      expect(await holder.exited).toBe(null)

      // The lock died with the process; its uncommitted counter bump and rows are gone.
      expect(await take(coordinator, 'after')).toEqual({ taken: true, seq: 1 })
      const view = await coordinator.sync({ id: 'check', roomId: 'held', location: 'host', at: MINUTE * 60_000, keepMinutes: 10, deltas: {} })
      expect(view.locations.junk).toBeUndefined()
    }, 30_000)
  })
}
