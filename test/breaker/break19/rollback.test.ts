/**
 * break19 / guarantee 4: a store rolled back to an older copy while sessions live. A full room (3 of 3); its users
 * check in with gaps < D; a copy is taken at a random moment, the store goes on for 0–(D+2) minutes, then the copy
 * is put back: Redis (keys copied aside and put back), SQLite in memory (serialize / new Database), and a SQLite
 * FILE replaced by its checkpointed copy under a restarted fleet (marker beside the file kept, or put back too).
 * Newcomers keep arriving at random workers and follow Refresh. Oracles:
 *   no newcomer admitted while the old users still check in (the room is full: any is over the limit);
 *   no old user logged out (every check-in admitted under its own ticket);
 *   once the old users stop at S, the room reopens (a newcomer admitted) by S + 2D + 4 min — time printed.
 *
 * The SQLite file variant (marker kept) failed on 4 of 12 seeds until a closing process wrote the generations it
 * saw (epoch-marker.ts `flush`): the marker still held the copy's own generation, and the tickets could not tell
 * either — the generation is a count, and the put-back copy's reports had advanced it past the generation the old
 * sessions' tickets carry before they checked in (seed 8: the copy at 18 reached 41 before a ticket sealed at 32
 * came back). That is why `sqlite-file+marker` (the marker put back with the file, as a VM snapshot does) is not
 * in the default kinds: only tickets can tell there, and they cannot once the copy has moved past them (README,
 * Known limits: an open defect, not a tolerance). Run it with B19_KINDS=sqlite-file+marker; B19_SEEDS picks seeds.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sqliteStoreCoordinator } from '../../../adapters/bun-sqlite/node.ts'
import type { Coordinator } from '../../../src/index.ts'
import { restorableRedis, restorableSqlite } from '../../support/losable.ts'
import { MINUTE, pick, refreshOf, rng, settle, sleep, worker } from '../breakslice18/harness.ts'

const redis = restorableRedis('b19-rollback')
beforeAll(() => redis.connect())
afterAll(async () => { await sleep(200); await redis.close() })

type Kind = 'redis' | 'sqlite-mem' | 'sqlite-file' | 'sqlite-file+marker'
interface Store { another(): Coordinator; backup(): Promise<void>; restore(): Promise<void>; restarts: boolean }

function fileStore(withMarker: boolean): Store {
  const dir = mkdtempSync(join(tmpdir(), 'b19-rb-'))
  const path = join(dir, 'room.db')
  let open: ReturnType<typeof sqliteStoreCoordinator>[] = []
  const closeAll = () => { for (const c of open) c.close(); open = [] }
  const copyOut = (from: string, to: string) => { if (existsSync(from)) copyFileSync(from, to) }
  return {
    restarts: true,
    another: () => { const c = sqliteStoreCoordinator(path); open.push(c); return c },
    backup: async () => {
      closeAll() // checkpointed; the fleet restarts on the same file (a backup taken between restarts)
      copyOut(path, `${path}.bak`)
      if (withMarker) copyOut(`${path}-wr-epochs`, `${path}-wr-epochs.bak`)
    },
    restore: async () => {
      closeAll()
      for (const s of ['', '-wal', '-shm']) rmSync(`${path}${s}`, { force: true })
      copyFileSync(`${path}.bak`, path)
      if (withMarker && existsSync(`${path}-wr-epochs.bak`)) copyFileSync(`${path}-wr-epochs.bak`, `${path}-wr-epochs`)
    },
  }
}

function storeOf(kind: Kind): Store {
  if (kind === 'sqlite-file') return fileStore(false)
  if (kind === 'sqlite-file+marker') return fileStore(true)
  const r = kind === 'redis' ? redis.make() : restorableSqlite()
  return { restarts: false, another: () => r.coordinator, backup: r.backup, restore: r.restore }
}

async function run(kind: Kind, seed: number, reopenings: number[]): Promise<string[]> {
  const random = rng(seed * 6151 + kind.length)
  const D = [1, 2, 5][seed % 3]!
  const W = pick(random, 1, 3)
  const store = storeOf(kind)
  const T = { now: (29_800_000 + seed * 50) * MINUTE + pick(random, 0, 59_999) }
  const options = { roomId: `b19-rb-${seed}`, totalActiveUsers: 3, newUsersPerMinute: 50, sessionDurationMinutes: D, syncIntervalMs: random() < 0.5 ? 0 : 1000, refreshIntervalSeconds: 5 }
  const fleet = () => Array.from({ length: W }, () => worker(store.another(), T, options))
  let ws = fleet()
  const w = () => ws[pick(random, 0, W - 1)]!
  const pause = async () => { await settle(); await sleep(kind === 'sqlite-mem' ? 0 : 2) }
  const start = T.now
  const users: { cookie?: string; ticket: string; next: number; last: number; sealed: number }[] = []
  for (let i = 0; i < 3; i++) {
    const a = await w()(undefined)
    await pause()
    if (!a.admitted) return [`${kind} seed ${seed}: setup user not admitted`]
    users.push({ cookie: a.cookie, ticket: a.ticketId, next: T.now + pick(random, 1000, D * MINUTE - 1), last: T.now, sealed: T.now })
  }
  const backupAt = start + pick(random, 5_000, 3 * MINUTE)
  const restoreAt = backupAt + pick(random, 0, (D + 2) * MINUTE)
  const stopAt = restoreAt + pick(random, 0, (D + 2) * MINUTE)
  const end = stopAt + (2 * D + 4) * MINUTE
  const tag = `${kind} seed ${seed} D=${D} W=${W} sync=${options.syncIntervalMs} copy at +${((backupAt - start) / 1000).toFixed(0)}s, put back ${((restoreAt - backupAt) / 1000).toFixed(0)}s later, users stop ${((stopAt - restoreAt) / 1000).toFixed(0)}s after`
  const newcomers: { cookie?: string; next: number }[] = []
  for (let t = start + 3000; t < end; t += pick(random, 4000, 15000)) newcomers.push({ next: t })
  let backedUp = false
  let restored = false
  let lastOld = 0
  let reopened: number | undefined
  let oldSinceRestore = 0
  const newcomersIn: number[] = []
  let laterViewCheckIns = 0
  const problems: string[] = []
  while (reopened === undefined) {
    const events = [backedUp ? Infinity : backupAt, restored ? Infinity : restoreAt, ...users.map((u) => u.next), ...newcomers.map((n) => n.next)]
    const at = Math.min(...events)
    if (at > end) break
    T.now = at
    if (!backedUp && at === backupAt) {
      await store.backup()
      backedUp = true
      // The fleet restarts on the file; its processes are closed at the put-back, which writes what they saw to the
      // marker (a crash within 5 s of its last write is the residual in README's Known limits).
      if (store.restarts) ws = fleet()
      continue
    }
    if (!restored && at === restoreAt) { await store.restore(); restored = true; if (store.restarts) ws = fleet(); continue }
    const u = users.find((x) => x.next === at)
    if (u) {
      const a = await w()(u.cookie)
      await pause()
      if (restored && u.sealed > backupAt) laterViewCheckIns++
      if (!a.admitted || a.ticketId !== u.ticket) problems.push(`${tag}: old user logged out at +${((at - restoreAt) / 1000).toFixed(1)}s after the put-back (${a.reason})`)
      else { if (a.cookie !== u.cookie) u.sealed = at; u.cookie = a.cookie }
      lastOld = at
      u.last = at
      if (restored) oldSinceRestore++
      const next = at + pick(random, 1000, D * MINUTE - 1)
      u.next = next < stopAt ? next : Infinity
      continue
    }
    const n = newcomers.find((x) => x.next === at)!
    const a = await w()(n.cookie)
    await pause()
    if (a.admitted) {
      newcomersIn.push(at)
      // a session whose last check-in is less than D ago certainly holds a place (sessions end D to D+1 after it);
      // newcomers never check in again
      const live = users.filter((x) => at - x.last < D * MINUTE).length
      const liveNew = newcomersIn.filter((t) => at - t < D * MINUTE).length
      if (live + liveNew > 3 && problems.length === 0) {
        const when = !restored ? 'before the put-back' : `after the put-back and ${oldSinceRestore} old check-ins (${laterViewCheckIns} with a cookie sealed after the copy point${laterViewCheckIns === 0 && store.restarts ? ': documented for a fleet restarted on the copy' : ''})`
        problems.push(`${tag}: ${liveNew} newcomers live with ${live} old sessions live (room of 3): admitted ${when}, at +${((at - restoreAt) / 1000).toFixed(1)}s`)
      } else if (reopened === undefined && at >= stopAt && live === 0) reopened = at
      n.next = Infinity
    } else { n.cookie = a.cookie; n.next = at + refreshOf(a, 5) * 1000 }
  }
  if (reopened === undefined) problems.push(`${tag}: never reopened (${((end - lastOld) / MINUTE).toFixed(1)} min after the last old check-in)`)
  else reopenings.push((reopened - lastOld) / MINUTE - D)
  return problems
}

describe('break19: a store rolled back to an older copy under live sessions', () => {
  const kinds = (process.env.B19_KINDS?.split(',') ?? ['redis', 'sqlite-mem', 'sqlite-file']) as Kind[]
  for (const kind of kinds) {
    it(`${kind}: generated rollbacks`, async () => {
      const problems: string[] = []
      const reopenings: number[] = []
      // Six seeds in CI (each variant ~1 min); seeds 1–12 on each kind, and 13–36 on sqlite-file, passed when this landed.
      const seeds = process.env.B19_SEEDS?.split(',').map(Number) ?? [1, 2, 3, 4, 5, 8]
      for (const seed of seeds) problems.push(...(await run(kind, seed, reopenings)))
      reopenings.sort((a, b) => a - b)
      console.log(`${kind}: reopened (minutes after last old check-in + D): min ${reopenings[0]?.toFixed(2)} max ${reopenings.at(-1)?.toFixed(2)}`)
      expect(problems).toEqual([])
    }, 600_000)
  }
})
