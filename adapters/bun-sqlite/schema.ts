/**
 * @module
 * The tables and the prepared statements. Counters and tokens are keyed minute first, so dropping old
 * minutes is one range delete on the primary key; room state is one row per (room, location, field),
 * merged with `value = value + excluded.value` so any number of processes add into it.
 */
import type { SqliteDatabase, SqliteStatement } from './driver.ts'
import { historySchemaSql, historyStatements, historyTablesFor, type HistoryTables } from './history.ts'

/** Table names, all under one prefix so the file can also hold the app's own tables. */
export interface Tables extends HistoryTables {
  /** (minute, room, scope) → count: one conditional counter per location or Anywhere, per minute. */
  counters: string
  /**
   * (minute, room, token) → seq, scope: who took which slot of the room's minute, so a retried token is answered, not
   * counted — at any scope: one ticket takes one slot a minute, whichever counters its cookie asks (#14). Files made
   * before it hold `counter_tokens`, keyed by scope too: its rows are copied in when this table is created (setup.ts).
   */
  tokens: string
  /** (room, location, field) → value, with the field's minute for pruning. */
  state: string
  /** (room, location) → updated_at of the last report merged into it. */
  locations: string
  /** (room, id) → at: report ids already applied. */
  reports: string
  /** room → its epoch (id, started_at): written once, when the room's state is first created in this file. */
  rooms: string
  /** (room, key) → minute claimed: the room-wide `once` registry (a key of any location, claimed once). */
  once: string
  /** room → its state's generation, advanced by every sync (an older copy of the file holds a lower one). */
  generations: string
  /** room → the latest minute its state was found lost or restored (an `R{m}` mark): every grant reads it. */
  recovery: string
  /** (room, ticket) → the minute the ticket is counted in, and the minute after which it may go (moves.ts registers). */
  registers: string
  /**
   * (room, minute) → the reference traffic table fixed for the minute's slots (first writer wins, reference.ts), and
   * the id of the proposal that fixed it. Created in files made before it like every table here (setup.ts `hasTables`).
   */
  references: string
}

export const tablesFor = (prefix: string): Tables => ({
  counters: `${prefix}counters`,
  tokens: `${prefix}slot_tokens`,
  state: `${prefix}state`,
  locations: `${prefix}locations`,
  reports: `${prefix}reports`,
  rooms: `${prefix}rooms`,
  ...historyTablesFor(prefix),
  once: `${prefix}once`,
  generations: `${prefix}generations`,
  recovery: `${prefix}recovery`,
  registers: `${prefix}registers`,
  references: `${prefix}references`,
})

/** Creates the tables if missing. Run inside a write transaction, so processes starting together agree. */
export function schemaSql(t: Tables): string {
  return `
    CREATE TABLE IF NOT EXISTS ${t.counters} (
      minute INTEGER NOT NULL, room TEXT NOT NULL, scope TEXT NOT NULL, count INTEGER NOT NULL,
      PRIMARY KEY (minute, room, scope)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.tokens} (
      minute INTEGER NOT NULL, room TEXT NOT NULL, token TEXT NOT NULL, scope TEXT NOT NULL, seq INTEGER NOT NULL,
      PRIMARY KEY (minute, room, token)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.state} (
      room TEXT NOT NULL, location TEXT NOT NULL, field TEXT NOT NULL, minute INTEGER NOT NULL, value INTEGER NOT NULL,
      PRIMARY KEY (room, location, field)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.locations} (
      room TEXT NOT NULL, location TEXT NOT NULL, updated_at INTEGER NOT NULL,
      PRIMARY KEY (room, location)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.reports} (
      room TEXT NOT NULL, id TEXT NOT NULL, at INTEGER NOT NULL,
      PRIMARY KEY (room, id)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS ${t.reports}_at ON ${t.reports} (at);
    CREATE TABLE IF NOT EXISTS ${t.rooms} (
      room TEXT NOT NULL PRIMARY KEY, epoch TEXT NOT NULL, started_at INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.once} (
      room TEXT NOT NULL, key TEXT NOT NULL, minute INTEGER NOT NULL,
      PRIMARY KEY (room, key)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.generations} (
      room TEXT NOT NULL PRIMARY KEY, generation INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.recovery} (
      room TEXT NOT NULL PRIMARY KEY, lost_minute INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.registers} (
      room TEXT NOT NULL, ticket TEXT NOT NULL, minute INTEGER NOT NULL, expires INTEGER NOT NULL,
      PRIMARY KEY (room, ticket)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS ${t.registers}_expires ON ${t.registers} (room, expires);
    CREATE TABLE IF NOT EXISTS ${t.references} (
      room TEXT NOT NULL, minute INTEGER NOT NULL, id TEXT NOT NULL, traffic TEXT NOT NULL,
      PRIMARY KEY (room, minute)) WITHOUT ROWID;
    ${historySchemaSql(t)}`
}

