/**
 * @module
 * Options, checked once when the coordinator is built, and the work that makes a handle ready: WAL, the
 * synchronous level, the tables (created only when missing, so a reopen takes no write lock), prepared
 * statements, and a busy timeout of 0 — no SQLite call ever sleeps on the thread once the room serves.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { connectionOf, isBusy, messageOf, type Connection, type SqliteDatabase } from './driver.ts'
import { prepareStatements, schemaSql, tablesFor, type Statements, type Tables } from './schema.ts'

export interface SqliteCoordinatorOptions {
  /**
   * How long a new user's decision (`increment`, `takeSlot`) keeps retrying a file another connection has
   * locked, in ms, before it fails with `ERR_WR_COORDINATOR` and the room applies its `failMode`. Retries
   * wait asynchronously: requests of admitted users go on meanwhile. Keep it below the room's
   * `coordinatorTimeoutMs` (default 1000) so the adapter gives up first. Default 250.
   */
  maxLockWaitMs?: number | undefined
  /**
   * The same for a background report (`sync`), which no user waits for (but a worker's very first one). Default
   * 1000.
   */
  maxSyncLockWaitMs?: number | undefined
  /**
   * How often, in ms, a file that could not be used (unwritable, or it failed with an I/O error) is looked at
   * and opened again. Default 1000. (A database, `-wal` or `-shm` file deleted or replaced under the running
   * processes is noticed before the next transaction, whatever this is: one `stat` per file.)
   */
  fileCheckIntervalMs?: number | undefined
  /** How often workers report, in ms, unless the middleware's `syncIntervalMs` is set. Default 200: a local file is cheap. */
  syncIntervalMs?: number | undefined
  /** Prefix of the tables this adapter creates, so the file can hold the app's tables too. Default `wr_`. */
  tablePrefix?: string | undefined
  /**
   * `normal` (default): a commit survives any process crash (WAL), the last commits may be lost on power
   * loss. `full`: also survives power loss, at an fsync per decision.
   */
  synchronous?: 'normal' | 'full' | undefined
  /**
   * Opens the file again when the one the handle opened was deleted or replaced, or could not be written at
   * first. Default: the handle's own class, `new (db.constructor)(path)` — both `bun:sqlite` and
   * better-sqlite3 open a path that way. Pass it when the handle was opened with options of its own.
   */
  reopen?: ((path: string) => SqliteDatabase) | undefined
  /**
   * `true`: a file that cannot be used when the coordinator is built (not a database, not writable) throws
   * there and then, instead of being logged while the room follows its `failMode` until the file is fixed.
   * For a program that should refuse to start (the CLI's `--store`) rather than queue everyone. Default false:
   * a server started before its disk is ready recovers by itself.
   */
  requireUsableFile?: boolean | undefined
}

export type ResolvedSqliteOptions = Required<Omit<SqliteCoordinatorOptions, 'reopen'>> & Pick<SqliteCoordinatorOptions, 'reopen'>

/** SQLite's own busy wait while tables are created at start-up: every process of a host may start at once. */
export const STARTUP_LOCK_WAIT_MS = 5000

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
  if (options.reopen !== undefined && typeof options.reopen !== 'function') {
    throw invalid(adapter, 'reopen', 'a function (path) => Database', typeof options.reopen)
  }
  const requireUsableFile = options.requireUsableFile ?? false
  if (typeof requireUsableFile !== 'boolean') throw invalid(adapter, 'requireUsableFile', 'true or false', requireUsableFile)
  return {
    maxLockWaitMs: msOption(adapter, 'maxLockWaitMs', options.maxLockWaitMs, 250),
    maxSyncLockWaitMs: msOption(adapter, 'maxSyncLockWaitMs', options.maxSyncLockWaitMs, 1000),
    fileCheckIntervalMs: msOption(adapter, 'fileCheckIntervalMs', options.fileCheckIntervalMs, 1000),
    syncIntervalMs: msOption(adapter, 'syncIntervalMs', options.syncIntervalMs, 200),
    tablePrefix,
    synchronous,
    requireUsableFile,
    reopen: options.reopen,
  }
}

