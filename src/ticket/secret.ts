/**
 * @module
 * Where the ticket keys come from: the `secret` option, else `WAITING_ROOM_SECRET` from the runtime's
 * environment or bindings (read on the first request — Workers bindings only exist then), else a random
 * key for this process with one warning.
 */
import type { Context } from 'hono'
import { env as runtimeEnv } from 'hono/adapter'
import { randomId, TicketSealer } from './ticket.ts'

/** Returns the room's sealer for a request, resolving the keys once. */
export function ticketSealerOf(roomId: string, secrets: string[] | undefined): (c: Context) => TicketSealer {
  let sealer: TicketSealer | undefined = secrets ? new TicketSealer(roomId, secrets) : undefined
  return (c) => {
    if (sealer) return sealer
    let secret: string | undefined
    try {
      secret = runtimeEnv<{ WAITING_ROOM_SECRET?: string }>(c).WAITING_ROOM_SECRET
    } catch {
      secret = undefined // no environment on this runtime
    }
    if (secret && secret.length >= 32) {
      sealer = new TicketSealer(roomId, [secret])
    } else {
      console.warn(
        '[hono-waiting-room] no secret: set the `secret` option or WAITING_ROOM_SECRET (32+ characters). ' +
          'Using a random key for this process: tickets will not survive a restart or work across processes.',
      )
      sealer = new TicketSealer(roomId, [randomId() + randomId() + randomId()])
    }
    return sealer
  }
}
