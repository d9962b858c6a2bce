/**
 * @module
 * The few methods of a synchronous SQLite handle this adapter uses, and the one way it writes: a
 * `BEGIN IMMEDIATE` transaction retried while the file is locked. `bun:sqlite`'s `Database` and
 * better-sqlite3's both fit {@link SqliteDatabase}, so one SQL implementation serves Bun and Node;
 * neither library is imported here.
 */
import { WaitingRoomError } from '../../src/errors.ts'

/** What this adapter binds: strings and numbers only (no nulls, so both libraries' parameter types accept it). */
export type SqlValue = string | number | bigint

export interface SqliteStatement {
  run(...params: SqlValue[]): unknown
  /** One row; `undefined` (better-sqlite3) or `null` (bun:sqlite) when there is none. */
  get(...params: SqlValue[]): unknown
  all(...params: SqlValue[]): unknown[]
}

/** A synchronous SQLite connection: `new Database(path)` from `bun:sqlite` or `better-sqlite3`. */
export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement
  /** Runs one or more statements without results (both libraries accept several, `;`-separated). */
  exec(sql: string): unknown
}

/** Backoff between attempts after SQLite's own busy wait ran out: doubles from here… */
const FIRST_BACKOFF_MS = 4
/** …up to here, with jitter, so processes that collided do not collide again in step. */
const MAX_BACKOFF_MS = 100

/**
 * SQLITE_BUSY (another connection holds the write lock, also `_SNAPSHOT`/`_RECOVERY`) or SQLITE_LOCKED.
 * Both libraries put the extended code name on `code`; `errno` (bun:sqlite) is the fallback.
 */
export function isBusy(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, errno } = error as { code?: unknown; errno?: unknown }
  if (typeof code === 'string') return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')
  return typeof errno === 'number' && ((errno & 0xff) === 5 || (errno & 0xff) === 6)
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export interface TransactionPolicy {
  /** Adapter name for error messages. */
  adapter: string
  /** Total ms a call keeps retrying a locked file before it fails. */
  maxLockWaitMs: number
}

/** Runs `work` in a write transaction; resolves with its result or rejects with a WaitingRoomError. */
export type Transaction = <T>(what: string, work: () => T) => Promise<T>

/**
 * Every decision is one `BEGIN IMMEDIATE … COMMIT`: the write lock is taken up front, so SQLite's
 * busy handler applies. A deferred transaction that reads and then writes can fail with SQLITE_BUSY
 * at the write, busy_timeout or not, because its read snapshot went stale (WAL: SQLITE_BUSY_SNAPSHOT).
 * `work` is synchronous, so no two transactions of one connection interleave.
 */
export function transactions(db: SqliteDatabase, policy: TransactionPolicy): Transaction {
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  const rollback = db.prepare('ROLLBACK')

  const once = <T>(work: () => T): T => {
    begin.run()
    try {
      const result = work()
      commit.run()
      return result
    } catch (error) {
      try {
        rollback.run()
      } catch {
        // Nothing to roll back: SQLite already ended the transaction (it does on some errors).
      }
      throw error
    }
  }

  return async function transaction<T>(what: string, work: () => T): Promise<T> {
    const started = Date.now()
    for (let attempt = 0; ; attempt++) {
      try {
        return once(work)
      } catch (error) {
        if (!isBusy(error)) {
          throw new WaitingRoomError('ERR_WR_COORDINATOR', `${policy.adapter}: ${what} failed: ${messageOf(error)}`, { cause: error })
        }
        const waited = Date.now() - started
        if (waited >= policy.maxLockWaitMs) {
          throw new WaitingRoomError(
            'ERR_WR_COORDINATOR',
            `${policy.adapter}: ${what} gave up after ${waited} ms: the database file stayed locked (SQLITE_BUSY). ` +
              'Another connection holds a long write transaction: keep its transactions short, or raise maxLockWaitMs.',
            { cause: error },
          )
        }
        // Async backoff: the event loop serves other requests (admitted users need no lock) meanwhile.
        const ceiling = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt)
        await sleep(Math.min(ceiling / 2 + Math.random() * (ceiling / 2), policy.maxLockWaitMs - waited))
      }
    }
  }
}
