/**
 * @module
 * Where a room lives in Deno KV. Every key starts with `[...prefix, roomId]`, so one database holds many
 * rooms (and other data) apart. Counters, tokens and report ids sit beside the state, not under it: the
 * state is read with one `list` over `state`, which must not walk thousands of token records.
 *
 * ```
 * [...prefix, roomId, 'counter', scope, minute]          → number (slots taken)
 * [...prefix, roomId, 'token', minute, token]            → { seq, scope } (the token's first answer, at any scope: #14)
 * [...prefix, roomId, 'report', reportId, chunk]         → true   (this chunk of a report was applied)
 * [...prefix, roomId, 'once', key]                       → true   (a room-wide `once` key was claimed; expiring)
 * [...prefix, roomId, 'register', ticket]                → number (the minute a renewed ticket is counted in; expiring)
 * [...prefix, roomId, 'reference', minute]               → TrafficReference (the minute's fixed table: references.ts; expiring)
 * [...prefix, roomId, 'state', location, field]          → KvU64  (a count, two's complement)
 * [...prefix, roomId, 'state', location, '@updated']     → KvU64  (ms of the location's latest report)
 * [...prefix, roomId, 'state', 0]                        → RoomEpoch (set if absent, never expires)
 * [...prefix, roomId, 'state', 1]                        → KvU64  (the state's generation: generation.ts)
 * [...prefix, roomId, 'lost']                            → KvU64  (latest minute of a loss mark `R{m}`; never expires)
 * ```
 *
 * The epoch sits under `state` so the one `list` that reads the state reads it too; its key part is the
 * number 0, which no location name (a string) can equal, and which Deno KV orders after every string.
 */
import type { KvKey } from './kv.ts'

/** Sorts before every field name (fields start with a lowercase letter), so it never collides with one. */
export const UPDATED_AT = '@updated'

export interface RoomKeys {
  counter(scope: string, minute: number): KvKey
  token(minute: number, token: string): KvKey
  report(reportId: string, chunk: number): KvKey
  /** A room-wide `once` claim: one per room, whichever location's report claimed it. */
  once(key: string): KvKey
  /** A ticket's move register (moves.ts): the minute it is counted in. */
  register(ticket: string): KvKey
  /** A minute's reference traffic table, fixed by the first proposal (references.ts). */
  reference(minute: number): KvKey
  /** Prefix of every location's state. */
  readonly state: KvKey
  field(location: string, field: string): KvKey
  updatedAt(location: string): KvKey
  /** The room's epoch: created with the room's state, kept as long as the database. */
  readonly epoch: KvKey
  /** The state's generation, beside the epoch (a number key part: no location name equals it). */
  readonly generation: KvKey
  /** The latest minute a report marked the state lost (`max`ed in by the marking commit; every grant reads it). */
  readonly lost: KvKey
}

export function roomKeys(prefix: KvKey, roomId: string): RoomKeys {
  const room = [...prefix, roomId]
  const state = [...room, 'state']
  return {
    counter: (scope, minute) => [...room, 'counter', scope, minute],
    token: (minute, token) => [...room, 'token', minute, token],
    report: (reportId, chunk) => [...room, 'report', reportId, chunk],
    once: (key) => [...room, 'once', key],
    register: (ticket) => [...room, 'register', ticket],
    reference: (minute) => [...room, 'reference', minute],
    state,
    field: (location, field) => [...state, location, field],
    updatedAt: (location) => [...state, location, UPDATED_AT],
    epoch: [...state, 0],
    generation: [...state, 1],
    lost: [...room, 'lost'],
  }
}
