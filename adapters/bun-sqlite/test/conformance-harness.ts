/**
 * @module
 * The shared conformance suites' harnesses for this adapter, for either runtime: one file per run, each
 * coordinator on its own connection (`reopen` is another process on the same file, the previous one
 * keeps working), `wipe` deleting a room's rows as a replaced file would lose them, and the stored
 * references read with a connection of their own.
 */
import type { ConformanceHarness } from '../../../test/conformance/coordinator-suite.ts'
import type { ReferencesHarness } from '../../../test/conformance/references-suite.ts'
import { sqliteCoordinator, type SqliteCoordinator } from '../index.ts'
import type { SqliteHarness } from './harness.ts'
import { tempFiles } from './temp-files.ts'

/** One file per run (made when the suite starts, so a filtered or listing run leaves nothing behind), a connection per coordinator. */
function connections(h: SqliteHarness, label: string) {
  const files = tempFiles(label)
  const open: SqliteCoordinator[] = []
  let path = ''
  const connect = (): SqliteCoordinator => {
    const coordinator = sqliteCoordinator(h.open(path))
    open.push(coordinator)
    return coordinator
  }
  return {
    path: () => path,
    create: () => {
      path = files.next()
      return connect()
    },
    reopen: () => connect(),
    close: () => {
      for (const coordinator of open) coordinator.close()
      files.remove()
    },
  }
}

export function conformanceHarness(h: SqliteHarness): ConformanceHarness {
  const { path, create, reopen, close } = connections(h, 'sqlite-conformance')
  return {
    name: `bun-sqlite, ${h.name}`,
    create,
    reopen,
    generations: true,
    wipe: (_coordinator, roomId) => {
      const db = h.open(path())
      for (const table of ['state', 'locations', 'reports', 'rooms', 'counters', 'slot_tokens', 'generations', 'recovery']) {
        db.prepare(`DELETE FROM wr_${table} WHERE room = ?`).run(roomId)
      }
      db.close()
    },
    close,
  }
}

export function referencesHarness(h: SqliteHarness): ReferencesHarness {
  const { path, create, reopen, close } = connections(h, 'sqlite-references')
  return {
    name: `bun-sqlite, ${h.name}`,
    create,
    reopen,
    // Pruned by the reports' clock (no wall-clock expiry): every row the file holds for the room.
    storedReferences: async (roomId) => {
      const db = h.open(path())
      const rows = db.prepare('SELECT minute FROM wr_references WHERE room = ?').all(roomId) as { minute: number }[]
      db.close()
      return rows.map(({ minute }) => ({ minute }))
    },
    close,
  }
}
