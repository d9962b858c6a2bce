import { describe, expect, it } from 'vitest'
import { SCRIPTS } from './scripts.ts'

/** SHA-1 with Web Crypto, as a fetch runtime would compute it: lowercase hex, as Redis names scripts. */
async function sha1Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text))
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('')
}

describe('upstash Lua scripts', () => {
  for (const script of SCRIPTS) {
    it(`${script.name}: the precomputed SHA1 is the script's (else EVALSHA always misses)`, async () => {
      expect({ name: script.name, sha1: script.sha1 }).toEqual({ name: script.name, sha1: await sha1Hex(script.source) })
    })

    it(`${script.name}: never reads the server clock (the clock is an argument)`, () => {
      expect(script.source).not.toMatch(/['"]TIME['"]/i)
    })
  }

  it('are three distinct scripts', () => {
    expect(new Set(SCRIPTS.map((script) => script.sha1)).size).toBe(3)
  })
})
