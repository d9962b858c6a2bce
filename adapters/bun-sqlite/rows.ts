/**
 * @module
 * The reads-and-writes every call is made of, run inside one transaction by the caller: take a slot from
 * one minute counter (and count the admission it grants), merge a report, and read a room's state back
 * into the shape the core merges, with the room's epoch.
 */
import { admissionDeltas, effectiveLimit, refusesWhileRecovering, repeatOf, type CounterRequest, type CounterResult } from '../../src/coordination/coordinator.ts'
import { lossAtGrant } from '../../src/coordination/grant-loss.ts'
import { moveStep, reenteredRegister, reentryExpiresAfter, registerExpiresAfter } from '../../src/coordination/moves.ts'
import { changesState, fieldMinute, lostMinuteIn, lostStateField, newEpoch, nextGeneration } from '../../src/coordination/state.ts'
import type { EpochMarker } from './epoch-marker.ts'
import { minuteOf } from '../../src/clock.ts'
import type { LocationState, RoomEpoch, RoomState, WorkerReport } from '../../src/coordination/state.ts'
import type { TrafficReference } from '../../src/coordination/reference.ts'
import type { Statements } from './schema.ts'

type Row<T> = T | null | undefined

/**
 * The conditional counter: a token known in the room's minute — at any scope, #14 — gets its first answer back; else a slot if `count` is below the
 * effective limit — `limit` lowered by what minute − 1 of the same counter gave beyond `previousReported`
 * (read in the same transaction; pruning keeps ≥ 3 minutes, so minute − 1 is still there). A fresh grant
 * adds its admission to the asking location's state here, in the caller's transaction: no crash can
 * separate the slot from its count.
 */
export function takeCounter(s: Statements, request: CounterRequest): CounterResult {
  const { roomId, scope, minute, limit: requested, previousReported, token } = request
  const seen = request.epoch !== undefined
  const read = decisionReads(s.decisionReads.get(minute, roomId, token, scope) as DecisionReads | DecisionValues)
  if (read.earlier != null) return repeatOf({ seq: read.earlier, scope: read.earlierScope! }, scope)
  const lostMinute = seen ? markLossAtGrant(s, request, read) : (read.lostMinute ?? undefined)
  if (refusesWhileRecovering(request, lostMinute)) {
    return { taken: false, seq: (s.readCounter.get(minute, roomId, scope) as Row<{ count: number }>)?.count ?? 0, recovering: true }
  }
  const previous = previousReported === undefined ? 0 : (read.previous ?? 0)
  const limit = effectiveLimit(requested, previous, previousReported)
  // A limit of 0 must not create the row with count 1, so it never reaches the UPSERT.
  if (limit > 0) {
    const taken = s.takeCounter.get(minute, roomId, scope, limit) as Row<{ seq: number }>
    if (taken != null) {
      s.rememberToken.run(minute, roomId, token, scope, taken.seq)
      if (request.location !== undefined) addAdmission(s, roomId, request.location, minute, admissionDeltas(request))
      if (request.reentry) enterRegister(s, request)
      return { taken: true, seq: taken.seq }
    }
  }
  const current = s.readCounter.get(minute, roomId, scope) as Row<{ count: number }>
  return { taken: false, seq: current?.count ?? 0 }
}

/** The same as values, in column order, where the driver answers arrays (better-sqlite3, schema.ts `valueRows`). */
type DecisionValues = [number | null, string | null, number | null, number | null, string | null, number | null]

const decisionReads = (row: DecisionReads | DecisionValues): DecisionReads =>
  Array.isArray(row)
    ? { earlier: row[0], earlierScope: row[1], lostMinute: row[2], previous: row[3], epoch: row[4], generation: row[5] }
    : row

/** What a decision reads in one statement step (schema.ts `decisionReads`). */
interface DecisionReads {
  earlier: number | null
  /** The scope whose counter gave the token's first answer (with `earlier`). */
  earlierScope: string | null
  lostMinute: number | null
  previous: number | null
  epoch: string | null
  generation: number | null
}

