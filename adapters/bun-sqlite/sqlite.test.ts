import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { sqliteCoordinator } from './index.ts'
import { sqliteStoreCoordinator } from './node.ts'
import { adapterSuite } from './test/adapter-suite.ts'
import { busySuite } from './test/busy-suite.ts'
import { fileSuite } from './test/file-suite.ts'
import type { SqliteHarness } from './test/harness.ts'
import { processSuite } from './test/process-suite.ts'
import { conformanceHarness } from './test/conformance-harness.ts'
import { tempFiles } from './test/temp-files.ts'

const t = { describe, it, expect, beforeAll, afterAll }
const harness: SqliteHarness = {
  name: 'Node, better-sqlite3',
  open: (path) => new Database(path),
  // `node` runs the workers: plain .mjs, with the adapter's .ts transpiled by test/ts-hooks.mjs.
  processRuntimes: [process.execPath, process.execPath, process.execPath, process.execPath],
}

coordinatorConformance(t, conformanceHarness(harness))

adapterSuite(t, harness)
processSuite(t, harness)
busySuite(t, harness)
fileSuite(t, harness)

describe('sqliteStoreCoordinator (node.ts, for --store)', () => {
  const store = tempFiles('sqlite-store')
  afterAll(() => store.remove())

  it('opens the file at a path, shared with other connections to it', async () => {
    const path = store.next()
    const coordinator = sqliteStoreCoordinator(path)
    const other = new Database(path)
    const take = (c: { increment: typeof coordinator.increment }, token: string) =>
      c.increment({ roomId: 'store', scope: 'host', minute: 1, limit: 1, token })
    expect(await take(coordinator, 'a')).toEqual({ taken: true, seq: 0 })
    expect(await take(sqliteCoordinator(other), 'b')).toEqual({ taken: false, seq: 1 })
    other.close()
    coordinator.close()
  })

  it('says what to fix when the file cannot be opened', () => {
    expect(() => sqliteStoreCoordinator(`${store.next()}/missing-dir/room.db`)).toThrow(/bun-sqlite: cannot open .*directory exists/)
  })
})
