// Run by `bun test` (see test.sh): the proxy fast path's own HTTP/1.1 client over Bun.connect (the socket it
// uses on Bun, src/proxy/h1-dial.ts) answers as the same client over node:net does, on generated exchanges
// (test/support/h1-differential.ts); test/proxy-h1.test.ts shows under Node that the client over node:net
// answers as the node:http transport does. The reference here is not Bun's node:http client: on Bun 1.4.5
// it times out on HEAD answers with a Content-Length (504) and sends on keep-alive connections the origin
// has closed (502), so it differs from Node's where the fast path's client does not.
import { expect, it } from 'bun:test'
import { bunDial } from '../../src/proxy/h1-dial.ts'
import { nodeDial } from '../../src/proxy/node-dial.ts'
import { originDown, runDifferential } from '../../test/support/h1-differential.ts'

for (const seed of [1, 2, 3]) {
  it(`the fast path's client on Bun.connect answers as on node:net sockets (seed ${seed})`, async () => {
    const dial = bunDial()
    expect(dial).toBeDefined()
    const { mismatches, viaH1 } = await runDifferential(dial!, seed, 70, nodeDial)
    const brief = (o: { origin: string[]; client: string }) => `${o.origin.map((h) => h.split('\n')[0]).join(' | ')} => ${o.client.slice(0, o.client.lastIndexOf('\n')).replace(/\n/g, ' ; ')} [${o.client.length - o.client.lastIndexOf('\n')}]`
    for (const [a, b] of mismatches.slice(0, 3)) console.log(`H1   ${brief(a)}\nNODE ${brief(b)}`)
    expect(mismatches.length).toBe(0)
    expect(viaH1).toBeGreaterThan(50)
  }, 60_000)
}

it('the fast path\'s client on Bun.connect answers an origin that refuses connections with 502, and reports each', async () => {
  const { answers, errors, dials } = await originDown(bunDial()!)
  expect(dials).toBe(3)
  expect(answers[0]!.every((answer) => answer.startsWith('502 '))).toBe(true)
  expect(answers[0]).toEqual(answers[1])
  expect(errors).toEqual([3, 3])
})
