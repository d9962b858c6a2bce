/**
 * @module
 * What the room decided for a request, as the origin sees it (`c.get('waitingRoom')`), and the handle a
 * running room gives the admin API and servers.
 */
import type { Context, Env, MiddlewareHandler } from 'hono'
import type { Coordinator } from '../coordination/coordinator.ts'
import type { RoomMetrics } from './metrics.ts'
import type { DecisionReason } from './reasons.ts'
import type { ResolvedOptions } from './options.ts'
import type { MinutePlan } from '../admission/plan.ts'
import type { EffectiveSettings, SettingsSource } from '../admission/settings.ts'
import type { Snapshot } from '../admission/snapshot.ts'
import type { WorkerLink } from '../coordination/worker-link.ts'
import type { RuleSource } from '../rules/store.ts'
import type { HistoryRecorder } from '../history/recorder.ts'

/** The decision, available to the origin as `c.get('waitingRoom')`. */
export type { DecisionReason } from './reasons.ts'

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
  /** Runtime bypass rules (admin `/rules`). */
  readonly rules: RuleSource
  readonly metrics: RoomMetrics
  readonly link: WorkerLink
  coordinatorOf(c: Context): Coordinator
  locationOf(c: Context): string
  /** This worker's history recorder (the admin API writes its pending minutes before reading analytics). */
  readonly history?: HistoryRecorder
  /** Reports this worker's pending counts and writes its pending history now (call before shutting a server down). */
  flush(): Promise<void>
  /** The snapshot and plan now, syncing first when this worker has none. */
  status(c: Context): Promise<{ settings: EffectiveSettings; snapshot: Snapshot; plan: MinutePlan }>
}

export type WaitingRoomMiddleware<E extends Env = Env> = MiddlewareHandler<E & WaitingRoomEnv> & { readonly room: RoomHandle }
