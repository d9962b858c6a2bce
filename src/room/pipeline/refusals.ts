/**
 * @module
 * Slot requests the coordinator refused this minute, per location, so that a new user who cannot get a place
 * costs no coordinator call (issue 16: under a flood against a full room a worker whose snapshot does not yet
 * show the minute's slots taken — a sync not back yet, or none run while requests keep the event loop busy —
 * asked the counters once per request).
 *
 * Exact, not an estimate: within a minute a counter only grows, and the limit it applies,
 * `limit − max(0, previousCount − previousReported)` (coordinator.ts `effectiveLimit`), only falls as the
 * previous minute's count grows. So a request whose limits and previously-reported counts are each no higher
 * than those of a refused one is refused too. Only new users are answered from here: their ticket id was drawn
 * for this request, so no earlier grant can be theirs to repeat (a queued ticket's retry may be). Only with
 * `failMode: 'closed'` (the default): under 'open' an unreachable coordinator admits, so every user asks.
 */
import type { SlotRequest } from '../../coordination/coordinator.ts'

type Limits = Pick<SlotRequest, 'localLimit' | 'anywhereLimit' | 'localPreviousReported' | 'anywherePreviousReported'>

/** No previously-reported count: the counter applies its limit unlowered, as if it had seen everything. */
const reported = (count: number | undefined): number => count ?? Number.POSITIVE_INFINITY

/** Locations remembered at most (a room has a few hundred at most; more start the memory afresh). */
const MAX_LOCATIONS = 4096

export class Refusals {
  #minute = Number.NaN
  readonly #byLocation = new Map<string, Limits>()

  /** True when a request with these limits would be refused: one at least as generous was, this minute. */
  refuses(location: string, minute: number, request: Limits): boolean {
    if (minute !== this.#minute) return false
    const refused = this.#byLocation.get(location)
    return (
      refused !== undefined &&
      request.localLimit <= refused.localLimit &&
      request.anywhereLimit <= refused.anywhereLimit &&
      reported(request.localPreviousReported) <= reported(refused.localPreviousReported) &&
      reported(request.anywherePreviousReported) <= reported(refused.anywherePreviousReported)
    )
  }

  /** Remembers a refusal of `request` (the latest replaces the one before: the counters only grew since). */
  note(location: string, minute: number, request: Limits): void {
    if (minute !== this.#minute || this.#byLocation.size >= MAX_LOCATIONS) {
      this.#byLocation.clear()
      this.#minute = minute
    }
    const { localLimit, anywhereLimit, localPreviousReported, anywherePreviousReported } = request
    this.#byLocation.set(location, { localLimit, anywhereLimit, localPreviousReported, anywherePreviousReported })
  }
}
