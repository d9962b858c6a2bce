/**
 * Objects the flood path reads many times are built in one fixed shape (issue 16: a spread made them
 * dictionary-mode objects whose every read missed V8's property caches): each builder gives exactly what the
 * spread gave — the same ticket JSON and sealed ticket, the same queue view — with every field present in one order.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { queueView } from '../src/room/pipeline/respond.ts'
import { ticketJson, TicketSealer, withEpoch, type Ticket } from '../src/ticket/ticket.ts'
import { webCryptoAesGcm } from '../src/ticket/aes-gcm.ts'

const ROOM = 'shapes'
const ticketArb: fc.Arbitrary<Ticket> = fc.record(
  {
    roomId: fc.constant(ROOM),
    ticketId: fc.string({ minLength: 1, maxLength: 64 }),
    bucketId: fc.integer({ min: 0, max: 2 ** 31 }),
    acceptedAt: fc.integer({ min: 0, max: 2 ** 45 }),
    lastCheckInTime: fc.integer({ min: 0, max: 2 ** 45 }),
    refreshIntervalSeconds: fc.integer({ min: 0, max: 300 }),
    challenge: fc.constant(1 as const),
    pending: fc.integer({ min: 0, max: 2 ** 25 }),
  },
  { requiredKeys: ['roomId', 'ticketId', 'bucketId', 'acceptedAt', 'lastCheckInTime', 'refreshIntervalSeconds'] },
)
const epochArb = fc.string({ maxLength: 16 })
const FIELDS = ['roomId', 'ticketId', 'bucketId', 'acceptedAt', 'lastCheckInTime', 'refreshIntervalSeconds', 'challenge', 'epoch', 'pending']

describe('withEpoch', () => {
  it('is `{ ...ticket, epoch }` in one shape: the same JSON, every field in declared order', () => {
    fc.assert(
      fc.property(ticketArb, epochArb, (ticket, epoch) => {
        const fixed = withEpoch(ticket, epoch)
        expect(Object.keys(fixed)).toEqual(FIELDS)
        expect(ticketJson(fixed)).toBe(ticketJson({ ...ticket, epoch }))
        expect(JSON.parse(ticketJson(fixed))).toEqual({ ...ticket, epoch })
      }),
    )
  })

  it('seals the ticket the spread sealed: sealed by node:crypto, opened by Web Crypto, and the other way round', async () => {
    const node = new TicketSealer(ROOM, ['shape-secret-0123456789abcdefghij'])
    const web = new TicketSealer(ROOM, ['shape-secret-0123456789abcdefghij'], webCryptoAesGcm)
    expect([node.aes.name, web.aes.name]).toEqual(['node:crypto', 'web-crypto'])
    await fc.assert(
      fc.asyncProperty(ticketArb, epochArb, fc.boolean(), async (ticket, epoch, nodeSeals) => {
        const [sealer, opener] = nodeSeals ? [node, web] : [web, node]
        const opened = await opener.open(await sealer.seal(withEpoch(ticket, epoch)))
        expect(opened?.ticket).toEqual({ ...ticket, epoch })
      }),
      { numRuns: 50 },
    )
  })
})

describe('queueView', () => {
  it('is the view the spread made, every field present in one order, whatever shape the decision had', () => {
    const decisionArb = fc.record(
      {
        outcome: fc.constantFrom('queued', 'rejected'),
        reason: fc.constantFrom('no-slot', 'too-early', 'queue-full', undefined),
        ticketId: fc.string(),
        bucketId: fc.option(fc.integer(), { nil: undefined }),
        snapshot: fc.constant(undefined),
        refresh: fc.integer({ min: 0, max: 300 }),
        newlyQueued: fc.boolean(),
        lastCountedAt: fc.integer({ min: 0 }),
      },
      { requiredKeys: ['outcome', 'ticketId', 'bucketId', 'snapshot', 'refresh', 'newlyQueued'] },
    )
    const keys = ['snapshot', 'bucketId', 'refresh', 'newlyQueued', 'lastCountedAt', 'cookie', 'reason', 'challenge']
    fc.assert(
      fc.property(decisionArb, fc.option(fc.string(), { nil: undefined }), (decision, cookie) => {
        const view = queueView(decision, cookie)
        expect(Object.keys(view)).toEqual(keys)
        const spread: Record<string, unknown> = { ...decision, cookie, challenge: undefined }
        for (const key of keys) expect(view[key as keyof typeof view]).toBe(spread[key])
      }),
    )
  })
})
