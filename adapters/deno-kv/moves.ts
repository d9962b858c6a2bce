/**
 * @module
 * A report's renewal moves in Deno KV (src/coordination/moves.ts): each move is one commit against the ticket's
 * register (`[room, 'register', ticket]` → minute held, expiring once its count left every window), checked on the
 * register's versionstamp — `moveStep` read, decided and written atomically; a concurrent move of the same ticket
 * fails the check, and the step runs again on what it wrote. A retried report runs its moves again: they change
 * nothing then. The deltas go to the reporting location, like the report's.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { moveStep, registerExpiresAfter, type Move } from '../../src/coordination/moves.ts'
import type { WorkerReport } from '../../src/coordination/state.ts'
import type { RoomKeys } from './keys.ts'
import { DRIVER_NAME, retryBusy, type KvLike } from './kv.ts'
import { toU64 } from './report.ts'

/** Applies the report's moves; answers the minute each ticket holds, or undefined for a report with none. */
export async function applyMoves(kv: KvLike, keys: RoomKeys, report: WorkerReport, maxAttempts: number): Promise<Record<string, number> | undefined> {
  if (!report.moves?.length) return undefined
  const moved: Record<string, number> = {}
  for (const move of report.moves) moved[move.ticket] = await applyMove(kv, keys, report, move, maxAttempts)
  return moved
}

async function applyMove(kv: KvLike, keys: RoomKeys, report: WorkerReport, move: Move, maxAttempts: number): Promise<number> {
  const key = keys.register(move.ticket)
  // The register lives until its count has left every window, counted from the report's minute.
  const expireIn = Math.max(1, registerExpiresAfter(move) - Math.floor(report.at / 60_000) + 1) * 60_000
  for (let attempt = 1; ; attempt++) {
    const [entry] = await retryBusy('reading a move register', maxAttempts, () => kv.getMany([key], { consistency: 'strong' }))
    const held = typeof entry?.value === 'number' ? entry.value : undefined
    const outcome = moveStep(held, move)
    if (!outcome.changed) return outcome.answer
    const op = kv.atomic().check({ key, versionstamp: entry?.versionstamp ?? null }).set(key, outcome.held, { expireIn })
    for (const field in outcome.deltas) op.sum(keys.field(report.location, field), toU64(field, outcome.deltas[field]!))
    op.max(keys.updatedAt(report.location), BigInt(Math.max(0, Math.floor(report.at))))
    const { ok } = await retryBusy(`applying a move of report ${report.id}`, maxAttempts, () => op.commit())
    if (ok) return outcome.answer
    if (attempt >= maxAttempts) {
      throw new WaitingRoomError('ERR_WR_COORDINATOR', `${DRIVER_NAME}: a move of report ${report.id} was still contended after ${attempt} attempts; raise the maxAttempts option`)
    }
  }
}