/**
 * A re-entry's fresh grant sets its ticket's register to the grant's minute (moves.ts `reenteredRegister`), in the
 * grant's transaction: the next renewal moves the count the grant made.
 */
function enterRegister(s: Statements, { roomId, minute, reentry }: CounterRequest): void {
  const held = (s.readRegister.get(roomId, reentry!.ticket) as Row<{ minute: number }>)?.minute ?? undefined
  if (reenteredRegister(held, minute) !== undefined) s.writeRegister.run(roomId, reentry!.ticket, minute, reentryExpiresAfter(reentry!, minute))
}

/**
 * A grant's admission fields, all of the grant's minute (`admissionDeltas`), added without {@link addDeltas}'s
 * per-field minute parsing and loss-mark scan: an admission is never a loss mark (#16).
 */
function addAdmission(s: Statements, roomId: string, location: string, minute: number, deltas: Record<string, number>): void {
  for (const field in deltas) s.addField.run(roomId, location, field, minute, deltas[field]!)
}

/**
 * The file's room is not the state the asking worker knew (its epoch gone or another, its generation below the
 * worker's: `lossAtGrant`): marked in this transaction as a sync's sighting marks it — `R{minute}` in the asking
 * location, the lost minute, the generation moved — so the recovery check right after refuses the grant. Answers
 * the room's lost minute after it. The stored epoch and generation come from the decision's one read.
 */
function markLossAtGrant(s: Statements, request: CounterRequest, read: DecisionReads): number | undefined {
  const { roomId, minute } = request
  const lostMinute = read.lostMinute ?? undefined
  const current = read.generation ?? 0
  const loss = lossAtGrant(request, { epoch: read.epoch ?? undefined, generation: current, lostMinute })
  if (!loss) return lostMinute
  addDeltas(s, roomId, request.location!, { [lostStateField(minute)]: 1 })
  if (loss.generation !== current) s.writeGeneration.run(roomId, loss.generation)
  return minute // the lost minute addDeltas just wrote (lossAtGrant marks only past the one held)
}

/**
 * Merges a report into its location: its deltas, then the deltas of each `once` key no report of the room
 * claimed before (the room-wide registry, claimed in this transaction). Returns false for a report id already
 * applied (a retry), which changes nothing.
 */
export function applyReport(s: Statements, report: WorkerReport): boolean {
  const { roomId, location, at } = report
  if (s.claimReport.get(roomId, report.id, at) == null) return false
  addDeltas(s, roomId, location, report.deltas)
  for (const key in report.once ?? {}) {
    if (s.claimOnce.get(roomId, key, minuteOf(at)) != null) addDeltas(s, roomId, location, report.once![key]!)
  }
  s.touchLocation.run(roomId, location, at)
  return true
}

/**
 * Applies the report's moves against the room's registers (moves.ts `moveStep`), in the report's transaction — on
 * a retry too, where they change nothing — adding their deltas to the reporting location. Answers the minute each
 * ticket holds, or undefined for a report with no moves.
 */
export function applyMoves(s: Statements, report: WorkerReport): Record<string, number> | undefined {
  if (!report.moves?.length) return undefined
  const moved: Record<string, number> = {}
  for (const move of report.moves) {
    const held = (s.readRegister.get(report.roomId, move.ticket) as Row<{ minute: number }>)?.minute ?? undefined
    const outcome = moveStep(held, move)
    if (outcome.changed) {
      s.writeRegister.run(report.roomId, move.ticket, outcome.held!, registerExpiresAfter(move))
      addDeltas(s, report.roomId, report.location, outcome.deltas)
      s.touchLocation.run(report.roomId, report.location, report.at)
    }
    moved[move.ticket] = outcome.answer
  }
  return moved
}

/**
 * The room's epoch, created now (by this report) when the file holds none for the room: its state is new. With
 * a `marker` beside the file (epoch-marker.ts) naming another epoch, the room had a state at this path that is
 * gone: the new one starts marked as recovering, in this transaction.
 */
