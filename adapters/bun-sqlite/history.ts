/**
 * @module
 * The room's history in the SQLite file: one row per (room, minute, location, field), counters merged with
 * `value + excluded.value`, gauges (`max:` fields) with `max(value, excluded.value)` — so any number of
 * processes write into it — and batch ids claimed once (`INSERT … ON CONFLICT DO NOTHING RETURNING`) in the
 * same transaction. Minute first in the key: pruning retention is one range delete.
 */
import { HISTORY_DEDUPE_MINUTES, isMaxField, oldestKeptMinute, validBatch, type HistoryBatch, type HistoryRow } from '../../src/history/model.ts'
import type { SqliteStatement } from './driver.ts'

export interface HistoryTables {
  /** (room, minute, location, field) → value. */
  history: string
  /** (room, id) → minute: history batches already applied. */
  historyBatches: string
}

export const historyTablesFor = (prefix: string): HistoryTables => ({ history: `${prefix}history`, historyBatches: `${prefix}history_batches` })

export function historySchemaSql(t: HistoryTables): string {
  return `
    CREATE TABLE IF NOT EXISTS ${t.history} (
      room TEXT NOT NULL, minute INTEGER NOT NULL, location TEXT NOT NULL, field TEXT NOT NULL, value INTEGER NOT NULL,
      PRIMARY KEY (room, minute, location, field)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS ${t.historyBatches} (
      room TEXT NOT NULL, id TEXT NOT NULL, minute INTEGER NOT NULL,
      PRIMARY KEY (room, id)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS ${t.historyBatches}_minute ON ${t.historyBatches} (room, minute);`
}

export type HistoryStatements = ReturnType<typeof historyStatements>

export function historyStatements(sql: (text: string) => SqliteStatement, t: HistoryTables) {
  return {
    /** (room, id, minute) → { fresh } the first time the batch id is seen. */
    claimHistoryBatch: sql(`INSERT INTO ${t.historyBatches} (room, id, minute) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1 AS fresh`),
    /** (room, minute, location, field, amount) */
    addHistory: sql(
      `INSERT INTO ${t.history} (room, minute, location, field, value) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (room, minute, location, field) DO UPDATE SET value = value + excluded.value`,
    ),
    /** (room, minute, location, field, value) */
    maxHistory: sql(
      `INSERT INTO ${t.history} (room, minute, location, field, value) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (room, minute, location, field) DO UPDATE SET value = max(value, excluded.value)`,
    ),
    /** (room, from minute, to minute) → { minute, location, field, value }[] */
    readHistory: sql(`SELECT minute, location, field, value FROM ${t.history} WHERE room = ? AND minute >= ? AND minute < ?`),
    /** (room, oldest minute kept) */
    pruneHistory: sql(`DELETE FROM ${t.history} WHERE room = ? AND minute < ?`),
    /** (room, oldest minute whose batch ids are kept) */
    pruneHistoryBatches: sql(`DELETE FROM ${t.historyBatches} WHERE room = ? AND minute < ?`),
  }
}

/** Applies a batch once per id and prunes what retention no longer keeps; run inside one write transaction. */
export function applyHistory(s: HistoryStatements, batch: HistoryBatch): void {
  if (!validBatch(batch)) throw new TypeError('recordHistory: malformed batch')
  const sent = Math.floor(batch.at / 60_000)
  const oldest = oldestKeptMinute(batch)
  s.pruneHistory.run(batch.roomId, oldest)
  s.pruneHistoryBatches.run(batch.roomId, sent - HISTORY_DEDUPE_MINUTES)
  if (!s.claimHistoryBatch.get(batch.roomId, batch.id, sent)) return
  for (const row of batch.rows) {
    if (row.minute < oldest) continue
    for (const field in row.fields) {
      const statement = isMaxField(field) ? s.maxHistory : s.addHistory
      statement.run(batch.roomId, row.minute, row.location, field, row.fields[field]!)
    }
  }
}

/** The rows of minutes in [fromMinute, toMinute). */
export function readHistoryRows(s: HistoryStatements, roomId: string, fromMinute: number, toMinute: number): HistoryRow[] {
  const rows = new Map<string, HistoryRow>()
  for (const r of s.readHistory.all(roomId, fromMinute, toMinute) as { minute: number; location: string; field: string; value: number }[]) {
    const key = `${r.minute}\n${r.location}`
    let row = rows.get(key)
    if (!row) rows.set(key, (row = { minute: Number(r.minute), location: r.location, fields: {} }))
    if (Number(r.value) !== 0 || isMaxField(r.field)) row.fields[r.field] = Number(r.value)
  }
  return [...rows.values()]
}