/**
 * Makes `db` ready and returns its connection. `lockWaitMs` > 0 (start-up, before the room serves) retries a
 * busy file until then, sleeping on the thread; 0 (a reopen while serving) tries once and throws SQLITE_BUSY.
 */
export function setUpConnection(db: SqliteDatabase, o: ResolvedSqliteOptions, lockWaitMs: number): Connection<Statements> {
  const tables = tablesFor(o.tablePrefix)
  const deadline = Date.now() + lockWaitMs
  for (;;) {
    try {
      return setUp(db, o, tables, lockWaitMs)
    } catch (error) {
      // Two processes opening a new file at once: switching it to WAL can fail with SQLITE_BUSY at once,
      // without the busy handler ever being asked, so the whole setup is tried again until the deadline.
      if (!isBusy(error) || Date.now() >= deadline) throw error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.floor(Math.random() * 40))
    }
  }
}

function setUp(db: SqliteDatabase, o: ResolvedSqliteOptions, tables: Tables, lockWaitMs: number): Connection<Statements> {
  db.exec(`PRAGMA busy_timeout = ${lockWaitMs}`)
  try {
    const mode = (db.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode?: string } | null)?.journal_mode
    // `memory` is a `:memory:` database: one process only, which is fine for tests and a single server.
    if (mode !== 'wal' && mode !== 'memory') {
      throw new WaitingRoomError(
        'ERR_WR_COORDINATOR',
        `the database did not switch to WAL (journal_mode is ${mode}). Use a writable file on a local disk; ` +
          'WAL needs shared memory, which network filesystems do not offer.',
      )
    }
    db.exec(`PRAGMA synchronous = ${o.synchronous.toUpperCase()}`)
    if (!hasTables(db, tables)) createTables(db, tables)
    return connectionOf(db, prepareStatements(db, tables))
  } finally {
    db.exec('PRAGMA busy_timeout = 0')
  }
}

function hasTables(db: SqliteDatabase, tables: Tables): boolean {
  const names = Object.values(tables)
  const list = names.map(() => '?').join(', ')
  const found = db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN (${list})`).get(...names)
  return (found as { n: number }).n === names.length
}

/** In a write transaction, so processes starting together agree. */
function createTables(db: SqliteDatabase, tables: Tables): void {
  db.exec('BEGIN IMMEDIATE')
  try {
    db.exec(schemaSql(tables))
    copyLegacyTokens(db, tables)
    db.exec('COMMIT')
  } catch (error) {
    try {
      db.exec('ROLLBACK')
    } catch {
      // SQLite already ended the transaction.
    }
    throw error
  }
}

/**
 * A file made before tokens were kept per room and minute (#14) holds them in `counter_tokens`, keyed by scope too:
 * its rows are copied into the new table (one per token and minute: the lowest seq), so a retry across the upgrade is
 * still answered, not counted. The old table is left for processes of the older version still on the file (they
 * prune it themselves); this runs once, in the transaction that creates the new table.
 */
function copyLegacyTokens(db: SqliteDatabase, tables: Tables): void {
  const legacy = tables.tokens.replace(/slot_tokens$/, 'counter_tokens')
  const found = db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?`).get(legacy) as { n: number }
  if (found.n === 0) return
  db.exec(
    `INSERT OR IGNORE INTO ${tables.tokens} (minute, room, token, scope, seq)
     SELECT minute, room, token, scope, seq FROM ${legacy} ORDER BY minute, room, token, seq`,
  )
}

/** The error for a handle that could not be made ready, saying what to fix. */
export function setupError(adapter: string, error: unknown): WaitingRoomError {
  const why =
    error instanceof WaitingRoomError
      ? error.message.replace('[hono-waiting-room] ', '')
      : isBusy(error)
        ? `the file stayed locked for ${STARTUP_LOCK_WAIT_MS / 1000} s while starting: another connection holds a long transaction on it`
        : `${messageOf(error)}. Pass an open, writable bun:sqlite or better-sqlite3 Database`
  return new WaitingRoomError('ERR_WR_COORDINATOR', `${adapter}: could not set up the database: ${why}`, { cause: error })
}
