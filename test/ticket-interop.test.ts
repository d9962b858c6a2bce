/**
 * Tickets are JWE compact `dir` + `A256GCM`, whichever AES-GCM the runtime gives us: what each path
 * (node:crypto, Web Crypto) seals, jose opens, and what jose seals, each path opens — for generated
 * tickets, with the key derivation the earlier jose-based sealer used. Forgeries open on neither path.
 */
import fc from 'fast-check'
import { CompactEncrypt, compactDecrypt } from 'jose'
import { describe, expect, it } from 'vitest'
import { nodeCryptoAesGcm, webCryptoAesGcm, type AesGcm } from '../src/ticket/aes-gcm.ts'
import { ticketJson, TicketSealer, type Ticket } from '../src/ticket/ticket.ts'

const SECRET = 'interop-secret-0123456789-abcdefghijklmnop'
const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The key as the jose-based sealer derived it (HKDF straight into a non-extractable AES-GCM key). */
async function legacyKey(secret: string): Promise<{ key: CryptoKey; kid: string }> {
  const material = await crypto.subtle.importKey('raw', encoder.encode(secret), 'HKDF', false, ['deriveKey'])
  const key = await crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: encoder.encode('hono-waiting-room'), info: encoder.encode('ticket A256GCM v1') },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  )
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(`kid\n${secret}`)))
  const kid = btoa(String.fromCharCode(...digest.slice(0, 6))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
  return { key, kid }
}

const ticketArbitrary = fc.record({
  roomId: fc.constant('interop'),
  ticketId: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
  bucketId: fc.integer({ min: 0, max: 2 ** 31 }),
  acceptedAt: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
  lastCheckInTime: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
  refreshIntervalSeconds: fc.integer({ min: 0, max: 3600 }),
})

const node = nodeCryptoAesGcm()
const paths: [string, AesGcm][] = [
  ['node:crypto', node!],
  ['Web Crypto', webCryptoAesGcm],
]

it('a ticket is serialized exactly as JSON.stringify does it', () => {
  fc.assert(fc.property(ticketArbitrary, fc.string(), (ticket, roomId) => {
    expect(ticketJson({ ...ticket, roomId })).toBe(JSON.stringify({ ...ticket, roomId }))
  }), { numRuns: 500 })
})

it('Node has node:crypto through process.getBuiltinModule, and it passed its known answer', () => {
  expect(node?.name).toBe('node:crypto')
})

