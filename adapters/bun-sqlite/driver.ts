/**
 * @module
 * The few methods of a synchronous SQLite handle this adapter uses, which errors mean what, and one
 * connection's write path (`BEGIN IMMEDIATE` transactions and savepoints; ./writer.ts queues the calls).
 * `bun:sqlite`'s `Database` and better-sqlite3's both fit {@link SqliteDatabase}, so one SQL implementation
 * serves Bun and Node; neither library is imported here.
 */
import { WaitingRoomError } from '../../src/errors.ts'

/** What this adapter binds: strings and numbers only (no nulls, so both libraries' parameter types accept it). */
export type SqlValue = string | number | bigint

export interface SqliteStatement {
  run(...params: SqlValue[]): unknown
  /** One row; `undefined` (better-sqlite3) or `null` (bun:sqlite) when there is none. */
  get(...params: SqlValue[]): unknown
  all(...params: SqlValue[]): unknown[]
  /** bun:sqlite only (better-sqlite3's `close()` finalizes its statements itself). */
  finalize?(): unknown
  /**
   * better-sqlite3: `raw(true)` answers rows as arrays of values (schema.ts `valueRows`). bun:sqlite has a `raw`
   * too, which runs the statement: told apart by better-sqlite3's `pluck`.
   */
  raw?(toggle: boolean): unknown
  pluck?(toggle: boolean): unknown
}

/** A synchronous SQLite connection: `new Database(path)` from `bun:sqlite` or `better-sqlite3`. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement
  /** Runs one or more statements without results (both libraries accept several, `;`-separated). */
  exec(sql: string): unknown
  /** Both libraries have it; the coordinator closes a handle whose file was deleted or replaced. */
  close?(): unknown
}

/** Low byte of SQLite's result codes, for bun:sqlite errors that carry only `errno`. */
const BUSY = [5, 6] // SQLITE_BUSY, SQLITE_LOCKED
const FILE_ERRORS = [8, 10, 11, 13, 14, 26] // READONLY, IOERR, CORRUPT, FULL, CANTOPEN, NOTADB

function sqliteCode(error: unknown): { code?: string; primary?: number } {
  if (typeof error !== 'object' || error === null) return {}
  const { code, errno } = error as { code?: unknown; errno?: unknown }
  return { code: typeof code === 'string' ? code : undefined, primary: typeof errno === 'number' ? errno & 0xff : undefined }
}

/**
 * SQLITE_BUSY (another connection holds the write lock, also `_SNAPSHOT`/`_RECOVERY`) or SQLITE_LOCKED.
 * Both libraries put the extended code name on `code`; `errno` (bun:sqlite) is the fallback.
 */
export function isBusy(error: unknown): boolean {
  const { code, primary } = sqliteCode(error)
  if (code !== undefined) return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')
  return primary !== undefined && BUSY.includes(primary)
}

/**
 * An error that says the file itself is unusable, not that it is busy: read-only (permissions, a file
 * replaced under the connection), I/O error, cannot open, corrupt, full, not a database.
 */
export function isFileError(error: unknown): boolean {
  const { code, primary } = sqliteCode(error)
  if (code !== undefined) return /^SQLITE_(READONLY|IOERR|CORRUPT|FULL|CANTOPEN|NOTADB)/.test(code)
  return primary !== undefined && FILE_ERRORS.includes(primary)
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** One connection's write path: its statements, write transactions and savepoints. */
export interface Connection<S> {
  statements: S
  /** Runs `work` in one write transaction, at once: throws SQLITE_BUSY rather than wait for the lock. */
  attempt<T>(work: () => T): T
  /** Runs `work` inside the open transaction so that its failure undoes only its own writes. */
  savepoint<T>(work: () => T): T
}

/** Where each attempt finds its connection: the file may be reopened between two attempts. */
export interface ConnectionSource<S> {
  /** The connection to use now; throws a WaitingRoomError saying why there is none. */
  current(): Connection<S>
  /** `connection` failed with a file error (see {@link isFileError}): look at the file again now. */
  failed(connection: Connection<S>, error: unknown): void
}

/** `work` then `done`; if either fails, `undo` (whose own failure is ignored: SQLite ends a transaction itself on some errors). */
function undoing<T>(work: () => T, done: () => void, undo: () => void): T {
  try {
    const result = work()
    done()
    return result
  } catch (error) {
    try {
      undo()
    } catch {
      // Nothing to undo: SQLite already ended the transaction.
    }
    throw error
  }
}

/**
 * The write path of `db`. A transaction starts with `BEGIN IMMEDIATE`, so a locked file answers SQLITE_BUSY
 * at once (the busy timeout is 0), never in the middle: a deferred transaction that reads and then writes
 * can fail at the write because its read snapshot went stale (WAL: SQLITE_BUSY_SNAPSHOT). Everything is
 * synchronous, so no two transactions of one connection interleave.
 */
export function connectionOf<S>(db: SqliteDatabase, statements: S): Connection<S> {
  const sql = (text: string) => db.prepare(text)
  const [begin, commit, rollback] = [sql('BEGIN IMMEDIATE'), sql('COMMIT'), sql('ROLLBACK')]
  const [mark, release, rollbackTo] = [sql('SAVEPOINT wr_call'), sql('RELEASE wr_call'), sql('ROLLBACK TO wr_call')]
  return {
    statements,
    attempt(work) {
      begin.run()
      return undoing(work, () => commit.run(), () => rollback.run())
    },
    savepoint(work) {
      mark.run()
      return undoing(work, () => release.run(), () => {
        rollbackTo.run()
        release.run()
      })
    },
  }
}
