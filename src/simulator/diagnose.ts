/**
 * @module
 * Explains one premature queueing decision: rebuilds the deciding worker's view with the core's
 * snapshot builder and slot math (`availableSlots`, as `planMinute` uses it) and reads the counter calls the decision made.
 */
import type { WaitingRoomDecision } from '../room/middleware.ts'
import { availableSlots } from '../admission/slots.ts'
import type { Snapshot } from '../admission/snapshot.ts'
import { SnapshotBuilder } from '../admission/snapshot-builder.ts'
import type { RoomState } from '../coordination/state.ts'
import type { CounterCall } from './counter-log.ts'
import type { Worker } from './fleet.ts'
import type { PrematureCause, PrematureExample } from './metrics.ts'
import type { RoomSpec } from './scenario.ts'

export interface QueueDecision {
  worker: Worker
  decision: WaitingRoomDecision
  calls: readonly CounterCall[]
}

export interface Truth {
  /** ms from the start of the run. */
  atMs: number
  /** Epoch ms (the clock the core sees). */
  now: number
  activeUsers: number
  admittedThisMinute: number
}

/** The worker's view rebuilt once per state and time: a busy step diagnoses many decisions of one worker. */
const views = new WeakMap<RoomState, { now: number; snapshot: Snapshot; remaining: number }>()
/** Each worker's view follows its states incrementally, as the worker's own snapshot does. */
const builders = new WeakMap<Worker, SnapshotBuilder>()

function viewOf(worker: Worker, state: RoomState, now: number, room: RoomSpec): { snapshot: Snapshot; remaining: number } {
  let view = views.get(state)
  if (!view || view.now !== now) {
    let builder = builders.get(worker)
    if (!builder) builders.set(worker, (builder = new SnapshotBuilder()))
    const snapshot = builder.build(state, now, room.sessionDurationMinutes)
    // The plan's remaining slots without a plan of the minute before (planMinute's, less its allocation).
    const slots = availableSlots(room, snapshot.activeUsers, snapshot.admittedThisMinute)
    views.set(state, (view = { now, snapshot, remaining: Math.max(0, slots - snapshot.admittedThisMinute) }))
  }
  return view
}

/** Examples carry the worker's view; decisions beyond these are only counted by cause. */
export function diagnose(queued: QueueDecision, truth: Truth, room: RoomSpec, withView: boolean): PrematureExample {
  const { worker, decision, calls } = queued
  const state = worker.view.state
  // Rebuilt only when the cause or the example needs it: a pass over every location (300 at planet size).
  const needsView = state !== undefined && (withView || (decision.reason === 'no-slot' && calls.length === 0))
  const view = needsView ? viewOf(worker, state, truth.now, room) : undefined
  const snapshot = view?.snapshot
  let cause: PrematureCause
  if (decision.reason === 'not-eligible') cause = 'not-eligible'
  else if (decision.reason !== 'no-slot' || !state) cause = 'other'
  else if (calls.length > 0) cause = 'counters-full'
  else if (view!.remaining === 0) cause = 'view-full'
  else cause = room.queueingMethod === 'random' ? 'random-release' : 'held-for-queue'
  return {
    atMs: truth.atMs,
    location: worker.location,
    worker: worker.index,
    reason: decision.reason,
    cause,
    activeUsers: truth.activeUsers,
    admittedThisMinute: truth.admittedThisMinute,
    viewActiveUsers: snapshot?.activeUsers,
    viewAdmittedThisMinute: snapshot?.admittedThisMinute,
    counters: calls.map((c) => `${c.scope}:${c.seq}/${c.limit}`).join(' '),
  }
}
