/** The history scripts' precomputed SHA1s (an EVALSHA that always misses costs a round trip per call). */
import { describe, expect, it } from 'vitest'
import { readHistoryScript, recordHistoryScript } from './history.ts'

async function sha1Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text))
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('')
}

describe('upstash history scripts', () => {
  for (const script of [recordHistoryScript, readHistoryScript]) {
    it(`${script.name}: the precomputed SHA1 is the script's, and it never reads the server clock`, async () => {
      expect(script.sha1).toBe(await sha1Hex(script.source))
      expect(script.source).not.toMatch(/['"]TIME['"]/i)
    })
  }
})
