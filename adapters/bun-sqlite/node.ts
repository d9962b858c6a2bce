/// <reference types="node" />
/**
 * @module
 * The SQLite coordinator on Node, opened from a path with better-sqlite3: what the standalone proxy's
 * `--store ./room.db` uses, so every proxy process on the host shares one room. better-sqlite3 is loaded
 * when called, so a missing install is a message that says what to install, not a failed import.
 *
 * @example
 * ```ts
 * import { sqliteStoreCoordinator } from 'hono-waiting-room/bun-sqlite/node'
 * app.use(waitingRoom({ coordinator: sqliteStoreCoordinator('./room.db') }))
 * ```
 */
import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'
import { WaitingRoomError } from '../../src/errors.ts'
import { DRIVER_NAME, sqliteCoordinator, type SqliteCoordinator, type SqliteCoordinatorOptions } from './index.ts'

/** The coordinator over a path (`close()` closes the database it opened). */
export type SqliteStoreCoordinator = SqliteCoordinator

/**
 * better-sqlite3's compiled part failed to load: built for another Node.js (`NODE_MODULE_VERSION`, after a Node
 * upgrade or `nvm use`) or for another platform. Node's message spans several lines and its advice (rebuild) is
 * right, but it comes out of `new Database(path)`, where it would read as a problem with the file; so it is
 * one line about the package, saying how to rebuild it.
 */
export function nativeBuildError(error: unknown): WaitingRoomError | undefined {
  const message = error instanceof Error ? error.message : String(error)
  const code = (error as { code?: unknown } | null)?.code
  if (code !== 'ERR_DLOPEN_FAILED' && !/NODE_MODULE_VERSION|better_sqlite3\.node/.test(message)) return undefined
  const versions = [...message.matchAll(/NODE_MODULE_VERSION (\d+)/g)].map((match) => match[1])
  const why =
    versions.length === 2
      ? `was built for another Node.js (NODE_MODULE_VERSION ${versions[0]}; this Node.js ${process.version} needs ${versions[1]})`
      : `could not load its compiled module (${message.replace(/\s+/g, ' ').trim()})`
  return new WaitingRoomError(
    'ERR_WR_COORDINATOR',
    `${DRIVER_NAME}: better-sqlite3 ${why}: rebuild it with this Node.js (npm rebuild better-sqlite3, or reinstall it)`,
    { cause: error },
  )
}

function loadBetterSqlite3(): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3
  } catch (error) {
    const native = nativeBuildError(error)
    if (native) throw native
    throw new WaitingRoomError(
      'ERR_WR_COORDINATOR',
      `${DRIVER_NAME}: better-sqlite3 could not be loaded (${error instanceof Error ? error.message : String(error)}). ` +
        'Install it next to hono-waiting-room: npm install better-sqlite3',
      { cause: error },
    )
  }
}

/** Opens (or creates) the SQLite file at `path` and returns a coordinator over it. */
export function sqliteStoreCoordinator(path: string, options?: SqliteCoordinatorOptions): SqliteStoreCoordinator {
  const Database = loadBetterSqlite3()
  let db: BetterSqlite3.Database
  try {
    db = new Database(path)
  } catch (error) {
    // better-sqlite3 loads its compiled module on the first `new Database`, not on require.
    const native = nativeBuildError(error)
    if (native) throw native
    throw new WaitingRoomError(
      'ERR_WR_COORDINATOR',
      `${DRIVER_NAME}: cannot open ${path}: ${error instanceof Error ? error.message : String(error)}. Check that its directory exists and is writable.`,
      { cause: error },
    )
  }
  try {
    // The default reopen (`new (db.constructor)(path)`) is this same better-sqlite3 class.
    return sqliteCoordinator(db, options)
  } catch (error) {
    if (db.open) db.close()
    throw error
  }
}
