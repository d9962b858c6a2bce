/**
 * @module
 * Reference traffic tables in Deno KV (split14, src/coordination/reference.ts): each proposal is one commit that
 * checks its minute's key is absent (`[room, 'reference', minute]`, versionstamp null) and sets it, expiring
 * REFERENCE_KEEP_MINUTES after its minute — so of any number of proposals for a minute, from any isolate, region or
 * process, exactly one is stored, and the ones that lose read it back strongly. Every proposal is answered the
 * stored table; expiry keeps the stored ones bounded. A table is one KV value (64 KiB: some 2,000 locations).
 */
import { minuteOf } from '../../src/clock.ts'
import { WaitingRoomError } from '../../src/errors.ts'
import { REFERENCE_KEEP_MINUTES, type TrafficReference } from '../../src/coordination/reference.ts'
import type { WorkerReport } from '../../src/coordination/state.ts'
import type { RoomKeys } from './keys.ts'
import { DRIVER_NAME, retryBusy, type KvKey, type KvLike } from './kv.ts'

/** Stores each proposal whose minute has none and answers the stored one for every minute; undefined for a report with none. */
export async function fixReferences(kv: KvLike, keys: RoomKeys, report: WorkerReport, maxAttempts: number): Promise<TrafficReference[] | undefined> {
  if (!report.references?.length) return undefined
  const reportMinute = minuteOf(report.at)
  return Promise.all(report.references.map((proposal) => fixOne(kv, keys.reference(proposal.minute), proposal, reportMinute, maxAttempts)))
}

async function fixOne(kv: KvLike, key: KvKey, proposal: TrafficReference, reportMinute: number, maxAttempts: number): Promise<TrafficReference> {
  // Kept until REFERENCE_KEEP_MINUTES after its minute, counted from the report's minute (no wall clock).
  const expireIn = Math.max(1, proposal.minute + REFERENCE_KEEP_MINUTES + 1 - reportMinute) * 60_000
  const stored: TrafficReference = { minute: proposal.minute, table: proposal.table, id: proposal.id }
  for (let attempt = 1; ; attempt++) {
    const set = () => kv.atomic().check({ key, versionstamp: null }).set(key, stored, { expireIn }).commit()
    if ((await retryBusy('fixing a reference traffic table', maxAttempts, set)).ok) return stored
    const read = () => kv.getMany([key], { consistency: 'strong' })
    const [entry] = await retryBusy('reading a reference traffic table', maxAttempts, read)
    if (entry && entry.versionstamp !== null) return toReference(key, entry.value)
    // Absent again only if it expired in between: propose again.
    if (attempt >= maxAttempts) {
      throw new WaitingRoomError('ERR_WR_COORDINATOR', `${DRIVER_NAME}: the reference of minute ${proposal.minute} was still contended after ${attempt} attempts; raise the maxAttempts option`)
    }
  }
}

function toReference(key: KvKey, value: unknown): TrafficReference {
  const reference = value as Partial<TrafficReference> | null
  if (typeof reference?.minute === 'number' && typeof reference.id === 'string' && typeof reference.table === 'object' && reference.table !== null) {
    return { minute: reference.minute, table: reference.table, id: reference.id }
  }
  throw new WaitingRoomError(
    'ERR_WR_COORDINATOR',
    `${DRIVER_NAME}: key ${JSON.stringify(key.map(String))} holds no reference traffic table; another program writes under this prefix — give the coordinator its own \`prefix\``,
  )
}
