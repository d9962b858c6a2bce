/**
 * @module
 * Options, checked once when the coordinator is built, and the start-up work on the handle: busy
 * timeout, WAL, synchronous level, tables, prepared statements.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { isBusy, type SqliteDatabase } from './driver.ts'
import { prepareStatements, schemaSql, tablesFor, type Statements } from './schema.ts'

export interface SqliteCoordinatorOptions {
  /**
   * How long SQLite itself waits for another connection's write lock before answering busy, in ms
   * (`PRAGMA busy_timeout`). The thread is blocked meanwhile, so it is short; after it the adapter
   * retries with an async backoff. Default 50.
   */
  busyTimeoutMs?: number
  /**
   * Total time one call keeps retrying a locked file before it fails with `ERR_WR_COORDINATOR`, in ms.
   * Default 1000, the middleware's default `coordinatorTimeoutMs`.
   */
  maxLockWaitMs?: number
  /** How often workers report, in ms, unless the middleware's `syncIntervalMs` is set. Default 200: a local file is cheap. */
  syncIntervalMs?: number
  /** Prefix of the tables this adapter creates, so the file can hold the app's tables too. Default `wr_`. */
  tablePrefix?: string
  /**
   * `normal` (default): a commit survives any process crash (WAL), the last commits may be lost on power
   * loss. `full`: also survives power loss, at an fsync per decision.
   */
  synchronous?: 'normal' | 'full'
}

export type ResolvedSqliteOptions = Required<SqliteCoordinatorOptions>

/** SQLite's own busy wait while tables are created: every process of a host may start at once. */
const SETUP_BUSY_TIMEOUT_MS = 5000

function invalid(adapter: string, field: string, expected: string, value: unknown): WaitingRoomError {
  return new WaitingRoomError('ERR_WR_OPTIONS', `${adapter}: invalid option ${field}: expected ${expected}, got ${JSON.stringify(value)}`)
}

function msOption(adapter: string, field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 60_000) {
    throw invalid(adapter, field, 'an integer of ms from 0 to 60000', value)
  }
  return value
}

export function resolveOptions(adapter: string, options: SqliteCoordinatorOptions): ResolvedSqliteOptions {
  const tablePrefix = options.tablePrefix ?? 'wr_'
  if (typeof tablePrefix !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,31}$/.test(tablePrefix)) {
    throw invalid(adapter, 'tablePrefix', 'a letter or _ then up to 31 letters, digits or _', tablePrefix)
  }
  const synchronous = options.synchronous ?? 'normal'
  if (synchronous !== 'normal' && synchronous !== 'full') throw invalid(adapter, 'synchronous', '"normal" or "full"', synchronous)
  return {
    busyTimeoutMs: msOption(adapter, 'busyTimeoutMs', options.busyTimeoutMs, 50),
    maxLockWaitMs: msOption(adapter, 'maxLockWaitMs', options.maxLockWaitMs, 1000),
    syncIntervalMs: msOption(adapter, 'syncIntervalMs', options.syncIntervalMs, 200),
    tablePrefix,
    synchronous,
  }
}

/** Prepares the handle and returns the statements; throws a WaitingRoomError that says what to fix. */
export function openSchema(adapter: string, db: SqliteDatabase, o: ResolvedSqliteOptions): Statements {
  const tables = tablesFor(o.tablePrefix)
  const deadline = Date.now() + SETUP_BUSY_TIMEOUT_MS
  for (;;) {
    try {
      return setUp(adapter, db, o, tables)
    } catch (error) {
      // Two processes opening a new file at once: switching it to WAL can fail with SQLITE_BUSY at once,
      // without the busy handler ever being asked, so the whole setup is tried again until the deadline.
      if (error instanceof WaitingRoomError || !isBusy(error) || Date.now() >= deadline) throw setupError(adapter, error)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.floor(Math.random() * 40))
    }
  }
}

function setUp(adapter: string, db: SqliteDatabase, o: ResolvedSqliteOptions, tables: ReturnType<typeof tablesFor>): Statements {
  db.exec(`PRAGMA busy_timeout = ${SETUP_BUSY_TIMEOUT_MS}`)
  const mode = (db.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode?: string } | null)?.journal_mode
  // `memory` is a `:memory:` database: one process only, which is fine for tests and a single server.
  if (mode !== 'wal' && mode !== 'memory') {
    throw new WaitingRoomError(
      'ERR_WR_COORDINATOR',
      `${adapter}: the database did not switch to WAL (journal_mode is ${mode}). Use a writable file on a local disk; ` +
        'WAL needs shared memory, which network filesystems do not offer.',
    )
  }
  db.exec(`PRAGMA synchronous = ${o.synchronous.toUpperCase()}`)
  db.exec('BEGIN IMMEDIATE')
  try {
    db.exec(schemaSql(tables))
    db.exec('COMMIT')
  } catch (error) {
    try {
      db.exec('ROLLBACK')
    } catch {
      // SQLite already ended the transaction.
    }
    throw error
  }
  const statements = prepareStatements(db, tables)
  db.exec(`PRAGMA busy_timeout = ${o.busyTimeoutMs}`)
  return statements
}

function setupError(adapter: string, error: unknown): WaitingRoomError {
  if (error instanceof WaitingRoomError) return error
  const why = isBusy(error)
    ? `the file stayed locked for ${SETUP_BUSY_TIMEOUT_MS / 1000} s while starting: another connection holds a long transaction on it`
    : `${error instanceof Error ? error.message : String(error)}. Pass an open, writable bun:sqlite or better-sqlite3 Database`
  return new WaitingRoomError('ERR_WR_COORDINATOR', `${adapter}: could not set up the database: ${why}`, { cause: error })
}
