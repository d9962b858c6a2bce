/**
 * @module
 * The conditional minute counters of one counter object, in the object's SQLite storage. One row per
 * slot taken: (minute, token, seq). The count of a minute is its number of rows, so a restarted object
 * reads it back and never reopens an admitted slot; the token is the key, so a retried token gets its
 * first answer. Rejections write nothing.
 */
import { COUNTER_TTL_MINUTES, effectiveLimit, type CounterResult } from '../../src/coordination/coordinator.ts'

/** The synchronous SQL API of a SQLite-backed Durable Object (`ctx.storage.sql`). */
export interface SqlLike {
  exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, ArrayBuffer | string | number | null>[] }
}

export class MinuteCounters {
  #sql: SqlLike
  /** Count per minute, read from storage once per minute after a (re)start, then kept here. */
  #counts = new Map<number, number>()
  /** Newest minute asked for: older minutes past the TTL are deleted when it moves on. */
  newestMinute = Number.NEGATIVE_INFINITY

  constructor(sql: SqlLike) {
    this.#sql = sql
    sql.exec(
      'CREATE TABLE IF NOT EXISTS wr_slots (minute INTEGER NOT NULL, token TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (minute, token))',
    )
  }

  /**
   * Takes a slot in `minute` if fewer than `limit` were taken — `limit` lowered, when `previousReported`
   * is given, by what `minute` − 1 gave beyond it (its rows are here: pruning keeps TTL ≥ 3 minutes).
   * Synchronous on purpose: with no `await` between the reads and the write no other call can interleave,
   * and the object's output gate holds the reply until the row is durable — so a restart can never hand
   * the same slot out twice. `recovering`: the room recovers from a lost state, so a fresh grant is refused
   * (a token holding its slot still gets its first answer).
   */
  take(minute: number, limit: number, token: string, previousReported?: number, recovering = false): CounterResult {
    if (minute > this.newestMinute) this.#moveTo(minute)
    const earlier = this.#sql.exec('SELECT seq FROM wr_slots WHERE minute = ? AND token = ?', minute, token).toArray()[0]
    if (earlier) return { taken: true, seq: Number(earlier.seq), repeat: true }
    const seq = this.#count(minute)
    if (recovering) return { taken: false, seq, recovering: true }
    const previous = previousReported === undefined ? 0 : this.#count(minute - 1)
    if (seq >= effectiveLimit(limit, previous, previousReported)) return { taken: false, seq }
    this.#sql.exec('INSERT INTO wr_slots (minute, token, seq) VALUES (?, ?, ?)', minute, token, seq)
    this.#counts.set(minute, seq + 1)
    return { taken: true, seq }
  }

  /** Deletes minutes older than `minute` − TTL. Idempotent, so a repeated alarm is harmless. */
  prune(minute: number): void {
    const oldest = minute - COUNTER_TTL_MINUTES
    this.#sql.exec('DELETE FROM wr_slots WHERE minute < ?', oldest)
    for (const known of this.#counts.keys()) if (known < oldest) this.#counts.delete(known)
  }

  get empty(): boolean {
    return this.#sql.exec('SELECT 1 FROM wr_slots LIMIT 1').toArray().length === 0
  }

  #moveTo(minute: number): void {
    this.newestMinute = minute
    this.prune(minute)
  }

  #count(minute: number): number {
    let count = this.#counts.get(minute)
    if (count === undefined) {
      count = Number(this.#sql.exec('SELECT COUNT(*) AS n FROM wr_slots WHERE minute = ?', minute).toArray()[0]?.n ?? 0)
      this.#counts.set(minute, count)
    }
    return count
  }
}