export type Statements = ReturnType<typeof prepareStatements>

/**
 * `statement`, answering its rows as arrays of values where the driver can (better-sqlite3's `raw`): it builds an
 * object row through V8's slow property path, one transition per column — for the decision's six-column read, more
 * instructions than the read itself (#16). bun:sqlite answers objects (its `values()` measured slower than `get()`);
 * its `raw` runs the statement, so better-sqlite3 is told by its `pluck`.
 */
function valueRows(statement: SqliteStatement): SqliteStatement {
  if (typeof statement.pluck === 'function') statement.raw?.(true)
  return statement
}

export function prepareStatements(db: SqliteDatabase, t: Tables) {
  const sql = (text: string): SqliteStatement => db.prepare(text)
  return {
    ...historyStatements(sql, t),
    /** (minute, room, token) → { seq } | none */
    findToken: sql(`SELECT seq FROM ${t.tokens} WHERE minute = ? AND room = ? AND token = ?`),
    /** (minute, room, scope, limit) → { seq } when a slot was taken (count was below limit), else none. */
    takeCounter: sql(
      `INSERT INTO ${t.counters} (minute, room, scope, count) VALUES (?, ?, ?, 1)
       ON CONFLICT (minute, room, scope) DO UPDATE SET count = count + 1 WHERE count < ?
       RETURNING count - 1 AS seq`,
    ),
    /**
     * A decision's reads in one statement step (#16: each step costs the driver's call overhead, each bound value and
     * each scalar subquery too): (minute, room, token, scope) → { earlier, earlierScope, lostMinute, previous, epoch,
     * generation }, each null when absent — the token's first answer (seq and scope in one primary-key lookup, the
     * LEFT JOIN), the room's lost minute, minute − 1 of the same counter, the room's epoch id and generation (for the
     * grant-time loss check, `lossAtGrant`). Four values bound once, where binding each use cost 12 (~0.7 µs per decision).
     */
    decisionReads: valueRows(sql(
      `SELECT e.seq AS earlier, e.scope AS earlierScope,
       (SELECT lost_minute FROM ${t.recovery} WHERE room = p.room) AS lostMinute,
       (SELECT count FROM ${t.counters} WHERE minute = p.minute - 1 AND room = p.room AND scope = p.scope) AS previous,
       (SELECT epoch FROM ${t.rooms} WHERE room = p.room) AS epoch,
       (SELECT generation FROM ${t.generations} WHERE room = p.room) AS generation
       FROM (SELECT ? AS minute, ? AS room, ? AS token, ? AS scope) AS p
       LEFT JOIN ${t.tokens} AS e ON e.minute = p.minute AND e.room = p.room AND e.token = p.token`,
    )),
    /** (minute, room, scope) → { count } | none */
    readCounter: sql(`SELECT count FROM ${t.counters} WHERE minute = ? AND room = ? AND scope = ?`),
    /** (minute, room, token, scope, seq) */
    rememberToken: sql(`INSERT INTO ${t.tokens} (minute, room, token, scope, seq) VALUES (?, ?, ?, ?, ?)`),
    /** (room, id, at) → { fresh } the first time this id is seen, else none. */
    claimReport: sql(`INSERT INTO ${t.reports} (room, id, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1 AS fresh`),
    /** (room, location, field, minute, amount) */
    addField: sql(
      `INSERT INTO ${t.state} (room, location, field, minute, value) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (room, location, field) DO UPDATE SET value = value + excluded.value`,
    ),
    /** (room, key, minute claimed) → { fresh } when no report of the room claimed the `once` key before, else none. */
    claimOnce: sql(`INSERT INTO ${t.once} (room, key, minute) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1 AS fresh`),
    /** (room, oldest claim minute kept) */
    pruneOnce: sql(`DELETE FROM ${t.once} WHERE room = ? AND minute < ?`),
    /** (room, ticket) → { minute } | none */
    readRegister: sql(`SELECT minute FROM ${t.registers} WHERE room = ? AND ticket = ?`),
    /** (room, ticket, minute, expires) */
    writeRegister: sql(
      `INSERT INTO ${t.registers} (room, ticket, minute, expires) VALUES (?, ?, ?, ?)
       ON CONFLICT (room, ticket) DO UPDATE SET minute = excluded.minute, expires = excluded.expires`,
    ),
    /** (room, current minute): registers whose count has left every window */
    pruneRegisters: sql(`DELETE FROM ${t.registers} WHERE room = ? AND expires < ?`),
    /** (room, minute, id, traffic JSON): stored unless the minute has a reference already (first writer wins). */
    fixReference: sql(`INSERT INTO ${t.references} (room, minute, id, traffic) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`),
    /** (room, minute) → { id, traffic } | none */
    readReference: sql(`SELECT id, traffic FROM ${t.references} WHERE room = ? AND minute = ?`),
    /** (room, oldest minute kept) */
    pruneReferences: sql(`DELETE FROM ${t.references} WHERE room = ? AND minute < ?`),
    /** (room) → { id, startedAt } | none */
    readEpoch: sql(`SELECT epoch AS id, started_at AS startedAt FROM ${t.rooms} WHERE room = ?`),
    /** (room, id, startedAt): run only when readEpoch found none, in the same transaction. */
    createEpoch: sql(`INSERT INTO ${t.rooms} (room, epoch, started_at) VALUES (?, ?, ?)`),
    /** (room) → { generation } | none */
    readGeneration: sql(`SELECT generation FROM ${t.generations} WHERE room = ?`),
    /** (room, generation) */
    writeGeneration: sql(
      `INSERT INTO ${t.generations} (room, generation) VALUES (?, ?) ON CONFLICT (room) DO UPDATE SET generation = excluded.generation`,
    ),
    /** (room) → { lostMinute } | none */
    readLost: sql(`SELECT lost_minute AS lostMinute FROM ${t.recovery} WHERE room = ?`),
    /** (room, minute): keeps the latest */
    markLost: sql(
      `INSERT INTO ${t.recovery} (room, lost_minute) VALUES (?, ?) ON CONFLICT (room) DO UPDATE SET lost_minute = max(lost_minute, excluded.lost_minute)`,
    ),
    /** (room, location, at) */
    touchLocation: sql(
      `INSERT INTO ${t.locations} (room, location, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (room, location) DO UPDATE SET updated_at = max(updated_at, excluded.updated_at)`,
    ),
    /** (room, oldest minute) → { location, field, value }[] — fields that reached zero are left out. */
    readFields: sql(`SELECT location, field, value FROM ${t.state} WHERE room = ? AND minute >= ? AND value <> 0`),
    /** (room, oldest updated_at) → { location, updatedAt }[] */
    readLocations: sql(`SELECT location, updated_at AS updatedAt FROM ${t.locations} WHERE room = ? AND updated_at >= ?`),
    /** (oldest minute kept) */
    pruneCounters: sql(`DELETE FROM ${t.counters} WHERE minute < ?`),
    /** (oldest minute kept) */
    pruneTokens: sql(`DELETE FROM ${t.tokens} WHERE minute < ?`),
    /** (room, oldest minute kept) */
    pruneState: sql(`DELETE FROM ${t.state} WHERE room = ? AND (minute < ? OR value = 0)`),
    /** (room, oldest updated_at kept) */
    pruneLocations: sql(`DELETE FROM ${t.locations} WHERE room = ? AND updated_at < ?`),
    /** (oldest at kept) */
    pruneReports: sql(`DELETE FROM ${t.reports} WHERE at < ?`),
  }
}
