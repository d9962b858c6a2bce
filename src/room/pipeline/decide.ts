/**
 * @module
 * The decide stage, for a user without a session (new, or queued with a ticket): a slot from the minute's
 * counters, or a place in the queue — and the counts that decision adds. The admission itself is counted by
 * the coordinator in the same atomic step that grants the slot; this worker only records what follows from
 * it (the queue place it leaves, the traffic it makes) and observes it locally until its next sync.
 */
import type { Context } from 'hono'
import { minuteOf, MINUTE_MS } from '../../clock.ts'
import { fifoLimits, randomLimits, releasedFraction, type CounterLimits } from '../../admission/plan.ts'
import { atMinuteEdge } from '../../admission/minute-edges.ts'
import type { EffectiveSettings } from '../../admission/settings.ts'
import type { Snapshot } from '../../admission/snapshot.ts'
import { admissionDeltas, ANYWHERE, type Coordinator, type Reentry, type SlotResult } from '../../coordination/coordinator.ts'
import { activeField, trafficField, waitingField } from '../../coordination/state.ts'
import { takeSlotBatched } from '../../coordination/slot-batch.ts'
import { withTimeout } from '../../coordination/timeout.ts'
import { randomId, type Ticket } from '../../ticket/ticket.ts'
import type { DecisionReason } from '../decision.ts'
import type { Room } from '../room.ts'
import { mayHoldSlot } from './lookup.ts'
import { jitteredRefresh, queuedRefresh } from './queued-refresh.ts'

/** Prequeued users of a shuffled event get one of this many buckets before the start, at random. */
const SHUFFLE_BUCKETS = 60

export interface Decision {
  outcome: 'admitted' | 'queued' | 'rejected'
  reason: DecisionReason
  ticketId: string
  bucketId: number | undefined
  snapshot: Snapshot | undefined
  /** Seconds until the next check-in counts (0: no refresh). */
  refresh: number
  /** True when this request gave the user their first place in line. */
  newlyQueued: boolean
  /** A too-early check-in: ms of the last counted one, which the page's `lastUpdated` keeps showing. */
  lastCountedAt?: number
}

/** Decides for a user without a session and records what it counts (`countQueued` false: a user held by the challenge is admitted if a place is free, else counted nowhere). */
export async function decide(room: Room, c: Context, s: EffectiveSettings, ticket: Ticket | undefined, now: number, countQueued = true): Promise<Decision> {
  if (s.queueingMethod === 'reject') {
    return { outcome: 'rejected', reason: 'reject', ticketId: '', bucketId: undefined, snapshot: undefined, refresh: 0, newlyQueued: false }
  }
  const queued = ticket !== undefined // a live ticket that is not admitted is a queued one
  const ticketId = ticket?.ticketId ?? randomId()
  room.link.setSessionDuration(s.sessionDurationMinutes, now)
  const location = room.locationOf(c)
  const coordinator = room.coordinatorOf(c)

  // Refresh spam buys nothing: a check-in before the interval is over gets the page again, undecided.
  if (ticket && checksInTooEarly(ticket, now)) return tooEarlyDecision(room, c, ticket, now, location, coordinator)

  const minute = minuteOf(now)
  const asked = await askForSlot(room, s, coordinator, location, ticket, ticketId, now)
  // A client held by the challenge gets in only on a place a counter grants (or passthrough), never on fail-open.
  if (!countQueued && asked.result.admitted && asked.reason !== 'slot' && asked.reason !== 'passthrough') asked.result = { admitted: false, roundTrips: 0 }
  const { result, reason, snapshot, bucketId } = asked
  // An arrival is a user given a session or a place in line: not a queue-full answer, nor one held by the challenge.
  if (result.admitted) {
    if (!queued) room.history.arrived(now, location)
    recordAdmission(room, location, ticket, bucketId, minute, ticketId, result)
    room.report(c, location, now, coordinator)
    return { outcome: 'admitted', reason, ticketId, bucketId, snapshot, refresh: 0, newlyQueued: false }
  }
  // From the full-queue check to counting the place, no await: a worker never gives more places than it saw free.
  if (!queued && queueIsFull(room, now)) {
    // A full queue takes nobody new: no check-in recorded, no ticket (the middleware sets none for this reason).
    room.report(c, location, now, coordinator)
    return { outcome: 'queued', reason: 'queue-full', ticketId, bucketId, snapshot, refresh: jitteredRefresh(room), newlyQueued: false }
  }
  if (countQueued) {
    if (!queued) {
      room.history.arrived(now, location)
      room.link.noteNewQueuePlace()
    }
    recordQueueCheckIn(room, location, ticket, bucketId, minute, ticketId)
  }
  room.report(c, location, now, coordinator)
  return { outcome: 'queued', reason, ticketId, bucketId, snapshot, refresh: queuedRefresh(room, s, asked, now), newlyQueued: !queued }
}

/** A check-in this much before its refresh interval is over still counts (browser timers are not exact). */
export const CHECK_IN_TOLERANCE_MS = 1000

