/// <reference types="./cloudflare-workers.d.ts" />
/**
 * @module
 * `WaitingRoomGlobal`: one Durable Object per room — seed 001's global object. It hosts the
 * {@link GlobalAggregator}: stores whatever each location object sends and answers with every location.
 * Each location's latest state is also written to storage (one small row per exchange, and exchanges are
 * paced by the location objects), so a restarted global object answers with the full view at once
 * instead of waiting for every location to exchange again.
 *
 * It also keeps the room's epoch in its storage: created from the first exchange's candidate when the
 * storage holds none (a new room, or storage deleted), then answered with every view. The object runs one
 * call at a time and its KV API is synchronous, so "set if absent" needs no transaction.
 *
 * It also holds the room's `once` registry (`claim`): a revocation is claimed here, room-wide, before the
 * location object that received it applies its deltas — so two colos never both apply one. And the room's move
 * registers (`move`): a renewal's compare-and-move against its ticket's register, room-wide, whichever colo renews.
 *
 * With a location's state it stores, in the same step, the grant mark that state was sent with (grant-log.ts):
 * the mark then names exactly the grants the stored copy holds, and is answered to that location.
 *
 * And the room's reference traffic tables (`fix`, split14): the first proposal of a minute is stored, every
 * proposal of that minute from any colo is answered it, and it is dropped REFERENCE_KEEP_MINUTES after its minute.
 */
import { DurableObject } from 'cloudflare:workers'
import { GlobalAggregator } from '../../src/coordination/aggregator.ts'
import type { LocationState, RoomEpoch } from '../../src/coordination/state.ts'
import type { GrantMark } from './grant-log.ts'
import type { ExchangeAnswer } from './location-stage.ts'
import type { GlobalObjectRpc, MoveResult } from './protocol.ts'
import { moveStep, reenteredRegister, reentryExpiresAfter, registerExpiresAfter, type Move, type Reentry } from '../../src/coordination/moves.ts'
import { ObjectHistory } from './history.ts'
import { REFERENCE_KEEP_MINUTES, type TrafficReference } from '../../src/coordination/reference.ts'
import type { HistoryBatch, HistoryQuery, HistoryRow } from '../../src/history/model.ts'

const LOCATION_KEY = 'location:'
/** Not under LOCATION_KEY, so the rebuild's list never reads it as a location. */
const EPOCH_KEY = 'epoch'
/** A location's grant mark; not under LOCATION_KEY either. */
const GRANTS_KEY = 'grants:'
/** A minute's fixed reference traffic table (`reference:{minute}`); not under LOCATION_KEY either. */
const REFERENCE_KEY = 'reference:'

export class WaitingRoomGlobal extends DurableObject<Record<string, unknown>> implements GlobalObjectRpc {
  #aggregator: GlobalAggregator | undefined
  #epoch: RoomEpoch | undefined
  #onceReady = false
  #registersReady = false
  #registersPrunedFor = Number.NEGATIVE_INFINITY
  #oncePrunedFor = Number.NEGATIVE_INFINITY
  #referencesPrunedFor = Number.NEGATIVE_INFINITY
  #history: ObjectHistory | undefined

