/**
 * @module
 * The two reads-and-writes every call is made of, run inside a transaction by the caller: take a slot
 * from one minute counter, and read a room's state back into the shape the core merges.
 */
import { effectiveLimit, type CounterRequest, type CounterResult } from '../../src/coordination/coordinator.ts'
import type { LocationState, RoomState } from '../../src/coordination/state.ts'
import type { Statements } from './schema.ts'

type Row<T> = T | null | undefined

/**
 * The conditional counter: a known token gets its first answer back; else a slot if `count` is below the
 * effective limit — `limit` lowered by what minute − 1 of the same counter gave beyond `previousReported`
 * (read in the same transaction; pruning keeps ≥ 3 minutes, so minute − 1 is still there).
 */
export function takeCounter(s: Statements, { roomId, scope, minute, limit: requested, previousReported, token }: CounterRequest): CounterResult {
  const earlier = s.findToken.get(minute, roomId, scope, token) as Row<{ seq: number }>
  if (earlier != null) return { taken: true, seq: earlier.seq, repeat: true }
  const previous = previousReported === undefined ? 0 : ((s.readCounter.get(minute - 1, roomId, scope) as Row<{ count: number }>)?.count ?? 0)
  const limit = effectiveLimit(requested, previous, previousReported)
  // A limit of 0 must not create the row with count 1, so it never reaches the UPSERT.
  if (limit > 0) {
    const taken = s.takeCounter.get(minute, roomId, scope, limit) as Row<{ seq: number }>
    if (taken != null) {
      s.rememberToken.run(minute, roomId, scope, token, taken.seq)
      return { taken: true, seq: taken.seq }
    }
  }
  const current = s.readCounter.get(minute, roomId, scope) as Row<{ count: number }>
  return { taken: false, seq: current?.count ?? 0 }
}

/** Every location of the room seen since `seenSince`, with its fields from minute `oldest` on. */
export function readRoom(s: Statements, roomId: string, oldest: number, at: number, seenSince: number): RoomState {
  const locations: Record<string, LocationState> = {}
  for (const row of s.readLocations.all(roomId, seenSince) as { location: string; updatedAt: number }[]) {
    locations[row.location] = { counts: {}, updatedAt: row.updatedAt }
  }
  for (const row of s.readFields.all(roomId, oldest) as { location: string; field: string; value: number }[]) {
    ;(locations[row.location] ??= { counts: {}, updatedAt: 0 }).counts[row.field] = row.value
  }
  return { locations, at }
}
