/// <reference types="node" />
/**
 * The fast path's own HTTP/1.1 client (src/proxy/h1-pool.ts, src/proxy/h1.ts) answers as the node:http
 * transport does, on generated exchanges (test/support/h1-differential.ts), over node:net sockets here and
 * Bun.connect in adapters/bun-sqlite/proxy-h1.bun.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { nodeDial } from '../src/proxy/node-dial.ts'
import { originDown, runDifferential } from './support/h1-differential.ts'

describe('the fast path\'s HTTP/1.1 client', () => {
  it.each([1, 2, 3])('answers as node:http does (seed %i)', async (seed) => {
    const { mismatches, viaH1 } = await runDifferential(nodeDial, seed, 70)
    const brief = (o: { origin: string[]; client: string }) => `${o.origin.map((h) => h.split('\n')[0]).join(' | ')} => ${o.client.slice(0, o.client.lastIndexOf('\n')).replace(/\n/g, ' ; ')} [${o.client.length - o.client.lastIndexOf('\n')}]`
    for (const [a, b] of mismatches.slice(0, 3)) console.log(`H1   ${brief(a)}\nNODE ${brief(b)}`)
    expect(mismatches.length).toBe(0)
    // The client was used (heads written through it).
    expect(viaH1).toBeGreaterThan(50)
  }, 60_000)

  it('answers an origin that refuses connections with the 502 node:http gets, and reports each', async () => {
    const { answers, errors, dials } = await originDown(nodeDial)
    expect(dials).toBe(3) // through the fast path's client, a new connection tried each time
    expect(answers[0]).toEqual(answers[1])
    expect(answers[0]!.every((answer) => answer.startsWith('502 '))).toBe(true)
    expect(errors).toEqual([3, 3])
  })
})
