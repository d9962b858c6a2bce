/**
 * @module
 * The coordinator's connection, kept on the files its path names: the database, its `-wal` and its `-shm`.
 * Before every write transaction it checks that the path still names the files the connection had when it was
 * opened: one `stat` of the directory and one of the `-shm` while the directory is unchanged since a check found
 * them all in place, one per file after any change in the directory (a file deleted or replaced is one). When one was deleted or replaced under the running processes, it closes
 * the connection and opens the path again, with one log line naming the file, so every process converges
 * on one set of files: for the database (#14.4), a new file holds a new epoch and the core treats the room
 * as recovering; for a `-shm` (#14 breaker 2), a process still on the deleted one would no longer lock
 * against the others and the room would admit up to its limit in each. A file this process cannot write is
 * never handed to SQLite (#14.5: an unwritable `-shm` ended in SIGBUS): every call fails instead, so the
 * room follows its `failMode`, the reason is logged in one line naming the file, and the file is looked at
 * again once per `fileCheckIntervalMs` until it is fixed; so is a connection whose file failed. A `-shm` cut
 * shorter (truncated) under the process would be a SIGBUS at SQLite's next touch of the pages it mapped: its
 * length is given back and its header zeroed first (./database-file.ts `lengthenTo`), then the path reopened.
 *
 * Limit: SQLite shares one `-shm` mapping among the connections of a process to one database file, so
 * while another connection of this process (the app's own) keeps the file open, reopening keeps the old
 * mapping. Such a process is not split from the others by a deleted database file (that is a new file),
 * only by a deleted `-shm`.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { dirname } from 'node:path'
import {
  changedFile, databasePath, directoryStamp, filesOf, identityOf, lengthenTo, sameFile, sameStamp, shmCut, sizeOf, STAMP_SETTLED_MS, statOf, unwritableReason,
  type DirectoryStamp, type FileIdentity,
} from './database-file.ts'
import { isFileError, messageOf, type Connection, type ConnectionSource, type SqliteDatabase, type SqliteStatement } from './driver.ts'
import type { Statements } from './schema.ts'
import { setupError, setUpConnection, STARTUP_LOCK_WAIT_MS, type ResolvedSqliteOptions } from './setup.ts'

export interface FileConnections extends ConnectionSource<Statements> {
  /** The path being watched; undefined for `:memory:` and other handles without a file. */
  readonly path: string | undefined
  /** Closes the open handle; later calls fail. */
  close(): void
}

interface Live {
  /** Closes the handle, its statements first. */
  close(): void
  connection: Connection<Statements>
  /** The database, `-wal` and `-shm` files (see `filesOf`) the path named right after the handle was set up. */
  seen: (FileIdentity | undefined)[]
  /** The largest `-shm` size seen while the handle is open: SQLite may have mapped that much of it. */
  shmSize: number
}

/**
 * `handle`, recording the statements prepared on it so that `close` can finalize them first: bun:sqlite's
 * `close()` leaves a connection with live statements open (`sqlite3_close_v2`) until they are collected, and
 * while it is, SQLite keeps this process on the `-shm` mapping it had, so a reopen would not reach a new one.
 */
