/// <reference types="node" />
/**
 * @module
 * The file under the running processes. #14.4: deleted (and started afresh by a new process) — every process
 * goes over to the file the path names, which holds a new epoch. #14.5: a `-shm` this process cannot write —
 * the process never hands it to SQLite (that ended in SIGBUS), follows its failMode with one log line naming
 * the file, and recovers once it is writable. #14 breaker 2: a `-shm` (or `-wal` and `-shm`) deleted under a
 * running process while another starts — the running one goes over to the new files before its next
 * transaction, so the two lock against each other again and the limit holds. Runs under vitest
 * (better-sqlite3) and bun test.
 */
import { chmodSync, copyFileSync, existsSync, renameSync, rmSync, truncateSync } from 'node:fs'
import { markerPathOf } from '../epoch-marker.ts'
import { STAMP_SETTLED_MS } from '../database-file.ts'
import { dirname } from 'node:path'
import type { TestApi } from '../../../test/conformance/coordinator-suite.ts'
import type { WorkerReport } from '../../../src/coordination/state.ts'
import { sqliteCoordinator, type SqliteCoordinator } from '../index.ts'
import { killAllWorkers, startWorker, type Worker } from './child.ts'
import type { ClosableDatabase, SqliteHarness } from './harness.ts'
import { tempFiles } from './temp-files.ts'

const MINUTE = 29_405_520
const AT = MINUTE * 60_000
/** Short, so the tests wait a few tens of ms for the check instead of the default second. */
const CHECK_MS = 40
/** `nobody`: who runs the worker that must not be able to write the file, when the tests run as root. */
const NOBODY = 65_534

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const report = (roomId: string, deltas: Record<string, number> = {}): WorkerReport => ({
  id: crypto.randomUUID(), roomId, location: 'host', at: AT, keepMinutes: 10, deltas,
})

/** Runs `body` with console.error captured; returns what it logged. */
async function logged(body: () => Promise<void>): Promise<string[]> {
  const lines: string[] = []
  const original = console.error
  console.error = (...args: unknown[]) => lines.push(args.map(String).join(' '))
  try {
    await body()
  } finally {
    console.error = original
  }
  return lines
}

/** Asks `coordinator` for `n` fresh slots of `roomId` (tokens `{prefix}-0`, `{prefix}-1`, …); answers how many it granted. */
function slotTaker(coordinator: SqliteCoordinator, roomId: string, limit: number, prefix: string): (n: number) => Promise<number> {
  let token = 0
  return async (n) => {
    let admitted = 0
    for (let i = 0; i < n; i++) {
      const request = { roomId, location: 'host', minute: MINUTE, localLimit: limit, anywhereLimit: 0, token: `${prefix}-${token++}` }
      if ((await coordinator.takeSlot(request)).admitted) admitted++
    }
    return admitted
  }
}

/** Lengths to cut a `-shm` to: the edges of SQLite's 32 KiB mapping plus a few drawn from a seeded generator. */
function cutLengths(seed: number): number[] {
  let state = seed >>> 0
  const next = (): number => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0)
  return [0, 3, 100, 4096, 16_385, 32_767, ...Array.from({ length: 3 }, () => next() % 32_768)]
}

/** The `k`-th line starting with `prefix` the worker printed (waiting for it). */
async function nthLine(worker: Worker, prefix: string, k: number): Promise<string> {
  const matching = (): string[] => worker.lines.filter((line) => line.startsWith(prefix))
  await worker.waitFor(() => matching().length >= k)
  return matching()[k - 1]!
}

