/**
 * `sealNow` (ticket.ts): a new or queued user's ticket sealed without an await where it can be — a string with
 * node:crypto once the keys are derived, a promise with Web Crypto or while they are — and either way a JWE
 * `dir` + `A256GCM` ticket that jose opens, that both cipher paths open, with a fresh IV every time.
 */
import fc from 'fast-check'
import { compactDecrypt } from 'jose'
import { describe, expect, it } from 'vitest'
import { defaultAesGcm, webCryptoAesGcm, type AesGcm } from '../src/ticket/aes-gcm.ts'
import { deriveKeyMaterial } from '../src/ticket/keys.ts'
import { TicketSealer, type Ticket } from '../src/ticket/ticket.ts'

const SECRET = 'seal-now-secret-0123456789-abcdefghijklmnop'
const tickets = fc.record({
  roomId: fc.constant('seal-now'),
  ticketId: fc.string({ minLength: 1, maxLength: 64, unit: 'grapheme' }).filter((id) => id.length <= 64),
  bucketId: fc.integer({ min: 0, max: 2 ** 40 }),
  acceptedAt: fc.constantFrom(0, 1_764_504_000_000),
  lastCheckInTime: fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
  refreshIntervalSeconds: fc.integer({ min: 0, max: 600 }),
}) as fc.Arbitrary<Ticket>

const ready = async (aes: AesGcm) => {
  const sealer = new TicketSealer('seal-now', [SECRET], aes)
  await sealer.seal({ roomId: 'seal-now', ticketId: 'warm', bucketId: 1, acceptedAt: 0, lastCheckInTime: 1, refreshIntervalSeconds: 0 })
  return sealer
}
const josen = async (sealed: string) => {
  const { raw } = await deriveKeyMaterial(SECRET)
  const { plaintext } = await compactDecrypt(sealed, raw, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] })
  return JSON.parse(new TextDecoder().decode(plaintext)) as Ticket
}

describe('sealNow', () => {
  it('answers a string with node:crypto once the keys are derived, a promise with Web Crypto or before', async () => {
    expect(defaultAesGcm().name).toBe('node:crypto')
    const t: Ticket = { roomId: 'seal-now', ticketId: 'a', bucketId: 1, acceptedAt: 0, lastCheckInTime: 2, refreshIntervalSeconds: 3 }
    const fresh = new TicketSealer('seal-now', [SECRET]).sealNow(t)
    expect(fresh).toBeInstanceOf(Promise)
    expect(await josen(await fresh)).toEqual(t)
    expect(typeof (await ready(defaultAesGcm())).sealNow(t)).toBe('string')
    const web = (await ready(webCryptoAesGcm)).sealNow(t)
    expect(web).toBeInstanceOf(Promise)
    expect(await josen(await web)).toEqual(t)
  })

  it('seals what jose and both cipher paths open, with a new IV each time, for generated tickets', async () => {
    const node = await ready(defaultAesGcm())
    const web = await ready(webCryptoAesGcm)
    await fc.assert(
      fc.asyncProperty(tickets, async (t) => {
        const [a, b] = [node.sealNow(t) as string, await web.sealNow(t)]
        expect(a.split('.')[2]).not.toBe((node.sealNow(t) as string).split('.')[2]) // IVs differ
        for (const sealed of [a, b]) {
          expect(await josen(sealed)).toEqual(t)
          for (const opener of [await ready(defaultAesGcm()), await ready(webCryptoAesGcm)]) expect((await opener.open(sealed))?.ticket).toEqual(t)
        }
        expect(await node.seal(t)).not.toBe(a)
      }),
      { numRuns: 60 },
    )
  })

  it('rejects when the keys cannot be derived, as seal does', async () => {
    const failing: AesGcm = { ...webCryptoAesGcm, importKey: () => Promise.reject(new Error('no key')) }
    const t: Ticket = { roomId: 'seal-now', ticketId: 'a', bucketId: 1, acceptedAt: 0, lastCheckInTime: 2, refreshIntervalSeconds: 3 }
    await expect(new TicketSealer('seal-now', [SECRET], failing).sealNow(t)).rejects.toThrow('no key')
    await expect(new TicketSealer('seal-now', [SECRET], failing).seal(t)).rejects.toThrow('no key')
  })
})
