/**
 * @module
 * Explains one premature queueing decision: rebuilds the deciding worker's view with the core's own
 * pure functions (`buildSnapshot`, `planMinute`) and reads the counter calls the decision made.
 */
import type { WaitingRoomDecision } from '../room/middleware.ts'
import { planMinute } from '../admission/plan.ts'
import { buildSnapshot, type Snapshot } from '../admission/snapshot.ts'
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

function viewOf(state: RoomState, now: number, room: RoomSpec): { snapshot: Snapshot; remaining: number } {
  let view = views.get(state)
  if (!view || view.now !== now) {
    const snapshot = buildSnapshot(state, now, room.sessionDurationMinutes)
    views.set(state, (view = { now, snapshot, remaining: planMinute(snapshot, room).remaining }))
  }
  return view
}

/** Examples carry the worker's view; decisions beyond these are only counted by cause. */
export function diagnose(queued: QueueDecision, truth: Truth, room: RoomSpec, withView: boolean): PrematureExample {
  const { worker, decision, calls } = queued
  const state = worker.view.state
  // Rebuilt only when the cause or the example needs it: a pass over every location (300 at planet size).
  const needsView = state !== undefined && (withView || (decision.reason === 'no-slot' && calls.length === 0))
  const view = needsView ? viewOf(state, truth.now, room) : undefined
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