describe.each(paths)('%s path', (_name, aes) => {
  it('jose opens what it seals: same ticket, header exactly { alg: dir, enc: A256GCM, kid }', async () => {
    const { key, kid } = await legacyKey(SECRET)
    const sealer = new TicketSealer('interop', [SECRET], aes)
    await fc.assert(
      fc.asyncProperty(ticketArbitrary, async (ticket) => {
        const jwe = await sealer.seal(ticket)
        const { plaintext, protectedHeader } = await compactDecrypt(jwe, key, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] })
        expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256GCM', kid })
        expect(JSON.parse(decoder.decode(plaintext))).toEqual(ticket)
      }),
      { numRuns: 60 },
    )
  })

  it('opens what jose seals, in our header order and in any other', async () => {
    const { key, kid } = await legacyKey(SECRET)
    await fc.assert(
      fc.asyncProperty(ticketArbitrary, fc.boolean(), async (ticket, reordered) => {
        const header = reordered ? { kid, enc: 'A256GCM', alg: 'dir', typ: 'wr' } : { alg: 'dir', enc: 'A256GCM', kid }
        const jwe = await new CompactEncrypt(encoder.encode(JSON.stringify(ticket))).setProtectedHeader(header).encrypt(key)
        const opened = await new TicketSealer('interop', [SECRET], aes).open(jwe)
        expect(opened).toEqual({ ticket, stale: false })
      }),
      { numRuns: 60 },
    )
  })

  it('opens what the other path seals (fresh sealers: nothing remembered)', async () => {
    const other = aes === webCryptoAesGcm ? node! : webCryptoAesGcm
    await fc.assert(
      fc.asyncProperty(ticketArbitrary, async (ticket) => {
        const jwe = await new TicketSealer('interop', [SECRET], other).seal(ticket)
        expect(await new TicketSealer('interop', [SECRET], aes).open(jwe)).toEqual({ ticket, stale: false })
      }),
      { numRuns: 40 },
    )
  })

  it('an older key of the ring opens and is marked stale; an unknown key does not open', async () => {
    const old = await new TicketSealer('interop', ['old-secret-0123456789-abcdefghijklmnop'], aes).seal(sampleTicket)
    expect(await new TicketSealer('interop', [SECRET, 'old-secret-0123456789-abcdefghijklmnop'], aes).open(old)).toEqual({ ticket: sampleTicket, stale: true })
    expect(await new TicketSealer('interop', [SECRET], aes).open(old)).toBeUndefined()
  })

  it('refuses every single-character change of a ticket, and other rooms\' tickets', async () => {
    const jwe = await new TicketSealer('interop', [SECRET], aes).seal(sampleTicket)
    const alphabet = 'ABQRgw_-.9='
    for (let i = 0; i < jwe.length; i++) {
      for (const c of alphabet) {
        if (c === jwe[i]) continue
        const changed = jwe.slice(0, i) + c + jwe.slice(i + 1)
        expect(await new TicketSealer('interop', [SECRET], aes).open(changed)).toBeUndefined()
      }
    }
    const foreign = await new TicketSealer('other', [SECRET], aes).seal({ ...sampleTicket, roomId: 'other' })
    expect(await new TicketSealer('interop', [SECRET], aes).open(foreign)).toBeUndefined()
  })

  it('refuses headers jose would refuse or that are not ours: other alg/enc, zip, crit, a wrapped key', async () => {
    const { key, kid } = await legacyKey(SECRET)
    const sealer = new TicketSealer('interop', [SECRET], aes)
    const seal = (header: Record<string, unknown>) => {
      const body = encoder.encode(JSON.stringify(sampleTicket))
      return new CompactEncrypt(body).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', ...header }).encrypt(key)
    }
    const genuine = await seal({ kid })
    const [h, , iv, ct, tag] = genuine.split('.')
    const b64 = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
    const headerOf = (header: object) => b64(JSON.stringify(header))
    const forged = [
      `${headerOf({ alg: 'dir', enc: 'A128GCM', kid })}..${iv}.${ct}.${tag}`,
      `${headerOf({ alg: 'A256KW', enc: 'A256GCM', kid })}..${iv}.${ct}.${tag}`,
      `${headerOf({ alg: 'dir', enc: 'A256GCM', kid, zip: 'DEF' })}..${iv}.${ct}.${tag}`,
      `${headerOf({ alg: 'dir', enc: 'A256GCM', kid, crit: ['exp'], exp: 1 })}..${iv}.${ct}.${tag}`,
      `${headerOf({ alg: 'dir', enc: 'A256GCM', kid: 'nope' })}..${iv}.${ct}.${tag}`,
      `${headerOf([])}..${iv}.${ct}.${tag}`,
      `${h}.AAAA.${iv}.${ct}.${tag}`,
      `${h}..${iv}AA.${ct}.${tag}`,
      `${h}..${iv}.${ct}.${tag}AA`,
      `${h}..${iv}.${ct}.${tag!.slice(0, -2)}`,
      `${h}..${iv}..${tag}`,
      `${h}..${iv}.${ct}`,
      `${genuine}.`,
      `${genuine}${'A'.repeat(1024)}`,
    ]
    for (const cookie of forged) expect({ cookie, opened: await sealer.open(cookie) }).toEqual({ cookie, opened: undefined })
    expect(await sealer.open(genuine)).toEqual({ ticket: sampleTicket, stale: false })
  })
})

const sampleTicket: Ticket = { roomId: 'interop', ticketId: 'sample', bucketId: 29_000_000, acceptedAt: 0, lastCheckInTime: 1_764_504_000_000, refreshIntervalSeconds: 20 }