/** True when a queued `ticket` checks in too early at `now` to count. */
export function checksInTooEarly(ticket: Ticket, now: number): boolean {
  return now < ticket.lastCheckInTime + ticket.refreshIntervalSeconds * 1000 - CHECK_IN_TOLERANCE_MS
}

/** The decision for a too-early check-in (`checksInTooEarly`): the page again, its refresh the time left. */
export function tooEarlyDecision(room: Room, c: Context, ticket: Ticket, now: number, location: string, coordinator: Coordinator): Decision {
  room.report(c, location, now, coordinator)
  const dueAt = ticket.lastCheckInTime + ticket.refreshIntervalSeconds * 1000
  const left = Math.max(1, Math.ceil((dueAt - now) / 1000))
  return { outcome: 'queued', reason: 'too-early', ticketId: ticket.ticketId, bucketId: ticket.bucketId, snapshot: room.link.snapshot(now), refresh: left, newlyQueued: false, lastCountedAt: ticket.lastCheckInTime }
}

export interface Asked {
  result: SlotResult
  reason: DecisionReason
  snapshot: Snapshot | undefined
  bucketId: number
  /** Refused only for the minute's edge (`clockSkewToleranceMs`, minute-edges.ts): a place may be free just after it. */
  atEdge?: boolean
}

/** The room's rules in order: prequeue, passthrough, queue-all, a recovering room, the counters (also session.ts `reenter`). */
export async function askForSlot(
  room: Room,
  s: EffectiveSettings,
  coordinator: Coordinator,
  location: string,
  ticket: Ticket | undefined,
  ticketId: string,
  now: number, reentry?: Reentry, // a pending renewal re-entering (session.ts `reenter`): its grant sets the ticket's register too
): Promise<Asked> {
  const { o } = room
  const minute = minuteOf(now)
  const asked: Asked = { result: { admitted: false, roundTrips: 0 }, reason: 'no-slot', snapshot: undefined, bucketId: ticket?.bucketId ?? minute }
  try {
    const snapshot = (asked.snapshot = await room.link.ready(coordinator, location, now))
    const event = s.phase.event
    if (s.phase.prequeueing && event) {
      asked.reason = 'prequeue'
      // Prequeued users go before everyone arriving after the start; shuffled, in a random order among themselves.
      if (!ticket && event.shuffleAtEventStart) asked.bucketId = minuteOf(event.eventStartTime) - 1 - Math.floor(o.random() * SHUFFLE_BUCKETS)
    } else if (s.queueingMethod === 'passthrough') {
      asked.result = { admitted: true, roundTrips: 0 }
      asked.reason = 'passthrough'
    } else if (s.queueAll) {
      asked.reason = 'queue-all'
    } else if (snapshot.recovering && o.failMode === 'closed') {
      asked.reason = 'recovering'
    } else if (room.link.lacksReference(coordinator, minute) && !(await room.link.awaitReference(coordinator, location, now, o.coordinatorTimeoutMs))) {
      asked.reason = 'no-slot' // no reference fixed for the minute (split14): split like no other view, so queued — not failMode
    } else if (ticket && !reentry && room.link.grants.holds(ticketId, minute)) {
      // A copy or retry of a ticket this worker got a slot this minute: the counter's first answer, no call (coordination/grant-register.ts).
      asked.result = room.link.grants.answer(ticketId, minute)
      asked.reason = 'slot'
    } else {
      const current = (asked.snapshot = room.link.snapshot(now) ?? snapshot) // rebuilt if the wait brought the reference
      const plan = room.planOf(current, s)
      const limits: CounterLimits | undefined =
        s.queueingMethod === 'random'
          ? randomLimits(plan, location, releasedFraction(o.roomId, minute, now - minute * MINUTE_MS))
          : fifoLimits(plan, location, ticket ? asked.bucketId : undefined)
      if (!limits) asked.reason = 'not-eligible'
      // No fresh grant near the minute's edges by this clock: a worker's minute is then every clock's within the tolerance (minute-edges.ts).
      const open = limits !== undefined && (limits.localLimit > 0 || limits.anywhereLimit > 0)
      asked.atEdge = open && atMinuteEdge(now, o.clockSkewToleranceMs)
      const grants = open && !asked.atEdge
      // A queued ticket given no place may hold one (a copy admitted this minute): limits 0 look it up (SlotRequest),
      // where it may (lookup.ts) — a queued user's refreshes cost no call (issue 16); a pending renewal always.
      if (grants || (ticket && (reentry || mayHoldSlot(room.link, current, plan, ticketId, asked.bucketId, minute)))) {
        // Read before the slot is taken: a sync while it is in flight may answer a state that holds it already.
        const reported = room.link.takenInState(location, minute)
        const request = {
          roomId: o.roomId, location, minute, ...(grants ? limits : { localLimit: 0, anywhereLimit: 0 }),
          localPreviousReported: current.takenLastAt(location) ?? 0,
          anywherePreviousReported: current.takenLastMinute.anywhere,
          token: ticketId, reentry, ...room.link.knownState(), // the state this worker knows: the grant step refuses a lost one
          recoveryMinutes: o.failMode === 'closed' ? s.sessionDurationMinutes + 1 : 0, // the counter refuses as the snapshot would
        }
        // No call for a new user a refusal this minute answers (refusals.ts); under 'open' an outage admits: ask (batched: slot-batch.ts).
        if (!ticket && o.failMode === 'closed' && room.refusals.refuses(location, minute, request)) return asked
        asked.result = await withTimeout(takeSlotBatched(coordinator, request), o.coordinatorTimeoutMs, coordinator.name)
        room.metrics.counterRoundTrips += asked.result.roundTrips
        if (asked.result.admitted) asked.reason = 'slot'
        else if (!asked.result.recovering && grants) room.refusals.note(location, minute, request) // a full counter, not a recovering room
        if (asked.result.recovering || counterWentBack(reported, asked.result)) {
          // A loss marked since this worker's last sync (perhaps by this grant), or a counter below what this worker
          // saw reported: the state was lost. A slot just taken stays counted (an over-count); nobody is let in on a
          // count that forgot the room, and the snapshot counts it as recovering, as after a sighting of its own.
          room.link.noteLostState(location, now)
          asked.result = { admitted: false, roundTrips: asked.result.roundTrips }
          asked.reason = 'recovering'
        } else if (asked.result.admitted && ticket && !reentry) room.link.grants.note(ticketId, minute, asked.result)
      }
    }
  } catch (error) {
    room.link.failed(error, now)
    asked.result = { admitted: o.failMode === 'open', roundTrips: 0 }
    asked.reason = o.failMode === 'open' ? 'fail-open' : 'fail-closed'
  }
  return asked
}