export function roomEpoch(s: Statements, roomId: string, report: WorkerReport, marker?: EpochMarker): RoomEpoch {
  const known = s.readEpoch.get(roomId) as Row<RoomEpoch>
  if (known != null) {
    marker?.keep(roomId, known.id)
    return { id: known.id, startedAt: known.startedAt }
  }
  const epoch = newEpoch(report.id, report.at)
  s.createEpoch.run(roomId, epoch.id, epoch.startedAt)
  const before = marker?.previous(roomId)
  if (before !== undefined && before !== epoch.id) addDeltas(s, roomId, report.location, { [lostStateField(minuteOf(report.at))]: 1 })
  marker?.record(roomId, epoch.id)
  return epoch
}

/**
 * Advances the room's generation for this sync (`nextGeneration`): a report that saw a later generation of this
 * epoch than the file holds finds an older copy put back, and the room is marked recovering in this transaction.
 */
export function advanceGeneration(s: Statements, roomId: string, report: WorkerReport, epoch: RoomEpoch, applied: boolean, marker?: EpochMarker): number {
  const current = (s.readGeneration.get(roomId) as Row<{ generation: number }>)?.generation ?? 0
  // The marker beside the file remembers the highest generation of this epoch a process on the path saw: a
  // sighting of its own, so a process starting on a restored copy notices before any worker or ticket tells it.
  const remembered = marker?.generation(roomId, epoch.id)
  const seen = report.seen
  const judged =
    remembered !== undefined && remembered > current && !(seen?.epoch === epoch.id && seen.generation >= remembered)
      ? { ...report, seen: { epoch: epoch.id, generation: remembered } }
      : report
  const { generation, restored } = nextGeneration(current, judged, epoch.id, applied && changesState(report))
  if (restored) addDeltas(s, roomId, report.location, { [lostStateField(minuteOf(report.at))]: 1 })
  if (generation !== current) s.writeGeneration.run(roomId, generation)
  return generation
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

/** Adds deltas to a location; a loss mark among them also moves the room's lost minute (read by every grant). */
function addDeltas(s: Statements, roomId: string, location: string, deltas: Record<string, number>): void {
  for (const field in deltas) {
    const amount = deltas[field]!
    if (amount !== 0) s.addField.run(roomId, location, field, fieldMinuteOrThrow(field), amount)
  }
  const lost = lostMinuteIn(deltas)
  if (lost !== undefined) s.markLost.run(roomId, lost)
}

/** A field without a minute is a bug in the caller: fail the call rather than keep the field forever. */
function fieldMinuteOrThrow(field: string): number {
  const minute = fieldMinute(field)
  if (!Number.isInteger(minute)) throw new Error(`field "${field}" has no minute number`)
  return minute
}

/** Parsed references by (room, minute, id): the workers of a process share one table object per minute (their plans' caches too). */
const parsedReferences = new Map<string, TrafficReference>()
const PARSED_REFERENCES_KEPT = 1024

/**
 * Fixes each proposed reference whose minute the room has none for (INSERT OR IGNORE: first writer wins, room-wide,
 * in the sync's transaction — on a retried report too) and answers the one stored for every proposed minute.
 */
export function fixReferences(s: Statements, roomId: string, proposals: readonly TrafficReference[] | undefined): TrafficReference[] | undefined {
  if (!proposals || proposals.length === 0) return undefined
  return proposals.map((proposal) => {
    s.fixReference.run(roomId, proposal.minute, proposal.id, JSON.stringify(proposal.table))
    const stored = s.readReference.get(roomId, proposal.minute) as Row<{ id: string; traffic: string }>
    if (stored == null) return proposal // not reached: the row was written or found above
    if (stored.id === proposal.id) return proposal
    const key = `${roomId}\n${proposal.minute}\n${stored.id}`
    let parsed = parsedReferences.get(key)
    if (!parsed) {
      if (parsedReferences.size >= PARSED_REFERENCES_KEPT) parsedReferences.clear()
      parsedReferences.set(key, (parsed = { minute: proposal.minute, table: JSON.parse(stored.traffic) as Record<string, number>, id: stored.id }))
    }
    return parsed
  })
}
