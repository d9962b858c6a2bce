/**
 * @module
 * The shared conformance suite's harness for this adapter, for either runtime: one file per run, each
 * coordinator on its own connection (`reopen` is another process on the same file, the previous one
 * keeps working), and `wipe` deleting a room's rows as a replaced file would lose them.
 */
import type { ConformanceHarness } from '../../../test/conformance/coordinator-suite.ts'
import { sqliteCoordinator, type SqliteCoordinator } from '../index.ts'
import type { SqliteHarness } from './harness.ts'
import { tempFiles } from './temp-files.ts'

export function conformanceHarness(h: SqliteHarness): ConformanceHarness {
  const files = tempFiles('sqlite-conformance')
  const open: SqliteCoordinator[] = []
  let path = ''
  const connect = (): SqliteCoordinator => {
    const coordinator = sqliteCoordinator(h.open(path))
    open.push(coordinator)
    return coordinator
  }
  return {
    name: `bun-sqlite, ${h.name}`,
    // The file is made when the suite starts, so a filtered or listing run leaves nothing behind.
    create: () => {
      path = files.next()
      return connect()
    },
    reopen: () => connect(),
    generations: true,
    wipe: (_coordinator, roomId) => {
      const db = h.open(path)
      for (const table of ['state', 'locations', 'reports', 'rooms', 'counters', 'counter_tokens', 'generations', 'recovery']) {
        db.prepare(`DELETE FROM wr_${table} WHERE room = ?`).run(roomId)
      }
      db.close()
    },
    close: () => {
      for (const coordinator of open) coordinator.close()
      files.remove()
    },
  }
}
