/**
 * On Bun and Deno (the real binaries from node_modules/.bin, else test/runtimes/node_modules/.bin), the
 * sealer finds node:crypto's AES-GCM, and its tickets interoperate with jose in this Node process both
 * ways: jose opens what Bun/Deno seal, Bun/Deno open what jose sealed.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { promisify } from 'node:util'
import { CompactEncrypt, compactDecrypt } from 'jose'
import { describe, expect, it } from 'vitest'
import { deriveKeyMaterial } from '../src/ticket/keys.ts'

const run = promisify(execFile)
const root = new URL('../', import.meta.url).pathname
const SECRET = 'interop-secret-0123456789-abcdefghijklmnop'
const binary = (name: string) => [`${root}node_modules/.bin/${name}`, `${root}test/runtimes/node_modules/.bin/${name}`].find((path) => existsSync(path))

const runtimes: [string, string | undefined, string[]][] = [
  ['bun', binary('bun'), []],
  ['deno', binary('deno'), ['run', '-A']],
]

describe.each(runtimes)('tickets on %s', (name, path, args) => {
  it.skipIf(!path)('uses node:crypto there, and interoperates with jose both ways', async () => {
    const { raw, kid } = await deriveKeyMaterial(SECRET)
    for (const ticketId of ['plain', 'ünïcödé 🎟️', 'x'.repeat(64)]) {
      const ticket = { roomId: 'interop', ticketId, bucketId: 29_000_000, acceptedAt: 0, lastCheckInTime: 1_764_504_000_000, refreshIntervalSeconds: 20 }
      const fromJose = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(ticket))).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid }).encrypt(raw)
      const { stdout } = await run(path!, [...args, 'test/support/ticket-roundtrip.ts', SECRET, JSON.stringify(ticket), fromJose], { cwd: root, timeout: 20_000 })
      const out = JSON.parse(stdout.trim().split('\n').at(-1)!)
      expect({ name, aes: out.aes, sealer: out.sealer }).toEqual({ name, aes: 'node:crypto', sealer: 'node:crypto' })
      expect(out.opened).toEqual({ ticket, stale: false })
      const { plaintext, protectedHeader } = await compactDecrypt(out.sealed, raw, { keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'] })
      expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256GCM', kid })
      expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual(ticket)
    }
  })
})
