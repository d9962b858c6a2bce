/**
 * @module
 * History in Maps, for the in-process coordinator: room → minute → location → fields, and the batch ids
 * applied, each remembered as long as its newest minute is kept. Memory is bounded by minutes × locations
 * (and batches per retention), pruned as the clock of the batches moves on.
 */
import { HISTORY_DEDUPE_MINUTES, mergeFields, oldestKeptMinute, validBatch, type HistoryBatch, type HistoryQuery, type HistoryRow, type HistoryStore } from './model.ts'

/**
 * A prune walks every minute held, so it runs when the oldest minute kept has moved on by this fraction of the
 * retention (at least one minute, at most an hour): memory stays within retention × 1.01 + 1 hour of minutes,
 * and reads never show a minute past retention (they filter by the oldest minute kept).
 */
const PRUNE_FRACTION = 0.01
const MAX_PRUNE_STEP = 60

interface RoomHistory {
  minutes: Map<number, Map<string, Record<string, number>>>
  /** Batch id → the minute it was sent in (forgotten after HISTORY_DEDUPE_MINUTES). */
  applied: Map<string, number>
  oldest: number
  prunedTo: number
}

export class MemoryHistoryStore implements HistoryStore {
  #rooms = new Map<string, RoomHistory>()

  async recordHistory(batch: HistoryBatch): Promise<void> {
    this.record(batch)
  }

  async readHistory(query: HistoryQuery): Promise<HistoryRow[]> {
    return this.read(query)
  }

  /** Applies a batch once per id, then prunes what retention no longer keeps. */
  record(batch: HistoryBatch): void {
    if (!validBatch(batch)) throw new TypeError('recordHistory: malformed batch')
    let room = this.#rooms.get(batch.roomId)
    if (!room) this.#rooms.set(batch.roomId, (room = { minutes: new Map(), applied: new Map(), oldest: -Infinity, prunedTo: -Infinity }))
    const step = Math.min(MAX_PRUNE_STEP, Math.max(1, Math.floor(batch.retentionMinutes * PRUNE_FRACTION)))
    this.#prune(room, oldestKeptMinute(batch), Math.floor(batch.at / 60_000) - HISTORY_DEDUPE_MINUTES, step)
    if (room.applied.has(batch.id)) return
    room.applied.set(batch.id, Math.floor(batch.at / 60_000))
    for (const row of batch.rows) {
      if (row.minute < room.oldest) continue
      let locations = room.minutes.get(row.minute)
      if (!locations) room.minutes.set(row.minute, (locations = new Map()))
      let fields = locations.get(row.location)
      if (!fields) locations.set(row.location, (fields = {}))
      mergeFields(fields, row.fields)
    }
  }

  read(query: HistoryQuery): HistoryRow[] {
    const rows: HistoryRow[] = []
    const room = this.#rooms.get(query.roomId)
    if (!room) return rows
    for (const [minute, locations] of room.minutes) {
      if (minute < query.fromMinute || minute >= query.toMinute || minute < room.oldest) continue
      for (const [location, fields] of locations) rows.push({ minute, location, fields: { ...fields } })
    }
    return rows
  }

  /** Minutes, (minute, location) rows and remembered batch ids held, over all rooms (for the retention test). */
  get size(): { minutes: number; rows: number; batchIds: number } {
    let minutes = 0
    let rows = 0
    let batchIds = 0
    for (const room of this.#rooms.values()) {
      minutes += room.minutes.size
      for (const locations of room.minutes.values()) rows += locations.size
      batchIds += room.applied.size
    }
    return { minutes, rows, batchIds }
  }

  #prune(room: RoomHistory, oldest: number, oldestId: number, step: number): void {
    // Ids are in insertion order, which is send order within a worker clock's skew: stop at the first kept.
    for (const [id, minute] of room.applied) {
      if (minute >= oldestId) break
      room.applied.delete(id)
    }
    if (oldest <= room.oldest) return
    room.oldest = oldest
    if (oldest - room.prunedTo < step) return
    room.prunedTo = oldest
    for (const minute of room.minutes.keys()) if (minute < oldest) room.minutes.delete(minute)
  }
}