  /** The room's history (history.ts): applied once per batch id, pruned to the batch's retention. */
  async recordHistory(batch: HistoryBatch): Promise<void> {
    ;(this.#history ??= new ObjectHistory(this.ctx.storage.kv)).record(batch)
  }

  async readHistory(query: HistoryQuery): Promise<HistoryRow[]> {
    return (this.#history ??= new ObjectHistory(this.ctx.storage.kv)).read(query)
  }

  async exchange(location: string, state: LocationState | null, now: number, epoch?: RoomEpoch, grants?: GrantMark): Promise<ExchangeAnswer> {
    const aggregator = this.#loaded()
    this.#epoch ??= this.ctx.storage.kv.get<RoomEpoch>(EPOCH_KEY)
    // A caller without a candidate (code from before epochs, during a deploy) creates none.
    if (!this.#epoch && epoch) this.ctx.storage.kv.put(EPOCH_KEY, (this.#epoch = epoch))
    const view = state === null ? aggregator.view(now) : aggregator.exchange(location, state, now)
    // Persist what the aggregator now holds for this location (it keeps the newer of two states).
    const held = state === null ? undefined : view.locations[location]
    if (held) this.ctx.storage.kv.put(LOCATION_KEY + location, held)
    // The mark goes with the state it came with — only if that state is the one kept (not an older one ignored).
    if (held && held === state && grants) this.ctx.storage.kv.put(GRANTS_KEY + location, grants)
    const mark = this.ctx.storage.kv.get<GrantMark>(GRANTS_KEY + location)
    const answer: ExchangeAnswer = this.#epoch ? { ...view, epoch: this.#epoch } : view
    return mark ? { ...answer, grants: mark } : answer
  }

  async claim(keys: string[], reportId: string, now: number, retentionMinutes: number): Promise<string[]> {
    const sql = this.ctx.storage.sql
    const minute = Math.floor(now / 60_000)
    if (!this.#onceReady) {
      sql.exec('CREATE TABLE IF NOT EXISTS wr_once (key TEXT PRIMARY KEY, report TEXT NOT NULL, minute INTEGER NOT NULL)')
      this.#onceReady = true
    }
    if (minute > this.#oncePrunedFor) {
      this.#oncePrunedFor = minute
      sql.exec('DELETE FROM wr_once WHERE minute < ?', minute - retentionMinutes)
    }
    const held: string[] = []
    for (const key of keys) {
      sql.exec('INSERT INTO wr_once (key, report, minute) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', key, reportId, minute)
      const row = sql.exec('SELECT report FROM wr_once WHERE key = ?', key).toArray()[0]
      if (row?.report === reportId) held.push(key)
    }
    return held
  }

  async move(moves: Move[], now: number): Promise<MoveResult[]> {
    const sql = this.#registers(Math.floor(now / 60_000))
    // One call at a time, synchronous storage: each step reads, decides and writes with nothing in between.
    return moves.map((move) => {
      const row = sql.exec('SELECT minute FROM wr_registers WHERE ticket = ?', move.ticket).toArray()[0]
      const outcome = moveStep(row ? Number(row.minute) : undefined, move)
      if (outcome.changed) this.#writeRegister(move.ticket, outcome.held!, registerExpiresAfter(move))
      return { answer: outcome.answer, deltas: outcome.deltas }
    })
  }

  async enter(reentry: Reentry, minute: number): Promise<void> {
    const row = this.#registers(minute).exec('SELECT minute FROM wr_registers WHERE ticket = ?', reentry.ticket).toArray()[0]
    if (reenteredRegister(row ? Number(row.minute) : undefined, minute) !== undefined) this.#writeRegister(reentry.ticket, minute, reentryExpiresAfter(reentry, minute))
  }

  #writeRegister(ticket: string, minute: number, expires: number): void {
    this.ctx.storage.sql.exec(
      'INSERT INTO wr_registers (ticket, minute, expires) VALUES (?, ?, ?) ON CONFLICT (ticket) DO UPDATE SET minute = excluded.minute, expires = excluded.expires',
      ticket,
      minute,
      expires,
    )
  }

  /** The registers' table, created on first use and pruned of registers expired before `minute`. */
  #registers(minute: number) {
    const sql = this.ctx.storage.sql
    if (!this.#registersReady) {
      sql.exec('CREATE TABLE IF NOT EXISTS wr_registers (ticket TEXT PRIMARY KEY, minute INTEGER NOT NULL, expires INTEGER NOT NULL)')
      // Pruned by expiry (which the session length of each move sets), not by age: indexed so a prune reads only what goes.
      sql.exec('CREATE INDEX IF NOT EXISTS wr_registers_expires ON wr_registers (expires)')
      this.#registersReady = true
    }
    if (minute > this.#registersPrunedFor) {
      this.#registersPrunedFor = minute
      sql.exec('DELETE FROM wr_registers WHERE expires < ?', minute)
    }
    return sql
  }

  async fix(proposals: TrafficReference[], now: number): Promise<TrafficReference[]> {
    const kv = this.ctx.storage.kv
    const minute = Math.floor(now / 60_000)
    if (minute > this.#referencesPrunedFor) {
      this.#referencesPrunedFor = minute
      for (const [key, reference] of kv.list<TrafficReference>({ prefix: REFERENCE_KEY })) {
        if (reference.minute < minute - REFERENCE_KEEP_MINUTES) kv.delete(key)
      }
    }
    // One call at a time, synchronous storage: the read and the put of a minute have nothing in between.
    return proposals.map(({ minute, table, id }) => {
      const held = kv.get<TrafficReference>(REFERENCE_KEY + minute)
      if (held) return held
      const stored: TrafficReference = { minute, table, id }
      kv.put(REFERENCE_KEY + minute, stored)
      return stored
    })
  }

  /** Rebuilds the aggregator from storage on the first call after a (re)start; forgotten locations are deleted. */
  #loaded(): GlobalAggregator {
    if (this.#aggregator) return this.#aggregator
    const aggregator = new GlobalAggregator()
    const kv = this.ctx.storage.kv
    let newest = 0
    const stored: string[] = []
    for (const [key, state] of kv.list<LocationState>({ prefix: LOCATION_KEY })) {
      const location = key.slice(LOCATION_KEY.length)
      stored.push(location)
      aggregator.exchange(location, state, state.updatedAt)
      newest = Math.max(newest, state.updatedAt)
    }
    const kept = aggregator.view(newest).locations
    for (const location of stored) {
      if (kept[location]) continue
      kv.delete(LOCATION_KEY + location)
      kv.delete(GRANTS_KEY + location)
    }
    return (this.#aggregator = aggregator)
  }
}
