/**
 * @module
 * Commands from the origin, after it answered. `Waiting-Room-Command: revoke` ends the session at once: its
 * place is freed — once per ticket, however many requests, workers or processes see the command, because the
 * decrement travels as a `once` delta keyed by the ticket and the minute its session is counted in — every
 * worker refuses the ticket from its next snapshot on, and the cookie is cleared. The header never reaches
 * the client.
 */
import type { Context } from 'hono'
import { activeField, revokedField } from '../../coordination/state.ts'
import type { Room } from '../room.ts'

const COMMAND_HEADER = 'waiting-room-command'

/** Only runs when the command is enabled (reading headers after `next()` has a cost on Node). */
export function applyOriginCommand(room: Room, c: Context, ticketId: string, countedMinute: number, now: number): void {
  const command = c.res.headers.get(COMMAND_HEADER)
  if (command === null) return
  const response = new Response(c.res.body, c.res) // origin headers may be immutable (a fetch Response)
  response.headers.delete(COMMAND_HEADER)
  if (command.trim().toLowerCase() === 'revoke') {
    const location = room.locationOf(c)
    room.link.recordOnce(location, revokedField(countedMinute, ticketId), { [activeField(countedMinute)]: -1 })
    room.report(c, location, now)
    room.metrics.revocations++
    response.headers.append('Set-Cookie', room.cookie(c, '', 0))
  }
  c.res = undefined as never // replace rather than merge: Hono merges headers into a set response
  c.res = response
}
