/**
 * #14.1 probe: coverage fuzz (607 variants) runs with `paths: ['/shop']` only. Here a covered pattern with a
 * one-segment wildcard, `paths: ['/shop/*' + '/checkout']` (README: `*` = one segment), before a Hono app routing
 * `/shop/:id/checkout` (and deeper), on the middleware and the proxy in process, room full. Generated variants
 * (encodings single to triple, case, separators, dot segments, `;`, NUL, overlong UTF-8, trailing dots) must not
 * run a checkout handler, and none that a lenient origin may read as /shop/x/checkout may be served.
 */
import fc from 'fast-check'
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { waitingRoom, type WaitingRoomOptions } from '../../../src/index.ts'
import { createProxyApp } from '../../../src/proxy/proxy.ts'
import { encodeChar, readingsOf, wirePathOf } from '../../support/path-variants.ts'

const SECRET = 'break14f-secret-0123456789-abcdefghijklmn'
const ROOM: WaitingRoomOptions = { secret: SECRET, queueAll: true, paths: ['/shop/*/checkout'], bypass: { paths: ['/assets'] } }

function routes(app: Hono<any>): Hono<any> {
  app.get('/shop/:id/checkout', (c) => c.text(`checkout ${c.req.param('id')}`, 200, { 'x-handler': 'checkout' }))
  app.get('/shop/:id/checkout/*', (c) => c.text('checkout-sub', 200, { 'x-handler': 'checkout' }))
  app.get('/shop/*', (c) => c.text('shop', 200, { 'x-handler': 'shop' }))
  app.notFound((c) => c.text('nf', 404, { 'x-handler': 'not-found' }))
  return app
}
const middleware = () => routes(new Hono().use('*', waitingRoom(ROOM)))
const strictFalse = () => routes(new Hono({ strict: false }).use('*', waitingRoom(ROOM)))
const proxy = () => {
  const origin = routes(new Hono())
  return createProxyApp({ origin: 'http://origin.test', room: ROOM, fetch: async (input, init) => origin.fetch(new Request(input, init)) })
}

const IDS = ['42', 'a', 'A', '%34%32', '.', '..', '%2e', '%2e%2e', 'x;y', 'x%3By', 'x%2Fy', 'x%252Fy', '%00', 'x%00', '', 'public', 'a.', '%c0%ae', 'ｘ']
const CHECKOUTS = ['checkout', 'Checkout', 'CHECKOUT', 'check%6fut', 'check%256fut', 'checkout.', 'checkout;x', 'checkout%3Bx', 'checkout%00', 'checkout%20', 'checkout%2F', 'checkout%2e', 'ｃheckout']
const SEPS = ['/', '/', '//', '\\', '%2F', '%2f', '%5C', '%252F', '/./', '/x/../', '/x/..%2F', '/%2e/', ';/', '/public/../']
const TAILS = ['', '/', '/pay', '?x=1', '#x', '/.', '/..', '/../checkout', '%3Fx', ';x']

const variant = fc
  .record({ head: fc.constantFrom('/shop', '/shop', '/SHOP', '/sh%6Fp', '/assets/../shop', '/assets/..%2Fshop', '/x/..', '//shop'), s1: fc.constantFrom(...SEPS), id: fc.constantFrom(...IDS), s2: fc.constantFrom(...SEPS), co: fc.constantFrom(...CHECKOUTS), tail: fc.constantFrom(...TAILS), enc: fc.array(fc.record({ at: fc.nat(), depth: fc.integer({ min: 1, max: 3 }), upper: fc.boolean() }), { maxLength: 2 }) })
  .map(({ head, s1, id, s2, co, tail, enc }) => {
    const path = [...`${head}${s1}${id}${s2}${co}`]
    for (const { at, depth, upper } of enc) {
      const i = 1 + (at % (path.length - 1))
      if (path[i]!.length === 1 && path[i] !== '%') path[i] = encodeChar(path[i]!, depth, upper)
    }
    return path.join('') + tail
  })
const VARIANTS = [...new Set(fc.sample(variant, { seed: 1414, numRuns: 900 }))]

/** /shop/<one segment>/checkout[/...] after a lenient reading. */
const underCheckout = (path: string) => /^\/shop\/[^/]+\/checkout(?:\/|$)/i.test(path)

describe('paths [/shop/*/checkout], room full: no generated variant reaches a checkout handler', () => {
  for (const [name, make] of [['middleware', middleware], ['middleware, strict: false', strictFalse], ['proxy in process', proxy]] as const) {
    it(`${name} (${VARIANTS.length} variants)`, async () => {
      const app = make()
      const bad: string[] = []
      for (const v of VARIANTS) {
        let res: Response
        try {
          res = await app.request(v)
        } catch (error) {
          continue // a target the URL parser refuses never reaches a handler
        }
        const body = await res.text()
        const outcome = res.headers.get('x-handler') ?? (body.includes('<!doctype html>') ? 'queued' : `status ${res.status}`)
        let wire: string
        try { wire = wirePathOf(v) } catch { wire = v }
        if (outcome === 'checkout' || (outcome !== 'queued' && readingsOf(wire).some(underCheckout))) bad.push(`${v} -> ${outcome}`)
      }
      console.log(`${name}: ${bad.length} of ${VARIANTS.length}\n${bad.slice(0, 25).join('\n')}`)
      expect(bad).toEqual([])
    }, 60_000)
  }

  it('sanity: /shop/42/checkout queued, /shop/42 and /assets/x served', async () => {
    const app = middleware()
    const out = async (p: string) => (await app.request(p)).headers.get('x-handler') ?? 'queued'
    expect([await out('/shop/42/checkout'), await out('/shop/42'), await out('/assets/x')]).toEqual(['queued', 'shop', 'not-found'])
  })
})
