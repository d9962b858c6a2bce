/**
 * @module
 * Reference traffic tables at a location stage (split14, src/coordination/reference.ts). The room-wide authority
 * is the room's global object (`fix`, global-object.ts): a stage forwards its workers' proposals there and passes
 * its answer back. What the global object answered is fixed for good (for its epoch), so the stage keeps it and
 * answers later proposals of that minute itself, and concurrent syncs of one minute share one call: the global
 * object gets about one call per location and minute, not one per worker isolate. A minute the global object has
 * not answered (unreachable) is left out of the answer — "not fixed yet": the stage never answers a table of its
 * own, and the worker proposes the minute again with its next sync.
 */
import { minuteOf } from '../../src/clock.ts'
import { REFERENCE_KEEP_MINUTES, ReferenceBook, type TrafficReference } from '../../src/coordination/reference.ts'

/** The room-wide fixing of references (the global object's `fix`): answers the stored reference of every minute proposed. */
export type FixReferences = (proposals: TrafficReference[], now: number) => Promise<TrafficReference[]>

export class StageReferences {
  /** Minute → the global object's answer for it (undefined: it did not answer; asked again next time). */
  readonly #answers = new Map<number, Promise<TrafficReference | undefined>>()
  /** The room epoch the kept answers belong to: a new epoch (a lost state) asks again. */
  #epoch: string | undefined
  /** A stage with no global object (one location: tests) fixes in its own memory. */
  readonly #local = new ReferenceBook()

  /** The references answered for `proposals` (undefined for none proposed); minutes not fixed yet left out. */
  async answer(proposals: TrafficReference[] | undefined, now: number, epoch: string | undefined, fix: FixReferences | undefined): Promise<TrafficReference[] | undefined> {
    if (!proposals?.length) return undefined
    if (!fix) return this.#local.fix(proposals, minuteOf(now))
    // A stage that has not exchanged since its start knows no epoch yet: what it kept is of the one it will learn.
    if (epoch !== undefined && this.#epoch !== undefined && epoch !== this.#epoch) this.#answers.clear()
    this.#epoch = epoch ?? this.#epoch
    const oldest = minuteOf(now) - REFERENCE_KEEP_MINUTES
    for (const minute of this.#answers.keys()) if (minute < oldest) this.#answers.delete(minute)
    const unasked = proposals.filter((proposal) => !this.#answers.has(proposal.minute))
    if (unasked.length > 0) this.#ask(fix, unasked, now)
    const answered: TrafficReference[] = []
    for (const proposal of proposals) {
      const reference = await this.#answers.get(proposal.minute)
      if (reference) answered.push(reference)
    }
    return answered.length > 0 ? answered : undefined
  }

  /** One call for the minutes no sync has asked yet; a minute it fails to answer is forgotten, so the next sync asks again. */
  #ask(fix: FixReferences, proposals: TrafficReference[], now: number): void {
    const call = fix(proposals, now).catch(() => [] as TrafficReference[])
    for (const { minute } of proposals) {
      const answer = call.then((references) => references.find((reference) => reference.minute === minute))
      this.#answers.set(minute, answer)
      void answer.then((reference) => {
        if (!reference && this.#answers.get(minute) === answer) this.#answers.delete(minute)
      })
    }
  }
}
