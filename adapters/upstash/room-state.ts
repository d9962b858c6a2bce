/**
 * @module
 * Reading the sync script's reply: the room's epoch, then every location's counts, with the counters'
 * private fields folded into the core's (`keys.ts` `grantFields`). Folding here, in the worker, keeps the
 * new-user script to one write for the slot and the admission it adds (#16): Redis never adds them up.
 */
import type { LocationState, RoomEpoch, RoomState } from '../../src/coordination/state.ts'
import type { TrafficReference } from '../../src/coordination/reference.ts'
import { activeField, admittedField, anywhereAdmittedField } from '../../src/coordination/state.ts'
import { PRIVATE_FIELD } from './keys.ts'
import { replyArray } from './run-script.ts'
import { syncScript } from './scripts.ts'

/** `at:reportId` as the script stores it (with its '@'), back into an epoch. */
export function readEpoch(stored: unknown): RoomEpoch {
  const text = String(stored).slice(1)
  const colon = text.indexOf(':')
  return { id: text.slice(colon + 1), startedAt: Number(text.slice(0, colon)) }
}

/** Adds `delta` to `counts[field]`, dropping a field that reaches zero. */
function add(counts: Record<string, number>, field: string, delta: number): void {
  const value = (counts[field] ?? 0) + delta
  if (value === 0) delete counts[field]
  else counts[field] = value
}

/**
 * Counts of one location from its hash's flat field/value list. A private field `~Xm` adds its grants to
 * `a{m}` and `n{m}` (and `y{m}` for Anywhere grants): admissions = ~c − ~b + ~g + ~h.
 */
export function readCounts(fields: unknown[]): Record<string, number> {
  const counts: Record<string, number> = {}
  const admitted = new Map<number, [all: number, anywhere: number]>()
  for (let j = 0; j + 1 < fields.length; j += 2) {
    const field = String(fields[j])
    const value = Number(fields[j + 1])
    if (!field.startsWith(PRIVATE_FIELD)) {
      add(counts, field, value)
      continue
    }
    const minute = Number(field.slice(2))
    const entry = admitted.get(minute) ?? [0, 0]
    const kind = field[1]
    entry[0] += kind === 'b' ? -value : value
    if (kind === 'h') entry[1] += value
    admitted.set(minute, entry)
  }
  for (const [minute, [all, anywhere]] of admitted) {
    add(counts, activeField(minute), all)
    add(counts, admittedField(minute), all)
    add(counts, anywhereAdmittedField(minute), anywhere)
  }
  return counts
}

/**
 * Reads the sync script's reply ('@'epoch, the generation, the moves' answers, the stored references as '@'JSON,
 * then triples '@'name, updatedAt, [field, value, …]) into a room state.
 */
export function readRoomState(reply: unknown, at: number): RoomState {
  const flat = replyArray(syncScript, reply)
  const locations: Record<string, LocationState> = {}
  for (let i = 4; i + 2 < flat.length; i += 3) {
    const counts = readCounts(replyArray(syncScript, flat[i + 2]))
    locations[String(flat[i]).slice(1)] = { counts, updatedAt: Number(flat[i + 1]) }
  }
  const state: RoomState = { locations, at, epoch: readEpoch(flat[0]), generation: Number(flat[1]) }
  const answers = replyArray(syncScript, flat[2])
  if (answers.length > 0) {
    const moved: Record<string, number> = {}
    for (let j = 0; j + 1 < answers.length; j += 2) moved[String(answers[j])] = Number(answers[j + 1])
    state.moved = moved
  }
  const references = replyArray(syncScript, flat[3])
  // '@'-prefixed so @upstash/redis's automatic deserialization leaves the JSON to this parse.
  if (references.length > 0) state.references = references.map((stored) => JSON.parse(String(stored).slice(1)) as TrafficReference)
  return state
}