export function fileSuite(t: TestApi, h: SqliteHarness): void {
  const { describe, it, expect, afterAll } = t
  const files = tempFiles('sqlite-file')
  const coordinators: SqliteCoordinator[] = []
  const handles: ClosableDatabase[] = []
  const coordinatorOn = (path: string): SqliteCoordinator => {
    const coordinator = sqliteCoordinator(h.open(path), { fileCheckIntervalMs: CHECK_MS })
    coordinators.push(coordinator)
    return coordinator
  }
  const remove = (path: string): void => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
  }
  /**
   * `backup` put back at `path` (the database's `-wal` and `-shm` gone with it) and a new process started on it:
   * the process and its first sync's answer (a cold worker: no sighting of its own), which must mark `roomId` lost
   * in the same epoch as `known`, the state the copy is older than.
   */
  const restartOnCopy = async (path: string, backup: string, roomId: string, known: { epoch?: { id: string } }) => {
    remove(path)
    copyFileSync(backup, path)
    const restarted = coordinatorOn(path)
    const view = await restarted.sync(report(roomId))
    expect(view.epoch!.id).toBe(known.epoch!.id)
    expect(view.locations.host?.counts[`R${MINUTE}`]).toBe(1)
    return { restarted, view }
  }
  const runtime = h.processRuntimes[0]!

  describe(`bun-sqlite and its file: ${h.name}`, () => {
    afterAll(() => {
      killAllWorkers()
      for (const coordinator of coordinators) coordinator.close()
      for (const db of handles) db.close()
      files.remove()
    })

    it('a file deleted under a running process is opened again within a check, as a new room (new epoch)', async () => {
      const path = files.next()
      const coordinator = coordinatorOn(path)
      const before = await coordinator.sync(report('deleted', { [`a${MINUTE}`]: 2 }))
      remove(path)
      await sleep(CHECK_MS + 10)
      let after: Awaited<ReturnType<typeof coordinator.sync>> | undefined
      const lines = await logged(async () => {
        after = await coordinator.sync(report('deleted'))
      })
      expect(existsSync(path)).toBe(true)
      expect(after!.epoch!.id === before.epoch!.id).toBe(false)
      expect(after!.locations.host?.counts[`a${MINUTE}`]).toBeUndefined()
      expect(lines.length).toBe(1)
      expect(lines[0]!.includes(path) && lines[0]!.includes('deleted or replaced')).toBe(true)
    })

    // #16: once the directory's stamp has settled, a check stats only it and the -shm; the database and -wal are
    // vouched for by the stamp. Each file replaced (a copy renamed over it) right after a transaction — on a settled
    // stamp (odd rounds) or right after the previous replacement (even rounds) — is noticed by the very next one.
    it('a file replaced right after a transaction is noticed by the next one, on a settled directory or a busy one', async () => {
      const path = files.next()
      const take = slotTaker(coordinatorOn(path), 'replaced', 1000, 'r')
      expect(await take(3)).toBe(3)
      for (let round = 0; round < 12; round++) {
        const file = `${path}${['', '-wal', '-shm'][round % 3]}`
        if (round % 2 === 1) {
          await sleep(STAMP_SETTLED_MS + 20)
          expect(await take(1)).toBe(1) // this check finds the stamp settled: the next ones stat only it and the -shm
        }
        copyFileSync(file, `${file}.copy`)
        renameSync(`${file}.copy`, file)
        const lines = await logged(async () => {
          expect(await take(1)).toBe(1)
        })
        expect({ round, lines: lines.length, named: lines[0]?.includes(`${file} was deleted or replaced`) }).toEqual({ round, lines: 1, named: true })
        expect(await logged(async () => void (await take(2)))).toEqual([]) // unchanged since: nothing to notice
      }
    })

    it('a new process on a fresh file at a deleted one\'s path starts the room recovering; a new path, or the marker deleted too, does not', async () => {
      const path = files.next()
      const lost = `R${MINUTE}`
      const first = coordinatorOn(path)
      const old = await first.sync(report('marked', { [`a${MINUTE}`]: 3 }))
      expect(old.locations.host?.counts[lost]).toBeUndefined()
      first.close()
      remove(path)
      // Nothing old touches the new file: only the marker beside it tells the new process the room had sessions.
      const second = coordinatorOn(path)
      const fresh = await second.sync(report('marked'))
      expect(fresh.epoch!.id === old.epoch!.id).toBe(false)
      expect(fresh.locations.host?.counts[lost]).toBe(1)
      expect((await second.sync(report('other-room'))).locations.host?.counts[lost]).toBeUndefined()
      const unused = files.next()
      expect((await coordinatorOn(unused).sync(report('marked'))).locations.host?.counts[lost]).toBeUndefined()
      // A deliberate reset: the database and its marker deleted together.
      second.close()
      remove(path)
      rmSync(markerPathOf(path))
      expect((await coordinatorOn(path).sync(report('marked'))).locations.host?.counts[lost]).toBeUndefined()
    })

    it('a process starting on an older copy of the file put back notices in its first sync (the marker knows a later generation); on the current file, nothing', async () => {
      const path = files.next()
      const backup = `${path}.backup`
      const lost = `R${MINUTE}`
      const first = coordinatorOn(path)
      await first.sync(report('restored', { [`a${MINUTE}`]: 1 }))
      first.close() // checkpointed: the file alone is the state
      copyFileSync(path, backup)
      // Another process goes on after the copy point: its first sync writes the marker at once.
      const second = coordinatorOn(path)
      const later = await second.sync(report('restored', { [`a${MINUTE}`]: 1 }))
      expect(later.locations.host?.counts[lost]).toBeUndefined()
      second.close()
      // On the current file a new process finds nothing wrong.
      const current = coordinatorOn(path)
      expect((await current.sync(report('restored'))).locations.host?.counts[lost]).toBeUndefined()
      current.close()
      // The copy put back; a new process's first sync marks the room.
      const { restarted, view } = await restartOnCopy(path, backup, 'restored', later)
      expect(view.generation! > later.generation!).toBe(true)
      const asked = await restarted.takeSlot({ roomId: 'restored', location: 'host', minute: MINUTE, localLimit: 5, anywhereLimit: 0, token: 'new', recoveryMinutes: 6 })
      expect(asked.recovering).toBe(true)
      // Marked once: the next sync finds the generation past what the marker knew.
      expect((await restarted.sync(report('restored'))).locations.host?.counts[lost]).toBe(1)
      rmSync(backup)
    })

    it('a process that closes writes the generations it saw: a copy taken after the marker\'s last write, put back once the process stopped, is noticed (break19)', async () => {
      const path = files.next()
      const backup = `${path}.backup`
      const running = coordinatorOn(path)
      const copied = await running.sync(report('closing', { [`a${MINUTE}`]: 1 })) // its first sync writes the marker
      // A hot copy (VACUUM INTO) of the state the marker now holds, then changes within the marker's write interval.
      const copier = h.open(path)
      copier.exec(`VACUUM INTO '${backup}'`)
      copier.close()
      const changed = await running.sync(report('closing', { [`a${MINUTE}`]: 1 }))
      expect(changed.generation! > copied.generation!).toBe(true)
      running.close()
      const { restarted } = await restartOnCopy(path, backup, 'closing', changed)
      restarted.close()
      rmSync(backup)
    })

    it('a file deleted while another process starts a new one on the path: both processes end up on one file', async () => {
      const path = files.next()
      const coordinator = coordinatorOn(path)
      const old = await coordinator.sync(report('replaced'))
      const slot = (token: string) =>
        coordinator.takeSlot({ roomId: 'replaced', location: 'host', minute: MINUTE, localLimit: 1, anywhereLimit: 0, token })
      expect((await slot('a')).admitted).toBe(true)
      remove(path)

      const other = startWorker(runtime, { mode: 'epoch', file: path, roomId: 'replaced', at: AT })
      const otherEpoch = (await other.waitFor((line) => line.startsWith('epoch '))).slice('epoch '.length)
      expect(otherEpoch === old.epoch!.id).toBe(false)
      await sleep(CHECK_MS + 10)
      await logged(async () => {
        const view = await coordinator.sync(report('replaced', { [`a${MINUTE}`]: 3 }))
        expect(view.epoch!.id).toBe(otherEpoch) // this process went over to the other's file
      })
      // The new file's counter is new, but its room starts recovering (the marker named the old epoch): the
      // grant step itself refuses, whatever this process's snapshot says.
      expect(await slot('b')).toEqual({ admitted: false, recovering: true, roundTrips: 1 })
      other.send('go')
      const seen = JSON.parse((await other.waitFor((line) => line.startsWith('view '))).slice('view '.length)) as Record<string, number>
      // What this process wrote, the other process reads: the 3 reported.
      expect(seen[`a${MINUTE}`]).toBe(3)
      expect(await other.exited).toBe(0)
    }, 30_000)

    it('a -shm file this process cannot write: no crash, the queue page, one log line naming it; fixed, it recovers', async () => {
      const path = files.next()
      const root = typeof process.getuid === 'function' && process.getuid() === 0
      // Another process keeps the file open, so the -wal and -shm files exist; it can write them, the worker cannot.
      const owner = h.open(path)
      handles.push(owner)
      sqliteCoordinator(owner)
      const shm = `${path}-shm`
      expect(existsSync(shm)).toBe(true)
      chmodSync(dirname(path), 0o777)
      for (const file of [path, `${path}-wal`]) chmodSync(file, 0o666)
      chmodSync(shm, 0o444)

      const job = { mode: 'room', file: path, roomId: 'unwritable', options: { fileCheckIntervalMs: CHECK_MS } }
      const worker = startWorker(runtime, job, root ? NOBODY : undefined)
      expect(await worker.waitFor((line) => line.startsWith('outcome '))).toBe('outcome 200 queue page')
      const complaints = worker.stderr.split('\n').filter((line) => line.startsWith('[hono-waiting-room] bun-sqlite:'))
      expect(complaints.length).toBe(1)
      expect(complaints[0]!.includes(`${shm} is not writable`)).toBe(true)

      chmodSync(shm, 0o666)
      worker.send('go')
      expect(await worker.waitFor((line) => line.startsWith('again '))).toBe('again 200 origin')
      expect(await worker.exited).toBe(0)
    }, 30_000)

    // break14b: a -shm cut (truncated) under the running process: SQLite's next touch of the pages it mapped past
    // the new end was a SIGBUS, killing the process (here: the test runner). Generated lengths, shorter than the
    // region SQLite mapped; the counts survive (the -wal holds them; SQLite rebuilds its index from it).
    it('a -shm cut to any shorter length under a running process: no SIGBUS, one log line, the count holds', async () => {
      for (const length of cutLengths(Number(process.env.SHM_CUT_SEED ?? 14))) {
        const path = files.next()
        const limit = 20
        const take = slotTaker(coordinatorOn(path), 'cut', limit, 'c')
        expect(await take(5)).toBe(5)
        truncateSync(`${path}-shm`, length)
        let after = 0
        const lines = await logged(async () => {
          after = await take(25)
        })
        expect([length, after]).toEqual([length, limit - 5])
        expect(lines.length).toBe(1)
        expect(lines[0]!.includes(`${path}-shm was cut to ${length} bytes`)).toBe(true)
      }
    }, 30_000)

    // The test process is this file's only connection in it: SQLite shares one -shm mapping per process and file.
    // -wal alone: the others' -shm still indexes frames of the deleted -wal, so the process that starts fails
    // (SQLite's disk I/O error: the room's failMode) while the running one goes on; acceptable, the limit holds.
    for (const deleted of [['-shm'], ['-wal', '-shm'], ['-wal']]) {
      const walOnly = !deleted.includes('-shm')
      it(`${deleted.join(' and ')} deleted under a running process, another process starts: the limit holds`, async () => {
        const path = files.next()
        const limit = 20
        const take = slotTaker(coordinatorOn(path), 'split', limit, 'a')
        const before = await take(5)
        expect(before).toBe(5)
        for (const suffix of deleted) rmSync(`${path}${suffix}`)
        const other = startWorker(runtime, { mode: 'slots', file: path, roomId: 'split', minute: MINUTE, localLimit: limit, name: 'b' })
        await other.waitFor((line) => line === 'ready')
        let after = 0
        const lines = await logged(async () => {
          for (let round = 1; round <= 6; round++) {
            after += await take(5)
            other.send('5')
            const [, admitted, errors] = (await nthLine(other, 'took ', round)).split(' ')
            if (!walOnly) expect(errors).toBe('0')
            after += Number(admitted)
          }
        })
        other.send('end')
        expect(await other.exited).toBe(0)
        if (walOnly) return expect(after).toBeLessThanOrEqual(limit - before)
        // -wal deleted too: what only it held is gone (the core sees the counter went back); one counter from then on.
        expect(after).toBe(deleted.includes('-wal') ? limit : limit - before)
        expect(lines.length).toBe(1)
        expect(lines[0]!.includes(`${path}${deleted[0]} was deleted or replaced`)).toBe(true)
      }, 30_000)
    }
  })
}
