/**
 * @module
 * The grants a location object counted that the global object may not hold yet — persisted in the same
 * synchronous step as the counter row, so an object restart or eviction loses no admitted user.
 *
 * Why a log with marks, not per-minute totals merged by max: a location's `a{m}` field also moves with its
 * workers' renewals (−1 in the old minute, +1 in the new one), so the global copy can be below the grants of a
 * minute while holding every one of them; a max would count those users twice. Instead each grant gets an
 * increasing id, every exchange sends the newest id with the state it is part of, and the global object
 * stores that mark with the state in one step. The global copy thus holds exactly the grants up to its mark:
 * after a restart the object adopts the global copy and adds only the grants past the mark (never one twice,
 * never one lost), and rows up to an acknowledged mark are deleted. The mark names its log (a random id kept
 * with the rows), so a mark from a log whose storage was deleted never acknowledges the new log's grants.
 */

/** "The global object's copy of this location holds every grant of log `log` up to id `id`." */
export interface GrantMark {
  log: string
  id: number
}

export interface CarriedGrant {
  id: number
  minute: number
  deltas: Record<string, number>
}

/** What {@link LocationStage} needs from the log; the object's is {@link SqlGrantLog}. */
export interface GrantLog {
  /** Recorded by earlier instances of this object and not acknowledged when this one started. */
  readonly carried: readonly CarriedGrant[]
  /**
   * Records a grant's deltas, or what a report added (with its id, remembered for retries). Synchronous: call
   * it in the same step as the counter row or the report's merge.
   */
  record(minute: number, deltas: Record<string, number>, reportId?: string): void
  /** Ids of the reports recorded in the last minutes (pruned with the grants), acknowledged or not. */
  reports(): string[]
  /** The mark of the newest grant recorded so far (id 0: none yet). */
  newest(): GrantMark
  /** Deletes the grants up to `mark`, which the global object holds; a mark of another log is ignored. */
  acknowledge(mark: GrantMark | undefined): void
  /** True while some recorded grant is not acknowledged. */
  readonly unacknowledged: boolean
  /** Deletes unacknowledged grants of minutes before `minute` (past the room's session window). */
  prune(minute: number): void
}

/** The synchronous storage APIs of a SQLite-backed Durable Object. */
export interface ObjectSqlStorage {
  sql: { exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, ArrayBuffer | string | number | null>[] } }
  kv: { get<T = unknown>(key: string): T | undefined; put<T>(key: string, value: T): void }
}

const LOG_KEY = 'grant-log'

export class SqlGrantLog implements GrantLog {
  readonly carried: CarriedGrant[]
  readonly #storage: ObjectSqlStorage
  readonly #log: string
  #newest: number

  constructor(storage: ObjectSqlStorage) {
    this.#storage = storage
    // AUTOINCREMENT: ids are never reused, even after every row was deleted, so an old mark never covers a new grant.
    storage.sql.exec('CREATE TABLE IF NOT EXISTS wr_grants (id INTEGER PRIMARY KEY AUTOINCREMENT, minute INTEGER NOT NULL, deltas TEXT NOT NULL)')
    storage.sql.exec('CREATE TABLE IF NOT EXISTS wr_reports (id TEXT PRIMARY KEY, minute INTEGER NOT NULL)')
    let log = storage.kv.get<string>(LOG_KEY)
    if (!log) storage.kv.put(LOG_KEY, (log = crypto.randomUUID()))
    this.#log = log
    this.carried = storage.sql
      .exec('SELECT id, minute, deltas FROM wr_grants ORDER BY id')
      .toArray()
      .map((row) => ({ id: Number(row.id), minute: Number(row.minute), deltas: JSON.parse(String(row.deltas)) as Record<string, number> }))
    const sequence = storage.sql.exec("SELECT seq FROM sqlite_sequence WHERE name = 'wr_grants'").toArray()[0]
    this.#newest = Number(sequence?.seq ?? 0)
  }

  record(minute: number, deltas: Record<string, number>, reportId?: string): void {
    const row = this.#storage.sql.exec('INSERT INTO wr_grants (minute, deltas) VALUES (?, ?) RETURNING id', minute, JSON.stringify(deltas)).toArray()[0]
    this.#newest = Number(row!.id)
    if (reportId !== undefined) this.#storage.sql.exec('INSERT INTO wr_reports (id, minute) VALUES (?, ?) ON CONFLICT DO NOTHING', reportId, minute)
  }

  reports(): string[] {
    return this.#storage.sql.exec('SELECT id FROM wr_reports').toArray().map((row) => String(row.id))
  }

  newest(): GrantMark {
    return { log: this.#log, id: this.#newest }
  }

  acknowledge(mark: GrantMark | undefined): void {
    if (mark?.log === this.#log) this.#storage.sql.exec('DELETE FROM wr_grants WHERE id <= ?', mark.id)
  }

  get unacknowledged(): boolean {
    return this.#storage.sql.exec('SELECT 1 FROM wr_grants LIMIT 1').toArray().length > 0
  }

  prune(minute: number): void {
    this.#storage.sql.exec('DELETE FROM wr_grants WHERE minute < ?', minute)
    this.#storage.sql.exec('DELETE FROM wr_reports WHERE minute < ?', minute)
  }
}

/** What a {@link MemoryGrantLog} keeps; share one between two logs to stand for an object's storage across a restart. */
export interface MemoryGrantStore {
  rows: CarriedGrant[]
  /** Report ids recorded, with their minute. */
  reports?: { id: string; minute: number }[]
  /** The newest id ever given: ids are never reused. */
  sequence: number
}

/** A log in memory: for a stage without storage, and for tests. */
export class MemoryGrantLog implements GrantLog {
  readonly carried: CarriedGrant[]
  readonly #store: MemoryGrantStore
  readonly #log: string

  constructor(store: MemoryGrantStore = { rows: [], sequence: 0 }, log = 'memory') {
    this.#store = store
    this.#log = log
    this.carried = [...store.rows]
  }

  record(minute: number, deltas: Record<string, number>, reportId?: string): void {
    this.#store.rows.push({ id: ++this.#store.sequence, minute, deltas })
    if (reportId !== undefined) (this.#store.reports ??= []).push({ id: reportId, minute })
  }

  reports(): string[] {
    return (this.#store.reports ?? []).map((report) => report.id)
  }

  newest(): GrantMark {
    return { log: this.#log, id: this.#store.sequence }
  }

  acknowledge(mark: GrantMark | undefined): void {
    if (mark?.log === this.#log) this.#store.rows = this.#store.rows.filter((row) => row.id > mark.id)
  }

  get unacknowledged(): boolean {
    return this.#store.rows.length > 0
  }

  prune(minute: number): void {
    this.#store.rows = this.#store.rows.filter((row) => row.minute >= minute)
    this.#store.reports = this.#store.reports?.filter((report) => report.minute >= minute)
  }
}
