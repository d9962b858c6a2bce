/**
 * In workerd (miniflare): with `nodejs_compat` the sealer finds node:crypto through
 * `process.getBuiltinModule`; without it, it falls back to Web Crypto. Either way jose opens its tickets
 * and it opens jose's.
 */
import { dirname } from 'node:path'
import { Miniflare } from 'miniflare'
import { CompactEncrypt, compactDecrypt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleWorker, tempDir } from '../adapters/cloudflare/test/workerd.ts'
import { deriveKeyMaterial } from '../src/ticket/keys.ts'

const SECRET = 'interop-secret-0123456789-abcdefghijklmnop'
let scriptPath: string
let remove: () => Promise<void>

beforeAll(async () => {
  const dir = await tempDir('ticket')
  remove = dir.remove
  scriptPath = await bundleWorker('test/support/ticket-worker.ts', dir.path)
}, 60_000)
afterAll(() => remove?.())

describe.each([
  ['nodejs_compat', ['nodejs_compat'], 'node:crypto'],
  ['no compatibility flags', [], 'web-crypto'],
])('workerd with %s', (_label, compatibilityFlags, expected) => {
  it(`seals with ${expected}, and interoperates with jose both ways`, async () => {
    const mf = new Miniflare({ modules: true, scriptPath, modulesRoot: dirname(scriptPath), compatibilityDate: '2025-09-01', compatibilityFlags })
    try {
      const { raw, kid } = await deriveKeyMaterial(SECRET)
      const ticket = { roomId: 'interop', ticketId: 'workerd 🎟️', bucketId: 29_000_000, acceptedAt: 0, lastCheckInTime: 1_764_504_000_000, refreshIntervalSeconds: 20 }
      const incoming = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(ticket))).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid }).encrypt(raw)
      const response = await mf.dispatchFetch('http://worker/', { method: 'POST', body: JSON.stringify({ secret: SECRET, ticket, incoming }) })
      const out = (await response.json()) as { aes: string; sealer: string; sealed: string; opened: unknown }
      expect({ aes: out.aes, sealer: out.sealer }).toEqual({ aes: expected, sealer: expected })
      expect(out.opened).toEqual({ ticket, stale: false })
      const { plaintext } = await compactDecrypt(out.sealed, raw, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] })
      expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual(ticket)
    } finally {
      await mf.dispose()
    }
  }, 60_000)
})
