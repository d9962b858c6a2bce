/**
 * @module
 * The counter grants this worker got for queued tickets in the current minute, by token, so that a copy or retry
 * of a ticket it admitted (sametick18: a browser's retry, a second tab, the same cookie sent twice in one turn) gets
 * the counter's first answer again without a coordinator call (room/pipeline/decide.ts). The counters would answer exactly that: a token
 * holds one slot of the minute, and its later asks are repeats (coordinator.ts `repeatOf`). Without it each such
 * copy, once the minute's places are gone, cost a lookup at the counters — a call a flood of copies of
 * one admitted cookie could repeat at will. Copies reaching other workers still look up there (lookup.ts).
 */
import type { SlotResult } from './coordinator.ts'

/** Grants remembered per minute at most: past it the oldest go (their copies then look up, as on another worker). */
const MAX_GRANTS = 8192

export class GrantRegister {
  #minute = Number.NaN
  readonly #byToken = new Map<string, Pick<SlotResult, 'via' | 'seq'>>()

  /** Whether this worker got `token` a slot of `minute` from the counters (and still remembers it). */
  holds(token: string, minute: number): boolean {
    return minute === this.#minute && this.#byToken.has(token)
  }

  /** The counters' answer to `token` in `minute` where it {@link holds} one: a repeat, no round trip. */
  answer(token: string, minute: number): SlotResult {
    const first = minute === this.#minute ? this.#byToken.get(token) : undefined
    return first ? { admitted: true, via: first.via, repeat: true, roundTrips: 0, seq: first.seq } : { admitted: false, roundTrips: 0 }
  }

  /** Remembers that the counters admitted `token` in `minute` (a fresh grant or a repeat of one made elsewhere). */
  note(token: string, minute: number, result: SlotResult): void {
    if (minute < this.#minute) return // a request dated before the minute turned: its grants no longer matter
    if (minute !== this.#minute) {
      this.#byToken.clear()
      this.#minute = minute
    } else if (this.#byToken.size >= MAX_GRANTS) {
      this.#byToken.delete(this.#byToken.keys().next().value!)
    }
    this.#byToken.set(token, { via: result.via, seq: result.seq })
  }
}
