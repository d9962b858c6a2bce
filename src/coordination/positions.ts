/**
 * @module
 * Where a session's one count sits, and until when it counts (issue 15 item 2: sessions must not all end at a
 * minute boundary). A count sits at a *position*, a number of minutes on a grid of {@link SLICE_MINUTES}: a
 * grant's is its whole minute (the grant step of every adapter counts `a{m}`, unchanged), a renewal's the start
 * of the slice it was made in. A renewal moves the count only once its position is a minute old
 * ({@link renewalDue}), so an active user costs one move a minute, as before; and so the last check-in is less
 * than a minute after the position, a count lasting {@link sessionSpanMinutes} = `sessionDurationMinutes + 1`
 * past its position ends `sessionDurationMinutes` to `sessionDurationMinutes + 1` minutes after the last
 * check-in — at a moment of the minute that follows the user's own check-ins, not at the boundary every
 * session of a minute shared. Every reader applies the one rule {@link liveFrom}: the snapshot (which counts are
 * active), the renewal's move (`since`: which counts it may still move) and the cookie (when it expires).
 * Positions are multiples of 1/16 minute, exact in binary floating point, so JavaScript and Lua (the Redis
 * script compares and formats them) agree on every one; the field `a{position}` keeps the minute before its dot,
 * so pruning by minute is unchanged.
 */
import { MINUTE_MS, minuteOf } from '../clock.ts'

/** The grid positions sit on: 3.75 s. */
export const SLICE_MINUTES = 1 / 16
const SLICE_MS = MINUTE_MS * SLICE_MINUTES

/** The position of a renewal made at `ms`: the start of its slice, in minutes. */
export const positionOf = (ms: number): number => Math.floor(ms / SLICE_MS) * SLICE_MINUTES

/** Minutes a count lasts past its position. */
export const sessionSpanMinutes = (sessionDurationMinutes: number): number => sessionDurationMinutes + 1

/** The first position whose count is still live at `ms`: live ⟺ position + span > ms, positions on the grid. */
export const liveFrom = (ms: number, sessionDurationMinutes: number): number =>
  positionOf(ms) - sessionSpanMinutes(sessionDurationMinutes) + SLICE_MINUTES

/** When a count at `position` stops counting, ms. */
export const positionEndsAt = (position: number, sessionDurationMinutes: number): number =>
  (position + sessionSpanMinutes(sessionDurationMinutes)) * MINUTE_MS

/** Whether a renewal at `now` moves a count at `position`: once the position is a minute old. */
export const renewalDue = (position: number, now: number): boolean => now >= (position + 1) * MINUTE_MS

/**
 * Where a ticket's count sits, by its cookie: a grant's (never renewed: `lastCheckInTime` is its admission) in the
 * grant's minute, else the slice of the confirmed renewal.
 */
export const ticketPosition = (ticket: { acceptedAt: number; lastCheckInTime: number }): number =>
  ticket.lastCheckInTime === ticket.acceptedAt ? minuteOf(ticket.acceptedAt) : positionOf(ticket.lastCheckInTime)