function owned(handle: SqliteDatabase): { db: SqliteDatabase; close(): void } {
  const statements: SqliteStatement[] = []
  const db: SqliteDatabase = {
    prepare(sql) {
      const statement = handle.prepare(sql)
      statements.push(statement)
      return statement
    },
    exec: (sql) => handle.exec(sql),
  }
  const close = (): void => {
    try {
      for (const statement of statements) statement.finalize?.()
      handle.close?.()
    } catch {
      // Already closed: nothing this process can do about it.
    }
  }
  return { db, close }
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
  const files = path === undefined ? [] : filesOf(path)
  const directory = path === undefined ? undefined : dirname(path)
  const reopen = o.reopen ?? reopenWithClassOf(adapter, db)
  let live: Live | undefined
  /** A handle left open on a cut `-shm` it could not lengthen: not closed, nor used, until the file is long enough. */
  let mapped: Live | undefined
  let problem: WaitingRoomError | undefined
  let suspect = false
  let closed = false
  let checkedAt = Date.now()
  /**
   * The directory's stamp when a check last found the live connection's files unchanged, kept once settled
   * (`STAMP_SETTLED_MS`): while the directory still shows it, a check stats only it and the `-shm` (#16).
   */
  let settled: DirectoryStamp | undefined
  /** While the handle passed in is set up, with `requireUsableFile`: a file that cannot be used throws. */
  let refuse = o.requireUsableFile

  /** Records why there is no usable connection; logs it once (one line), not on every call. */
  const fail = (reason: string, cause?: unknown): void => {
    if (refuse) throw new WaitingRoomError('ERR_WR_COORDINATOR', `${adapter}: ${reason}`, { cause })
    const checked = `checked every ${o.fileCheckIntervalMs} ms`
    const message = `${adapter}: ${reason}; new users follow the room's failMode until it is fixed (${checked})`
    if (problem?.message.endsWith(message) !== true) console.error(`[hono-waiting-room] ${message}`)
    problem = new WaitingRoomError('ERR_WR_COORDINATOR', message, { cause })
  }

  /** Opens `handle` as the live connection, unless its file cannot be written. */
  const adopt = (handle: SqliteDatabase, lockWaitMs: number): void => {
    const reason = path === undefined ? undefined : unwritableReason(path)
    const { db: tracked, close } = owned(handle)
    if (reason !== undefined) {
      close()
      return fail(reason)
    }
    try {
      const connection = setUpConnection(tracked, o, lockWaitMs)
      // After the setup's statements: SQLite has created the -wal and -shm by now.
      live = { close, connection, seen: files.map(identityOf), shmSize: sizeOf(`${path}-shm`) ?? 0 }
      settled = undefined
      suspect = false
      if (problem) console.error(`[hono-waiting-room] ${adapter}: ${path} is usable again`)
      problem = undefined
    } catch (error) {
      close()
      if (!isFileError(error) && lockWaitMs > 0) throw setupError(adapter, error)
      fail(`${path ?? 'the database'} cannot be used: ${messageOf(error)}`, error)
    }
  }

  /** Opens the path again, in place of the live connection if there is one. */
  const reopenPath = (why: string | undefined): void => {
    if (path === undefined) return
    if (live) {
      // SQLite neither checkpoints nor deletes the -wal of a moved or deleted file on close: the new file's is safe.
      // With another process on the file, closing after a deleted -wal/-shm checkpoints and deletes nothing either;
      // as the last one, it checkpoints what its (deleted) -wal held into the database first, so nothing is lost.
      if (why !== undefined) console.error(`[hono-waiting-room] ${adapter}: ${why}; opening ${path} again`)
      live.close()
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

  /**
   * The `-shm` was cut (truncated) under this process: give it its length back before SQLite touches the
   * mapping again, then open the path again. When it cannot be lengthened, the handle is set aside unclosed
   * (closing it would touch the mapping: SIGBUS), every call fails (failMode), and the path is opened again
   * once a check finds the file long enough — SQLite shares one mapping per database file in a process.
   */
  const restoreShm = (size: number): void => {
    const shm = files[2]!
    const why = `${shm} was cut to ${size} bytes under this process (SQLite had mapped up to ${live!.shmSize})`
    try {
      lengthenTo(shm, live!.shmSize)
    } catch (error) {
      mapped = live
      live = undefined
      return fail(`${why} and cannot be lengthened again: ${messageOf(error)}`, error)
    }
    reopenPath(`${why}; lengthened it again and cleared its header (SQLite rebuilds its index from the -wal)`)
  }

  /** Before a transaction: the live connection's files still there, or (once per interval) a new try. */
  const check = (): void => {
    if (path === undefined) return
    if (live && !suspect) {
      // The directory first: a file replaced after this stat changes the stamp the next check compares.
      const stamp = directoryStamp(directory!)
      const shm = statOf(files[2]!) // its identity and its size in one stat
      if (!sameStamp(stamp, settled) || (live.seen[2] !== undefined && !sameFile(shm, live.seen[2]))) {
        settled = undefined
        const changed = changedFile(files, live.seen)
        if (changed !== undefined) return reopenPath(`${changed} was deleted or replaced under this process`)
        if (stamp !== undefined && Date.now() - Math.max(stamp.mtimeMs, stamp.ctimeMs) >= STAMP_SETTLED_MS) settled = stamp
      }
      const size = shm?.size
      if (shmCut(size, live.shmSize)) return restoreShm(size!)
      if (size !== undefined && size > live.shmSize) live.shmSize = size
      return
    }
    const now = Date.now()
    if (now - checkedAt < o.fileCheckIntervalMs) return
    checkedAt = now
    if (mapped && shmCut(sizeOf(files[2]!), mapped.shmSize)) return // still cut: the old mapping must not be touched
    mapped?.close()
    mapped = undefined
    reopenPath(undefined) // a suspect connection was logged by failed(), a missing one by fail()
  }

  adopt(db, STARTUP_LOCK_WAIT_MS)
  refuse = false

  return {
    path,
    current() {
      if (closed) throw new WaitingRoomError('ERR_WR_COORDINATOR', `${adapter}: the coordinator was closed`)
      check()
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
      live?.close()
      live = undefined
    },
  }
}
