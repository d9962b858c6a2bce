/**
 * Which AES-GCM the sealer uses, and that the room works on either: node:crypto only when the runtime
 * has one that reproduces the known answer, Web Crypto otherwise (forced here by hiding
 * `process.getBuiltinModule` from a fresh copy of the modules).
 */
import { compactDecrypt } from 'jose'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { nodeCryptoAesGcmFrom } from '../src/ticket/aes-gcm.ts'

const real = process.getBuiltinModule

afterEach(() => {
  process.getBuiltinModule = real
  vi.restoreAllMocks()
})

describe('finding node:crypto at run time', () => {
  it('takes a working node:crypto', () => {
    expect(nodeCryptoAesGcmFrom((id) => real.call(process, id))?.name).toBe('node:crypto')
  })

  it('refuses no lookup, no module, a throwing lookup, a module without ciphers', () => {
    expect(nodeCryptoAesGcmFrom(undefined)).toBeUndefined()
    expect(nodeCryptoAesGcmFrom(() => undefined)).toBeUndefined()
    expect(nodeCryptoAesGcmFrom(() => { throw new Error('No such built-in module: node:crypto') })).toBeUndefined()
    expect(nodeCryptoAesGcmFrom(() => ({ createHash: () => {} }))).toBeUndefined()
  })

  it('refuses a cipher that gets the known answer wrong, or that accepts a forged tag', () => {
    const nodeCrypto = real.call(process, 'node:crypto') as typeof import('node:crypto')
    const wrongOutput = {
      ...nodeCrypto,
      createCipheriv: (...args: Parameters<typeof nodeCrypto.createCipheriv>) => {
        const cipher = nodeCrypto.createCipheriv(...args)
        return Object.assign(Object.create(cipher), { update: (data: Uint8Array) => cipher.update(data).map((b) => b ^ 1) })
      },
    }
    expect(nodeCryptoAesGcmFrom(() => wrongOutput)).toBeUndefined()
    const acceptsAnyTag = {
      ...nodeCrypto,
      createDecipheriv: (...args: Parameters<typeof nodeCrypto.createDecipheriv>) => {
        const decipher = nodeCrypto.createDecipheriv(...args)
        return Object.assign(Object.create(decipher), { setAuthTag: () => {}, final: () => new Uint8Array(0) })
      },
    }
    expect(nodeCryptoAesGcmFrom(() => acceptsAnyTag)).toBeUndefined()
  })
})

/** A fresh copy of the room's modules, built while `getBuiltinModule` is `hidden` or not. */
async function freshRoom(hidden: boolean) {
  vi.resetModules()
  if (hidden) process.getBuiltinModule = undefined as never
  const { roomHarness, TEST_SECRET } = await import('./support/room-harness.ts')
  const { defaultAesGcm } = await import('../src/ticket/aes-gcm.ts')
  const harness = roomHarness({ totalActiveUsers: 1, newUsersPerMinute: 10 })
  const chosen = defaultAesGcm().name
  process.getBuiltinModule = real
  return { ...harness, chosen, TEST_SECRET }
}

describe.each([
  ['node:crypto', false],
  ['web-crypto', true],
])('the room on %s', (expected, hidden) => {
  it('admits, queues, lets the admitted user back and keeps the queued one queued; tickets open with jose', async () => {
    const encrypt = vi.spyOn(crypto.subtle, 'encrypt')
    const room = await freshRoom(hidden)
    expect(room.chosen).toBe(expected)
    const admitted = await room.visit()
    const queued = await room.visit()
    expect([admitted.outcome, queued.outcome]).toEqual(['admitted', 'queued'])
    expect((await room.visit(admitted.cookie)).outcome).toBe('admitted')
    room.advance(30_000)
    const again = await room.visit(queued.cookie)
    expect(again.outcome).toBe('queued')
    // Web Crypto seals only on the fallback path.
    expect(encrypt.mock.calls.length > 0).toBe(hidden)

    const { deriveKeyMaterial } = await import('../src/ticket/keys.ts')
    const { raw } = await deriveKeyMaterial(room.TEST_SECRET)
    for (const cookie of [admitted.cookie!, queued.cookie!, again.cookie!]) {
      const { plaintext } = await compactDecrypt(cookie, raw, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] })
      expect(JSON.parse(new TextDecoder().decode(plaintext)).roomId).toBe('default')
    }
  })
})
