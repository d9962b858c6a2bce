/// <reference types="node" />
/**
 * The proxy never forwards a client's `Waiting-Room-Challenge` answer to the origin (breaker `bots`, issue 17):
 * it is the room's business, a bearer proof the origin has no use for. Both header paths (the raw list for
 * node:http transports, the Headers object for fetch ones) and the CLI proxy end to end.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CHALLENGE_HEADER, solveChallenge } from '../src/index.ts'
import { originRequestHeaderObject, originRequestHeaders } from '../src/proxy/headers.ts'
import type { Forwarded } from '../src/proxy/trust.ts'
import { parseFlags } from '../bin/flags.ts'
import { startProxy } from '../bin/proxy-command.ts'

const forwarded: Forwarded = { clientAddress: '192.0.2.1', chain: ['192.0.2.1'], proto: 'https', host: 'shop.example', trusted: false }
const casing = fc.constantFrom(CHALLENGE_HEADER, CHALLENGE_HEADER.toLowerCase(), CHALLENGE_HEADER.toUpperCase())

describe('proxy: the challenge answer stays with the room', () => {
  it('is dropped from the origin request, in any casing and repeated, by both header paths', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(casing, fc.stringMatching(/^[!-~]{1,30}$/)), { minLength: 1, maxLength: 3 }), (answers) => {
        const list = ['Accept', 'text/html', ...answers.flat(), 'X-Kept', 'yes']
        const out = originRequestHeaders(list, forwarded, 'origin.internal')
        expect(out.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase())).not.toContain(CHALLENGE_HEADER.toLowerCase())
        expect(out).toContain('X-Kept')
        const headers = new Headers()
        for (const [name, value] of answers) headers.append(name, value)
        headers.set('x-kept', 'yes')
        const object = originRequestHeaderObject(headers, forwarded)
        expect(object.get(CHALLENGE_HEADER)).toBeNull()
        expect(object.get('x-kept')).toBe('yes')
      }),
      { numRuns: 50, seed: 6 },
    )
  })

  it('the CLI proxy admits a solved answer and the origin never sees it', { timeout: 30_000 }, async () => {
    const seen: IncomingHttpHeaders[] = []
    const origin = createServer((req, res) => {
      seen.push(req.headers)
      req.resume()
      res.end('origin page')
    })
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve))
    const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`
    const secret = 'proxy-challenge-secret-0123456789-abcdefghij'
    const { config } = parseFlags(['--origin', originUrl, '--port', '0', '--secret', secret, '--json', '--challenge', 'proof-of-work:4', '--challenge-when', 'always'], {})
    const proxy = await startProxy(config)
    try {
      const held = (await (await fetch(proxy.url, { headers: { accept: 'application/json' } })).json()) as { waitingRoom: { challenge: { challenge: string } } }
      const response = await fetch(proxy.url, { method: 'POST', body: 'x', headers: { [CHALLENGE_HEADER]: solveChallenge(held.waitingRoom.challenge.challenge) } })
      expect(await response.text()).toBe('origin page')
      expect(seen).toHaveLength(1)
      expect(seen[0]![CHALLENGE_HEADER.toLowerCase()]).toBeUndefined()
    } finally {
      await proxy.close()
      await new Promise<void>((resolve) => origin.close(() => resolve()))
    }
  })
})
