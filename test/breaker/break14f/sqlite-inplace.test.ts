/**
 * #14.4 probe: README (SQLite) — "A file deleted or replaced under running processes is noticed within a second
 * (the path's device and inode against the open file's)". An operator who replaces the file with `cp` (or
 * truncates it) keeps its inode. Two coordinators on one file (two processes' connections), a room of 3 filled,
 * then the file's content replaced in place: by an empty room's database (`cp fresh.db room.db`), with or without
 * removing -wal/-shm; or truncated to 0. Must hold: the room does not reopen beyond 3. Measured: held in all four
 * (0 admitted by the running processes or a process started afterwards); a file truncated with its -wal and -shm
 * left in place refuses a new process ("stayed locked for 5 s while starting") — it fails to start, closed.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, truncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sqliteStoreCoordinator } from '../../../adapters/bun-sqlite/node.ts'
import { worker, START } from '../harness.ts'

const ROOM = { totalActiveUsers: 3, newUsersPerMinute: 100, sessionDurationMinutes: 30, syncIntervalMs: 0 }

/** An empty room's database file (a room that was set up and never used), checkpointed into one file. */
async function freshFile(dir: string): Promise<string> {
  const path = join(dir, 'fresh.db')
  const c = sqliteStoreCoordinator(path)
  const clock = { now: START }
  await worker(c, clock, ROOM).status()
  ;(c as any).close?.()
  return path
}

type Damage = 'cp-fresh' | 'cp-fresh-rm-wal-shm' | 'truncate' | 'truncate-rm-wal-shm'

async function run(damage: Damage) {
  const dir = mkdtempSync(join(tmpdir(), 'b14f-sqlite-'))
  const path = join(dir, 'room.db')
  const fresh = await freshFile(dir)
  const a = sqliteStoreCoordinator(path)
  const b = sqliteStoreCoordinator(path)
  const clock = { now: START + 1000 }
  const fleet = [worker(a, clock, ROOM), worker(b, clock, ROOM)]
  const users = []
  for (let i = 0; i < 3; i++) users.push(await fleet[i % 2]!.request())
  expect(users.map((u) => u.reason)).toEqual(['slot', 'slot', 'slot'])
  for (const w of fleet) await w.room.room.flush()
  const inode = statSync(path).ino
  if (damage.startsWith('cp-fresh')) copyFileSync(fresh, path)
  else truncateSync(path, 0)
  if (damage.endsWith('rm-wal-shm')) for (const f of [`${path}-wal`, `${path}-shm`]) if (existsSync(f)) rmSync(f)
  expect(statSync(path).ino).toBe(inode)
  const errors: string[] = []
  const origError = console.error
  console.error = (...args: unknown[]) => void errors.push(args.map(String).join(' ').slice(0, 200))
  try {
    for (let step = 0; step < 3; step++) {
      clock.now += 6000
      for (const w of fleet) await w.status().catch((e) => errors.push(String(e)))
      await new Promise((r) => setTimeout(r, 400))
    }
    let admitted = 0
    for (let i = 0; i < 6; i++) if ((await fleet[i % 2]!.request()).reason === 'slot') admitted++
    // A third process started afterwards on the same path.
    let c
    try {
      c = sqliteStoreCoordinator(path)
    } catch (error) {
      return { admitted, lateAdmitted: 0, lateStart: String((error as Error).message).slice(0, 160), errors: [...new Set(errors)].slice(0, 3) }
    }
    const late = worker(c, clock, ROOM)
    await late.status().catch(() => {})
    clock.now += 6000
    await late.status().catch(() => {})
    let lateAdmitted = 0
    for (let i = 0; i < 3; i++) if ((await late.request()).reason === 'slot') lateAdmitted++
    return { admitted, lateAdmitted, lateStart: 'started', errors: [...new Set(errors)].slice(0, 3) }
  } finally {
    console.error = origError
  }
}

describe('SQLite file content replaced in place (same inode) under running processes', () => {
  for (const damage of ['cp-fresh', 'cp-fresh-rm-wal-shm', 'truncate', 'truncate-rm-wal-shm'] as const) {
    it(damage, async () => {
      const r = await run(damage)
      console.log(damage, JSON.stringify(r))
      expect(r.admitted + r.lateAdmitted).toBe(0)
    }, 30_000)
  }
})
