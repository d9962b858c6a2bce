/**
 * @module
 * The room's status as the admin API reports it, modelled on Cloudflare's waiting room status endpoint
 * (`not_queueing`, `queueing`, `event_prequeueing`, `suspended`, estimated users, maximum estimated wait).
 * Pure: settings, snapshot and plan come in.
 */
import type { RoomEvent } from '../admission/events.ts'
import type { Messages } from '../page/messages.ts'
import type { MinutePlan } from '../admission/plan.ts'
import { queueVariables } from '../page/queue-variables.ts'
import type { EffectiveSettings } from '../admission/settings.ts'
import type { LocationSummary, Snapshot } from '../admission/snapshot.ts'

export type RoomStatusName = 'not_queueing' | 'queueing' | 'event_prequeueing' | 'suspended'

export interface RoomStatus {
  status: RoomStatusName
  /** Users queued in the last few minutes, all locations. */
  estimatedQueuedUsers: number
  /** Users with a live session, all locations. */
  estimatedTotalActiveUsers: number
  /** The longest wait the queue page shows right now, in minutes; 0 when nobody queues or no estimate is shown. */
  maxEstimatedTimeMinutes: number
  /** The event in force (active or prequeueing), else null. */
  event: RoomEvent | null
  locations: Record<string, LocationSummary>
}

/**
 * Follows the middleware's order of checks: suspended lets everyone through; reject keeps every new user
 * out; a prequeue holds everyone; passthrough queues nobody; otherwise the room queues when users are
 * waiting or this minute has no slot left (Cloudflare: "the thresholds have been met").
 */
export function statusName(settings: EffectiveSettings, snapshot: Snapshot, plan: MinutePlan): RoomStatusName {
  if (settings.suspended) return 'suspended'
  if (settings.queueingMethod === 'reject') return 'queueing'
  if (settings.phase.prequeueing && settings.phase.event) return 'event_prequeueing'
  if (settings.queueingMethod === 'passthrough') return 'not_queueing'
  if (settings.queueAll || snapshot.waitingUsers > 0 || plan.remaining <= 0) return 'queueing'
  return 'not_queueing'
}

export interface StatusInput {
  settings: EffectiveSettings
  snapshot: Snapshot
  plan: MinutePlan
  now: number
  /** Only needed because the queue variables format the wait too; any language will do. */
  messages: Messages
}

export function roomStatus({ settings, snapshot, plan, now, messages }: StatusInput): RoomStatus {
  const status = statusName(settings, snapshot, plan)
  let maxEstimatedTimeMinutes = 0
  if (status === 'queueing') {
    // The newest arrival (bucket = this minute) has everyone ahead, so its estimate is the largest shown.
    // The page's own variables (built on wait.ts) are used so the number always matches what users see;
    // random queueing shows a 25th–75th percentile range, so its top is the 75th percentile.
    const variables = queueVariables({ settings, snapshot, plan, bucketId: undefined, newlyQueued: false, refreshIntervalSeconds: 0, now, messages })
    if (variables.waitTimeKnown) maxEstimatedTimeMinutes = variables.waitTime75Percentile
  }
  return {
    status,
    estimatedQueuedUsers: snapshot.waitingUsers,
    estimatedTotalActiveUsers: snapshot.activeUsers,
    maxEstimatedTimeMinutes,
    event: settings.phase.event ?? null,
    locations: snapshot.locations,
  }
}
