/**
 * @module
 * A worker's own check that a sync answered a state rolled back behind what it knew (#14.4, breaklimits
 * cli-lost-backend): an older copy of a SQLite file, an older Redis RDB, put back. The generation catches a copy
 * older than what the first writer after it had seen (`nextGeneration`), but not one that writer caught up with:
 * a copy taken just before a grant, put back before the granting worker's report landed, is advanced by that
 * report (its `seen` no higher than the copy's) to the very generation the lost state had reached — and then past
 * it — so no later `seen` is ever above the store's, and the room shows free the places of live sessions. The
 * counts tell: a granting counter holds at least its grant's `seq` + 1 from the grant's atomic step on, and
 * admissions (`n{m}`, `y{m}`) and check-ins (`t{m}`) are only ever added, so in one store neither goes down from
 * one answer to the next. Checked only where answers are one store's linearizable reads: adapters answering a
 * generation (SQLite, Redis, Deno KV) — exactly the ones whose state can be put back. Other answers (layered,
 * cached) may lag one another. The current and previous minute only: a copy older than that is, as a rule, behind the
 * generations the workers saw since, which `nextGeneration` catches.
 */
import { admittedField, anywhereAdmittedField, trafficField, type RoomState } from './state.ts'

/** The minutes compared: the current one and the one before (every adapter keeps both; older ones may be pruned). */
const minutesOf = (minute: number): number[] => [minute - 1, minute]
const fieldsOf = (minute: number): string[] => minutesOf(minute).flatMap((m) => [admittedField(m), anywhereAdmittedField(m), trafficField(m)])

/** Lowest counts a counter can hold after a grant: its `seq` + 1, per counter (`{minute} {location}` or `{minute} *`). */
export type GrantFloors = Map<string, number>
const floorKey = (minute: number, location: string | undefined): string => `${minute} ${location ?? '*'}`

/**
 * The slots this worker's grants took, as floors: a granting counter holds at least `seq + 1` from its grant's
 * atomic step on, so every answer read after the grant answered shows at least that many in that minute — the
 * location's own counter as its `n{m} − y{m}`, the Anywhere counter as every location's `y{m}` (as `takenInState`
 * reads them). Sound whatever the timing: the previous answer may hold a grant or not, the floor is the same.
 */
export class OwnGrants {
  #floors: GrantFloors = new Map()

  /** A grant of `minute` by `location`'s counter or the Anywhere one, with the counter's value before it. */
  note(location: string, minute: number, via: 'location' | 'anywhere', seq: number): void {
    const key = floorKey(minute, via === 'anywhere' ? undefined : location)
    if (!((this.#floors.get(key) ?? 0) > seq)) this.#floors.set(key, seq + 1)
  }

  /** A copy to compare a sync's answer with, taken before the sync is sent (a grant noted later may not be in it). */
  snapshot(minute: number): GrantFloors {
    for (const key of this.#floors.keys()) if (Number(key.slice(0, key.indexOf(' '))) < minute - 1) this.#floors.delete(key)
    return new Map(this.#floors)
  }

  /**
   * Forgets the floors of `taken` (a {@link snapshot}) once a rolled-back state is marked: the store lost those
   * grants for good, and comparing again would mark the loss anew in the next minute (a recovery longer than the loss).
   */
  forget(taken: GrantFloors): void {
    for (const [key, floor] of taken) if (this.#floors.get(key) === floor) this.#floors.delete(key)
  }
}

/** What `state` shows a counter gave: a location's own (`n − y` there) or the Anywhere one (`y` everywhere). */
function shownTaken(state: RoomState, key: string): number {
  const space = key.indexOf(' ')
  const minute = Number(key.slice(0, space))
  const location = key.slice(space + 1)
  const y = anywhereAdmittedField(minute)
  if (location !== '*') {
    const counts = state.locations[location]?.counts
    return counts ? (counts[admittedField(minute)] ?? 0) - (counts[y] ?? 0) : 0
  }
  let anywhere = 0
  for (const name in state.locations) anywhere += state.locations[name]!.counts[y] ?? 0
  return anywhere
}

/**
 * Whether `next` (answered with a generation) shows fewer slots taken than this worker's own grants took (`own`,
 * taken before the sync was sent), or — of the same epoch as `previous` — fewer admissions or check-ins at some
 * location than `previous` did, in `minute` or the one before: the store went back to an older copy of itself.
 */
export function rolledBack(previous: RoomState | undefined, next: RoomState, own: GrantFloors, minute: number): boolean {
  if (next.generation === undefined || next.epoch === undefined) return false
  for (const [key, floor] of own) if (shownTaken(next, key) < floor) return true
  if (previous?.generation === undefined || previous.epoch?.id !== next.epoch.id) return false
  const fields = fieldsOf(minute)
  for (const location in previous.locations) {
    const before = previous.locations[location]!.counts
    const after = next.locations[location]?.counts
    for (const field of fields) if ((after?.[field] ?? 0) < (before[field] ?? 0)) return true
  }
  return false
}
