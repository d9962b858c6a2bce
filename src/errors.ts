/**
 * @module
 * One error type with stable codes, so callers can branch on `code` instead of parsing messages.
 */

/** Stable error codes. */
export type WaitingRoomErrorCode =
  | 'ERR_WR_OPTIONS' // an option failed validation at build time
  | 'ERR_WR_COORDINATOR' // the coordinator (adapter) failed or timed out
  | 'ERR_WR_TICKET' // a ticket could not be sealed
  | 'ERR_WR_CONFLICT' // a runtime change conflicts with existing state (e.g. overlapping events)

export class WaitingRoomError extends Error {
  override name = 'WaitingRoomError'
  readonly code: WaitingRoomErrorCode
  constructor(code: WaitingRoomErrorCode, message: string, options?: { cause?: unknown }) {
    super(`[hono-waiting-room] ${message}`, options)
    this.code = code
  }
}