/**
 * A granting counter whose count is below what the coordinator had answered taken from it this minute before the slot
 * was asked for (that answer alone: this worker's own observed grants may be in it already, worker-link.ts `takenInState`).
 */
function counterWentBack(reported: { local: number; anywhere: number }, result: SlotResult): boolean {
  if (!result.admitted || result.repeat || result.seq === undefined) return false
  return result.seq < (result.via === 'anywhere' ? reported.anywhere : reported.local)
}

/**
 * What an admission adds beyond the coordinator's own count: the queue place it leaves and the traffic it
 * makes, once per worker and minute. A slot granted by a counter was counted by the counter; this worker only
 * observes it until its next sync. An admission no counter granted (passthrough, fail-open) is recorded here.
 */
function recordAdmission(room: Room, location: string, ticket: Ticket | undefined, bucketId: number, minute: number, ticketId: string, result: SlotResult): void {
  const { link } = room
  // A new user's id was drawn for this request: nobody can have been admitted with it before.
  if (ticket && !link.firstCheckIn(`admitted:${ticketId}`, minute)) return
  // Time in queue since the start of the ticket's first minute (its bucket); a new user waited 0 s.
  if (!result.repeat) room.history.admitted(room.o.clock(), location, ticket ? bucketId : undefined)
  if (result.via === undefined) {
    // Not a counter's grant (passthrough, fail-open): active, but not a slot taken from any counter, so that
    // the slots seen taken never exceed what the counters gave (which is how a lost counter is noticed).
    link.record(location, activeField(minute), 1)
  } else if (!result.repeat) {
    link.observe(location, admissionDeltas({ roomId: room.o.roomId, location, scope: result.via === 'anywhere' ? ANYWHERE : location, minute, limit: 0, token: ticketId }), { minute, result })
  }
  if (link.firstCheckIn(ticketId, minute)) link.record(location, trafficField(minute), 1)
  const previous = ticket ? minuteOf(ticket.lastCheckInTime) : undefined
  if (previous !== undefined && previous > minute - room.waitingWindow) link.record(location, waitingField(previous, bucketId), -1)
}

/** Counts a queued user's check-in in `minute`, moving them out of the minute of their previous one. */
function recordQueueCheckIn(room: Room, location: string, ticket: Ticket | undefined, bucketId: number, minute: number, ticketId: string): void {
  const { link } = room
  if (!link.firstCheckIn(ticketId, minute)) return
  link.record(location, trafficField(minute), 1)
  const previous = ticket ? minuteOf(ticket.lastCheckInTime) : undefined
  if (previous === minute) return
  if (previous !== undefined && previous > minute - room.waitingWindow) link.record(location, waitingField(previous, bucketId), -1)
  link.record(location, waitingField(minute, bucketId), 1)
}

/**
 * The queue holds `maxQueuedUsers`: the room-wide count of this worker's current snapshot (as of its last
 * sync) plus the new places this worker gave since that snapshot was built. Read now, not before the awaits of
 * the decision: concurrent requests of one worker each see the places given before them.
 */
export function queueIsFull(room: Room, now: number): boolean {
  const max = room.o.maxQueuedUsers
  if (max === undefined) return false
  const snapshot = room.link.snapshot(now)
  return snapshot !== undefined && snapshot.waitingUsers + room.link.newQueuePlaces >= max
}
