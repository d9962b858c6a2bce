/**
 * @module
 * The room's history in Deno KV: one KvU64 per (minute, location, field), under
 * `[...prefix, roomId, 'history', minute, location, field]` — counters `sum`med (a negative delta as its two's
 * complement, read back signed, as the room state does), gauges (`max:` fields) with the `max` mutation. Neither
 * needs a read or a check, so writers never contend; only the batch id is checked (absent, then set with an
 * expiry), in the same commit, so a batch is applied once. Retention: minutes older than a batch's retention are
 * deleted with one range `list` (minute first in the key), at most once a minute per room and process.
 */
import { HISTORY_DEDUPE_MINUTES, isMaxField, oldestKeptMinute, validBatch, type HistoryBatch, type HistoryQuery, type HistoryRow } from '../../src/history/model.ts'
import { MAX_MUTATIONS, retryBusy, type KvAtomic, type KvKey } from './kv.ts'

/** Range reads: `Deno.Kv.list` takes `{ start, end }` and `{ prefix, end }` selectors too. */
export interface KvHistoryLike {
  atomic(): KvAtomic
  list(
    selector: { start: KvKey; end: KvKey } | { prefix: KvKey; end: KvKey },
    options?: { consistency?: 'strong' | 'eventual'; batchSize?: number },
  ): AsyncIterable<{ key: KvKey; value: unknown }>
}

/** Mutations per commit besides the batch id's. */
const FIELDS_PER_COMMIT = MAX_MUTATIONS - 1

export interface KvHistory {
  recordHistory(batch: HistoryBatch): Promise<void>
  readHistory(query: HistoryQuery): Promise<HistoryRow[]>
}

export function kvHistory(kv: KvHistoryLike, prefix: KvKey, maxAttempts: number): KvHistory {
  const historyOf = (roomId: string): KvKey => [...prefix, roomId, 'history']
  const batchKey = (roomId: string, id: string, chunk: number): KvKey => [...prefix, roomId, 'history-batch', id, chunk]
  const prunedTo = new Map<string, number>()

  async function prune(roomId: string, oldest: number): Promise<void> {
    if (oldest <= (prunedTo.get(roomId) ?? Number.NEGATIVE_INFINITY)) return
    prunedTo.set(roomId, oldest)
    const history = historyOf(roomId)
    let op = kv.atomic()
    let pending = 0
    for await (const entry of kv.list({ prefix: history, end: [...history, oldest] })) {
      op.delete(entry.key)
      if (++pending === MAX_MUTATIONS) {
        await retryBusy('pruning history', maxAttempts, () => op.commit())
        op = kv.atomic()
        pending = 0
      }
    }
    if (pending > 0) await retryBusy('pruning history', maxAttempts, () => op.commit())
  }

  return {
    async recordHistory(batch) {
      if (!validBatch(batch)) throw new TypeError('recordHistory: malformed batch')
      const oldest = oldestKeptMinute(batch)
      await prune(batch.roomId, oldest)
      const history = historyOf(batch.roomId)
      const mutations: [KvKey, boolean, bigint][] = []
      for (const row of batch.rows) {
        if (row.minute < oldest) continue
        for (const field of Object.keys(row.fields).sort()) {
          const value = row.fields[field]!
          const max = isMaxField(field)
          if (!max && value === 0) continue
          mutations.push([[...history, row.minute, row.location, field], max, BigInt.asUintN(64, BigInt(max ? Math.max(0, value) : value))])
        }
      }
      // Split the same way on a retry (rows in the batch's order, fields sorted), so each chunk id names the same part.
      for (let chunk = 0; chunk * FIELDS_PER_COMMIT < Math.max(1, mutations.length); chunk++) {
        const key = batchKey(batch.roomId, batch.id, chunk)
        const commit = () => {
          const op = kv.atomic().check({ key, versionstamp: null }).set(key, true, { expireIn: HISTORY_DEDUPE_MINUTES * 60_000 })
          for (const [field, max, value] of mutations.slice(chunk * FIELDS_PER_COMMIT, (chunk + 1) * FIELDS_PER_COMMIT)) {
            if (max) op.max(field, value)
            else op.sum(field, value)
          }
          return op.commit()
        }
        // A failed check is this chunk applied before (a resend): nothing to do.
        await retryBusy(`recording history batch ${batch.id}`, maxAttempts, commit)
      }
    },

    async readHistory(query) {
      const history = historyOf(query.roomId)
      const rows = new Map<string, HistoryRow>()
      for await (const entry of kv.list({ start: [...history, query.fromMinute], end: [...history, query.toMinute] }, { consistency: 'strong', batchSize: 500 })) {
        const [minute, location, field] = entry.key.slice(history.length)
        const value = (entry.value as { value?: unknown } | null)?.value
        if (typeof minute !== 'number' || typeof location !== 'string' || typeof field !== 'string' || typeof value !== 'bigint') continue
        const count = Number(BigInt.asIntN(64, value))
        if (count === 0 && !isMaxField(field)) continue
        const id = `${minute}\n${location}`
        let row = rows.get(id)
        if (!row) rows.set(id, (row = { minute, location, fields: {} }))
        row.fields[field] = count
      }
      return [...rows.values()]
    },
  }
}
