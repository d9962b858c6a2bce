/**
 * @module
 * The refresh a queued answer carries (decide.ts): the room's interval, jittered so check-ins spread out, or for a
 * FIFO user whom places reach soon, just after they free (admission/refresh.ts).
 */
import { fifoRefreshSeconds } from '../../admission/refresh.ts'
import type { EffectiveSettings } from '../../admission/settings.ts'
import type { Snapshot } from '../../admission/snapshot.ts'
import type { DecisionReason } from '../decision.ts'
import type { Room } from '../room.ts'

/** What the refresh reads of a queued decision (decide.ts `Asked`). */
interface Queued {
  reason: DecisionReason
  snapshot: Snapshot | undefined
  bucketId: number
  atEdge?: boolean
}

/** Refresh intervals vary by ±10% per check-in, so check-ins spread out (seed 002). */
const REFRESH_JITTER = 0.1

/** Spread of the refresh interval (±10%, at least a second), so check-ins spread out. */
const refreshSpread = (room: Room): number => Math.max(1, Math.round(room.o.refreshIntervalSeconds * REFRESH_JITTER))

/** The base refresh interval, ±10%, so check-ins spread out. */
export function jitteredRefresh(room: Room): number {
  return room.o.refreshIntervalSeconds + Math.round((room.o.random() * 2 - 1) * refreshSpread(room))
}

/**
 * A queued user's refresh: the jittered interval, or — for a FIFO user whom the next minute's slots reach —
 * just after the next minute starts, so the places it frees are taken at once (admission/refresh.ts).
 */
export function queuedRefresh(room: Room, s: EffectiveSettings, asked: Queued, now: number): number {
  const interval = jitteredRefresh(room)
  if (s.queueingMethod !== 'fifo' || (asked.reason !== 'no-slot' && asked.reason !== 'not-eligible') || !asked.snapshot) return interval
  return fifoRefreshSeconds({
    plan: room.planOf(asked.snapshot, s),
    snapshot: asked.snapshot,
    limits: s,
    bucketId: asked.bucketId,
    now,
    intervalSeconds: interval,
    spreadSeconds: refreshSpread(room),
    random: room.o.random(),
    edgeMs: room.o.clockSkewToleranceMs,
    atEdge: asked.atEdge === true,
  })
}
