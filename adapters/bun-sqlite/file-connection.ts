/**
 * @module
 * The coordinator's connection, kept on the file its path names. Once a second (`fileCheckIntervalMs`; one
 * `stat`) it checks that the path still names the file the connection has open. When the file was deleted
 * or replaced under the running processes, it closes the connection and opens the path again, so every
 * process converges on one file (#14.4) — a new file holds a new epoch, and the core treats the room as
 * recovering. A file this process cannot write is never handed to SQLite (#14.5: an unwritable `-shm`
 * ended in SIGBUS): every call fails instead, so the room follows its `failMode`, the reason is logged in
 * one line naming the file, and the file is looked at again at each check until it is fixed.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { databasePath, identityOf, sameFile, unwritableReason, type FileIdentity } from './database-file.ts'
import { isFileError, messageOf, type Connection, type ConnectionSource, type SqliteDatabase } from './driver.ts'
import type { Statements } from './schema.ts'
import { setupError, setUpConnection, STARTUP_LOCK_WAIT_MS, type ResolvedSqliteOptions } from './setup.ts'

export interface FileConnections extends ConnectionSource<Statements> {
  /** The path being watched; undefined for `:memory:` and other handles without a file. */
  readonly path: string | undefined
  /** Closes the open handle; later calls fail. */
  close(): void
}

interface Live {
  db: SqliteDatabase
  connection: Connection<Statements>
  /** The file the handle has open (as its path named it right after opening). */
  identity: FileIdentity | undefined
}

const closeQuietly = (db: SqliteDatabase): void => {
  try {
    db.close?.()
  } catch {
    // Already closed, or statements still open: nothing this process can do about it.
  }
}

/** `new (db.constructor)(path)`: both libraries' Database classes open a path. */
function reopenWithClassOf(adapter: string, db: SqliteDatabase): (path: string) => SqliteDatabase {
  const Class = (db as { constructor?: unknown }).constructor
  return (path) => {
    if (typeof Class !== 'function' || Class === Object) {
      throw new Error(`cannot open ${path} again: pass options.reopen to ${adapter}'s sqliteCoordinator()`)
    }
    return new (Class as new (path: string) => SqliteDatabase)(path)
  }
}

/**
 * Sets up `db` (the handle passed in; the coordinator owns it from now on). Throws a WaitingRoomError for a
 * handle that cannot be used for other reasons than its file (not a database handle, WAL refused).
 */
export function fileConnections(adapter: string, db: SqliteDatabase, o: ResolvedSqliteOptions): FileConnections {
  const path = databasePath(db)
  const reopen = o.reopen ?? reopenWithClassOf(adapter, db)
  let live: Live | undefined
  let problem: WaitingRoomError | undefined
  let suspect = false
  let closed = false
  let checkedAt = Date.now()

  /** Records why there is no usable connection; logs it once (one line), not on every call. */
  const fail = (reason: string, cause?: unknown): void => {
    const checked = `checked every ${o.fileCheckIntervalMs} ms`
    const message = `${adapter}: ${reason}; new users follow the room's failMode until it is fixed (${checked})`
    if (problem?.message.endsWith(message) !== true) console.error(`[hono-waiting-room] ${message}`)
    problem = new WaitingRoomError('ERR_WR_COORDINATOR', message, { cause })
  }

  /** Opens `handle` as the live connection, unless its file cannot be written. */
  const adopt = (handle: SqliteDatabase, lockWaitMs: number): void => {
    const reason = path === undefined ? undefined : unwritableReason(path)
    if (reason !== undefined) {
      closeQuietly(handle)
      return fail(reason)
    }
    try {
      const connection = setUpConnection(handle, o, lockWaitMs)
      live = { db: handle, connection, identity: path === undefined ? undefined : identityOf(path) }
      suspect = false
      if (problem) console.error(`[hono-waiting-room] ${adapter}: ${path} is usable again`)
      problem = undefined
    } catch (error) {
      closeQuietly(handle)
      if (!isFileError(error) && lockWaitMs > 0) throw setupError(adapter, error)
      fail(`${path ?? 'the database'} cannot be used: ${messageOf(error)}`, error)
    }
  }

  /** Keeps the connection on the file the path names; reopens it when that changed or the connection failed. */
  const check = (): void => {
    if (path === undefined) return
    if (live && !suspect && sameFile(identityOf(path), live.identity)) return
    if (live) {
      // SQLite neither checkpoints nor deletes the -wal of a moved or deleted file on close: the new file's is safe.
      if (!suspect) console.error(`[hono-waiting-room] ${adapter}: ${path} was deleted or replaced under this process; opening it again`)
      closeQuietly(live.db)
      live = undefined
    }
    let handle: SqliteDatabase
    try {
      handle = reopen(path)
    } catch (error) {
      return fail(`cannot open ${path}: ${messageOf(error)}`, error)
    }
    adopt(handle, 0)
  }

  adopt(db, STARTUP_LOCK_WAIT_MS)

  return {
    path,
    current() {
      if (closed) throw new WaitingRoomError('ERR_WR_COORDINATOR', `${adapter}: the coordinator was closed`)
      const now = Date.now()
      if (now - checkedAt >= o.fileCheckIntervalMs) {
        checkedAt = now
        check()
      }
      if (live) return live.connection
      throw problem ?? new WaitingRoomError('ERR_WR_COORDINATOR', `${adapter}: no database connection`)
    },
    failed(connection, error) {
      if (live?.connection !== connection || suspect) return
      // Read-only or I/O errors: the file may have been replaced, or its -shm opened read-only; reopen at the next check.
      suspect = true
      const reason = path === undefined ? undefined : unwritableReason(path)
      console.error(`[hono-waiting-room] ${adapter}: ${reason ?? `${path ?? 'the database'}: ${messageOf(error)}`}; opening it again`)
    },
    close() {
      closed = true
      if (live) closeQuietly(live.db)
      live = undefined
    },
  }
}
