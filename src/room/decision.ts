/**
 * @module
 * What the room decided for a request, as the origin sees it (`c.get('waitingRoom')`), and the handle a
 * running room gives the admin API and servers.
 */
import type { Context, Env, MiddlewareHandler } from 'hono'
import type { Coordinator } from '../coordination/coordinator.ts'
import type { RoomMetrics } from './metrics.ts'
import type { ResolvedOptions } from './options.ts'
import type { MinutePlan } from '../admission/plan.ts'
import type { EffectiveSettings, SettingsSource } from '../admission/settings.ts'
import type { Snapshot } from '../admission/snapshot.ts'
import type { WorkerLink } from '../coordination/worker-link.ts'

/** Why a request got its outcome (each reason implies one outcome, see `OUTCOME_OF` in metrics.ts). */
export type DecisionReason =
  | 'session' // admitted: a live admitted ticket
  | 'slot' // admitted now through a counter
  | 'passthrough' // admitted and counted: queueing method passthrough
  | 'fail-open' // admitted: the coordinator failed and failMode is open
  | 'suspended' // bypassed: the room is suspended, no ticket
  | 'bypass' // bypassed: not covered (path, host, method, rule or verified crawler)
  | 'no-slot' // queued: no slot this minute
  | 'not-eligible' // queued: older buckets come first (FIFO)
  | 'too-early' // queued: check-in before the refresh interval; nothing decided
  | 'queue-all' // queued: the room queues everyone
  | 'prequeue' // queued: an event has not started yet
  | 'fail-closed' // queued: the coordinator failed and failMode is closed
  | 'reject' // rejected: queueing method reject

/** The decision, available to the origin as `c.get('waitingRoom')`. */
export interface WaitingRoomDecision {
  outcome: 'admitted' | 'queued' | 'rejected' | 'bypassed'
  reason: DecisionReason
  ticketId?: string
  /** ms of admission, for admitted users. */
  acceptedAt?: number
  /** Minute number of the user's queue bucket. */
  bucketId?: number
}

export type WaitingRoomVariables = { waitingRoom: WaitingRoomDecision }
/** Add to your app's Env (`new Hono<WaitingRoomEnv>()`) to type `c.get('waitingRoom')`. */
export type WaitingRoomEnv = { Variables: WaitingRoomVariables }

/** What the admin API needs from a running room (`waitingRoomAdmin(room, …)`). */
export interface RoomHandle {
  readonly roomId: string
  readonly options: ResolvedOptions
  readonly settings: SettingsSource
  readonly metrics: RoomMetrics
  readonly link: WorkerLink
  coordinatorOf(c: Context): Coordinator
  locationOf(c: Context): string
  /** Reports this worker's pending counts now (call before shutting a server down). */
  flush(): Promise<void>
  /** The snapshot and plan now, syncing first when this worker has none. */
  status(c: Context): Promise<{ settings: EffectiveSettings; snapshot: Snapshot; plan: MinutePlan }>
}

export type WaitingRoomMiddleware<E extends Env = Env> = MiddlewareHandler<E & WaitingRoomEnv> & { readonly room: RoomHandle }
