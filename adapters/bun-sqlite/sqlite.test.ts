import Database from 'better-sqlite3'
import { writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { coordinatorConformance } from '../../test/conformance/coordinator-suite.ts'
import { referencesConformance } from '../../test/conformance/references-suite.ts'
import { sqliteCoordinator } from './index.ts'
import { nativeBuildError, sqliteStoreCoordinator } from './node.ts'
import { adapterSuite } from './test/adapter-suite.ts'
import { busySuite } from './test/busy-suite.ts'
import { fileSuite } from './test/file-suite.ts'
import type { SqliteHarness } from './test/harness.ts'
import { processSuite } from './test/process-suite.ts'
import { conformanceHarness, referencesHarness } from './test/conformance-harness.ts'
import { tempFiles } from './test/temp-files.ts'

const t = { describe, it, expect, beforeAll, afterAll }
const harness: SqliteHarness = {
  name: 'Node, better-sqlite3',
  open: (path) => new Database(path),
  // `node` runs the workers: plain .mjs, with the adapter's .ts transpiled by test/ts-hooks.mjs.
  processRuntimes: [process.execPath, process.execPath, process.execPath, process.execPath],
}

coordinatorConformance(t, conformanceHarness(harness))
referencesConformance(t, referencesHarness(harness))

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

  it('with requireUsableFile, refuses a file that is not a database at once, without logging; without it, logs and fails calls', async () => {
    const path = store.next()
    writeFileSync(path, 'not a database\n'.repeat(100))
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      expect(() => sqliteStoreCoordinator(path, { requireUsableFile: true })).toThrow(/^\[hono-waiting-room\] bun-sqlite: .* cannot be used: file is not a database$/)
      expect(logged).not.toHaveBeenCalled()
      const lenient = sqliteStoreCoordinator(path)
      expect(logged).toHaveBeenCalledTimes(1)
      await expect(lenient.increment({ roomId: 'store', scope: 'host', minute: 1, limit: 1, token: 'a' })).rejects.toThrow(/file is not a database/)
      lenient.close()
    } finally {
      logged.mockRestore()
    }
    expect(() => sqliteStoreCoordinator(store.next(), { requireUsableFile: 'yes' as never })).toThrow(/invalid option requireUsableFile/)
  })

  it('says to rebuild better-sqlite3, in one line, when its compiled module is for another Node.js', () => {
    // Node's own wording (ERR_DLOPEN_FAILED), several lines, as after a Node upgrade.
    const dlopen = Object.assign(
      new Error(
        "The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 115. This version of Node.js requires\nNODE_MODULE_VERSION 127. Please try re-compiling or re-installing\nthe module (for instance, using `npm rebuild` or `npm install`).",
      ),
      { code: 'ERR_DLOPEN_FAILED' },
    )
    const error = nativeBuildError(dlopen)!
    expect(error.message).toMatch(/^\[hono-waiting-room\] bun-sqlite: better-sqlite3 was built for another Node\.js \(NODE_MODULE_VERSION 115; this Node\.js v[\d.]+ needs 127\): rebuild it .*npm rebuild better-sqlite3/)
    expect(error.message).not.toContain('\n')
    expect(error.cause).toBe(dlopen)
    expect(nativeBuildError(Object.assign(new Error('wrong ELF class: ELFCLASS32'), { code: 'ERR_DLOPEN_FAILED' }))!.message).toMatch(/could not load its compiled module \(wrong ELF class: ELFCLASS32\)/)
    expect(nativeBuildError(Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' }))).toBeUndefined()
  })
})
