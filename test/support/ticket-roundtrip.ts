/**
 * Run by test/ticket-runtimes.test.ts under Bun and Deno: seals a ticket with the sealer's default AES-GCM
 * on this runtime and opens the ticket it was given (sealed by jose in the test's Node process). Prints one
 * JSON line.
 */
import { defaultAesGcm } from '../../src/ticket/aes-gcm.ts'
import { TicketSealer, type Ticket } from '../../src/ticket/ticket.ts'

declare const Deno: { args: string[] } | undefined
const [secret, ticketJson, incoming] = typeof Deno !== 'undefined' ? Deno.args : process.argv.slice(2)
const sealer = new TicketSealer('interop', [secret!])
const opened = await sealer.open(incoming!)
const sealed = await sealer.seal(JSON.parse(ticketJson!) as Ticket)
console.log(JSON.stringify({ aes: defaultAesGcm().name, sealer: sealer.aes.name, sealed, opened: opened ?? null }))
