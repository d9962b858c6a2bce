/**
 * A Worker for test/ticket-workerd.test.ts: `POST /` with `{ secret, ticket, incoming }` seals `ticket` with
 * the sealer's default AES-GCM in workerd and opens `incoming` (sealed by jose in Node).
 */
import { defaultAesGcm } from '../../src/ticket/aes-gcm.ts'
import { TicketSealer, type Ticket } from '../../src/ticket/ticket.ts'

export default {
  async fetch(request: Request): Promise<Response> {
    const { secret, ticket, incoming } = (await request.json()) as { secret: string; ticket: Ticket; incoming: string }
    const sealer = new TicketSealer('interop', [secret])
    const opened = await sealer.open(incoming)
    const sealed = await sealer.seal(ticket)
    return Response.json({ aes: defaultAesGcm().name, sealer: sealer.aes.name, sealed, opened: opened ?? null })
  },
}
