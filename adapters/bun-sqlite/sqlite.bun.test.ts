// Run by `bun test` (see test.sh): the same suites as sqlite.test.ts, on bun:sqlite.
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { sqliteCoordinator } from './index.ts'
import { adapterSuite } from './test/adapter-suite.ts'
import type { SqliteHarness } from './test/harness.ts'
import { processSuite } from './test/process-suite.ts'
import { tempFiles } from './test/temp-files.ts'

const t = { describe, it, expect, beforeAll, afterAll }
const bun = process.execPath
const harness: SqliteHarness = {
  name: 'Bun, bun:sqlite',
  open: (path) => new Database(path),
  processRuntimes: [bun, bun, bun, bun],
}

const files = tempFiles('sqlite-conformance-bun')
let db: Database | undefined
let path = ''
coordinatorConformance(t, {
  name: `bun-sqlite, ${harness.name}`,
  // The file is made when the suite starts, so a filtered or listing run leaves nothing behind.
  create: () => sqliteCoordinator((db = new Database((path = files.next())))),
  // A restart: close the connection and open the same file again.
  reopen: () => {
    db!.close()
    return sqliteCoordinator((db = new Database(path)))
  },
  close: () => {
    db?.close()
    files.remove()
  },
})

adapterSuite(t, harness)
processSuite(t, harness)
// One file, both runtimes at once: the SQL and the file format are the same, whichever library runs them.
processSuite(t, { ...harness, name: 'Node and Bun processes on one file', processRuntimes: ['node', bun, 'node', bun] })
