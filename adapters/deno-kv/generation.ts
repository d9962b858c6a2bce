/**
 * @module
 * The state's generation on Deno KV (state.ts `nextGeneration`): a KvU64 beside the epoch, under `state`, so the
 * one `list` that reads the state reads it too. A report that changes the state `sum`s 1 into it in its first
 * commit (report.ts) — no read, no check, so workers still never contend. Before the report is applied, its
 * `seen` is compared with the stored epoch and generation, read strongly:
 * - the same epoch at a lower generation than the worker saw: an older copy of the database put back (a file
 *   restored from a backup, a point-in-time recovery). One commit, checked on the generation's versionstamp,
 *   marks the reporting location recovering (`R{minute}`, and the room's lost minute that grants read) and
 *   moves the generation past the sighting; a conflict reads again, so of several workers reporting at once
 *   one marks it and the others find the generation past what they saw;
 * - another epoch (or none: the state is gone): the worker knew a state this one replaced. Marked the same way,
 *   with no jump, before this sync's answer can show any worker an unmarked new state.
 * Compared before the report is applied, because applying it advances the generation.
 *
 * A grant compares the same way (`markedLoss`, from the counters' round): the epoch and generation of the worker
 * asking, read in the round's strong getMany, and a mismatch marked by the same mutations ({@link addLossMark}).
 */
import { minuteOf, minuteStart } from '../../src/clock.ts'
import { lostStateField, type RoomEpoch, type WorkerReport } from '../../src/coordination/state.ts'
import type { CounterRequest } from '../../src/coordination/coordinator.ts'
import { lossAtGrant } from '../../src/coordination/grant-loss.ts'
import type { RoomKeys } from './keys.ts'
import { backoff, retryBusy, type KvAtomic, type KvEntryMaybe, type KvLike } from './kv.ts'

/**
 * Adds a loss mark to a commit: `R{minute}` in the location, the room's lost minute (that grants read), the
 * location's `@updated`, and the generation moved to `jumpTo` (past a sighting of an older copy) or by one.
 * The caller's checks (on the generation, or the counter's) guard it. Used by a sync's sighting and by a grant
 * that finds the state lost (counters.ts).
 */
export function addLossMark(op: KvAtomic, keys: RoomKeys, location: string, minute: number, at: number, jumpTo?: number): KvAtomic {
  op.sum(keys.field(location, lostStateField(minute)), 1n).max(keys.lost, BigInt(minute))
  op.max(keys.updatedAt(location), BigInt(Math.max(0, Math.floor(at))))
  return jumpTo === undefined ? op.sum(keys.generation, 1n) : op.max(keys.generation, BigInt(jumpTo))
}

/** The stored generation of an entry read back (absent: 0). */
export function generationOf(entry: { value: unknown }): number {
  const value = (entry.value as { value?: unknown } | null)?.value
  return typeof value === 'bigint' ? Number(value) : 0
}

/**
 * Compares a report's sighting with the stored state and marks the room recovering when the state is older
 * than it (see the module). Does nothing for a report without `seen` (a cold worker, an older version).
 */
export async function markSighting(kv: KvLike, keys: RoomKeys, report: WorkerReport, maxAttempts: number): Promise<void> {
  const seen = report.seen
  if (!seen) return
  for (let attempt = 1; ; attempt++) {
    const read = () => kv.getMany([keys.epoch, keys.generation], { consistency: 'strong' })
    const [epochEntry, generationEntry] = (await retryBusy('reading the room generation', maxAttempts, read)) as [KvEntryMaybe, KvEntryMaybe]
    const epoch = epochEntry.value as Partial<RoomEpoch> | null
    const sameEpoch = epoch?.id === seen.epoch
    const current = generationOf(generationEntry)
    if (sameEpoch && seen.generation <= current) return
    const minute = minuteOf(report.at)
    const mark = () => {
      const op = kv.atomic().check({ key: keys.generation, versionstamp: generationEntry.versionstamp })
      return addLossMark(op, keys, report.location, minute, report.at, sameEpoch ? seen.generation + 1 : undefined).commit()
    }
    // Given up after maxAttempts conflicts: the other reports that kept winning compare the same way.
    if ((await retryBusy('marking the room recovering', maxAttempts, mark)).ok || attempt >= maxAttempts) return
    await backoff(attempt)
  }
}

/**
 * The first request of the round whose worker knew another state than the stored one (`lossAtGrant`: the epoch
 * absent or another, the generation below the worker's) marks the loss, as a sync's sighting does, in one commit
 * checked on what was compared. True when that commit landed or lost a race: the round reads again, and the
 * recovery check then refuses its grants.
 */
export async function markedLoss(
  kv: KvLike,
  keys: RoomKeys,
  requests: CounterRequest[],
  lostMinute: number | undefined,
  epochEntry: KvEntryMaybe,
  generationEntry: KvEntryMaybe,
  lostEntry: KvEntryMaybe,
  settings: { maxAttempts: number },
): Promise<boolean> {
  const stored = { epoch: (epochEntry.value as Partial<RoomEpoch> | null)?.id, generation: generationOf(generationEntry), lostMinute }
  for (const request of requests) {
    const loss = lossAtGrant(request, stored)
    if (!loss) continue
    const op = kv.atomic().check(epochEntry, generationEntry, lostEntry)
    const mark = () => addLossMark(op, keys, request.location!, request.minute, minuteStart(request.minute), loss.generation).commit()
    const { ok } = await retryBusy('marking the room recovering', settings.maxAttempts, mark)
    if (!ok) await backoff(1)
    return true
  }
  return false
}
