/**
 * @module
 * What a worker's report carries for one renewal (moves.ts applies it): apart from moves.ts so the report's type
 * (state.ts) names it without an import cycle.
 */

/** One renewal's move of a ticket's count, as a worker reports it (`WorkerReport.moves`). */
export interface Move {
  ticket: string
  /**
   * The minute the renewed cookie says the ticket is counted in (its last confirmed check-in): where the count is
   * when the coordinator has no register for the ticket (never moved). Left out: the session is not in the current
   * state (a session of a lost one), so there is nothing to take out — it is put in.
   */
  from?: number | undefined
  /** The minute it moves to: the renewal's. */
  to: number
  /** The oldest minute still counted at `to` (`to − sessionDurationMinutes`): a count below it has left the window. */
  since: number
}
