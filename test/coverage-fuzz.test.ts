/// <reference types="node" />
/**
 * Generated path variants against a real Hono app with a handler per prefix, behind a full room — through
 * the middleware, through the proxy in process, and through the proxy over real sockets. No variant may
 * reach a covered handler without a ticket, none that a lenient origin could read as `/shop` may be served,
 * and a bypass must only ever let through paths that every reading puts under the bypassed prefix.
 * (issue #14 item 1: 14 of 61 variants such as `/shop/..%2F` reached `/shop/*` handlers.)
 */
import { request as httpRequest } from 'node:http'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listen, type Listening } from '../bin/listen.ts'
import { createProxyApp } from '../src/proxy/proxy.ts'
import { waitingRoom, type WaitingRoomOptions } from '../src/index.ts'
import { pathVariants, readingsOf, wirePathOf } from './support/path-variants.ts'

const SECRET = 'coverage-fuzz-secret-0123456789-abcdefgh'
/** The variants filed with the issue, then the generated ones. */
const FILED = ['/shop/..;/', '/shop/..%2F', '/shop/%2e%2e%2f', '/shop/..%252F', '/shop/..%5C', '/shop/x%2F..%2F..%2Fstatic', '/shop/product/123%2F..%2F..%2F..%2F..']
const VARIANTS = [...new Set([...FILED, ...pathVariants(600)])]

/** Nobody new is admitted, so whatever reaches a covered handler got past the room. */
const FULL: WaitingRoomOptions = { secret: SECRET, queueAll: true }
const SHOP_ROOM: WaitingRoomOptions = { ...FULL, paths: ['/shop'], bypass: { paths: ['/static'] } }
const ALL_ROOM: WaitingRoomOptions = { ...FULL, bypass: { paths: ['/static'] } }

/** The site: each handler marks its answer, so a test sees which one ran. */
function routes(app: Hono<any>): Hono<any> {
  app.get('/shop/product/:id', (c) => c.text(`product ${c.req.param('id')}`, 200, { 'x-handler': 'shop-product' }))
  app.get('/shop/*', (c) => c.text('shop', 200, { 'x-handler': 'shop' }))
  app.get('/static/*', (c) => c.text('static', 200, { 'x-handler': 'static' }))
  app.get('/about', (c) => c.text('about', 200, { 'x-handler': 'about' }))
  app.get('/', (c) => c.text('home', 200, { 'x-handler': 'home' }))
  app.notFound((c) => c.text('not found', 404, { 'x-handler': 'not-found' }))
  return app
}

const middlewareApp = (room: WaitingRoomOptions) => routes(new Hono().use('*', waitingRoom(room)))
const proxyApp = (room: WaitingRoomOptions, origin = routes(new Hono())) =>
  createProxyApp({ origin: 'http://origin.test', room, fetch: async (input, init) => origin.fetch(new Request(input, init)) })

/** Which handler answered, `queued` for the room's page, else the status. */
async function outcomeOf(response: Response): Promise<string> {
  const body = await response.text()
  return response.headers.get('x-handler') ?? (response.status === 200 && body.includes('<!doctype html>') ? 'queued' : `status ${response.status}`)
}

type Probe = (target: string) => Promise<string>
const inProcess = (app: { request: (target: string) => Response | Promise<Response> }): Probe => async (target) => outcomeOf(await app.request(target))

const SHOP_HANDLERS = new Set(['shop', 'shop-product'])
const underShop = (path: string) => /^\/shop(?:\/|$)/i.test(path)
const underStatic = (path: string) => /^\/static(?:\/|$)/.test(path)

/** Runs every variant; returns those that broke a rule, with what happened. */
async function violations(probe: Probe, broken: (variant: string, outcome: string) => boolean): Promise<string[]> {
  const found: string[] = []
  for (const variant of VARIANTS) {
    const outcome = await probe(variant)
    if (broken(variant, outcome)) found.push(`${variant} → ${outcome}`)
  }
  return found
}

/** With only /shop covered: no shop handler runs, and any variant some origin may read as /shop is queued. */
const shopRule = (variant: string, outcome: string) =>
  SHOP_HANDLERS.has(outcome) || (outcome !== 'queued' && readingsOf(wirePathOf(variant)).some(underShop))
/** With every path covered: only the static handler runs, and only for paths every reading puts under /static. */
const bypassRule = (variant: string, outcome: string) => outcome !== 'queued' && (outcome !== 'static' || !readingsOf(wirePathOf(variant)).every(underStatic))

describe.each([
  ['the middleware', (room: WaitingRoomOptions) => inProcess(middlewareApp(room))],
  ['the proxy in front of a Hono origin', (room: WaitingRoomOptions) => inProcess(proxyApp(room))],
])('%s, room full', (_, probeFor) => {
  it(`lets no variant of ${VARIANTS.length} reach a /shop handler (paths: ['/shop'], bypass /static)`, async () => {
    expect(VARIANTS.length).toBeGreaterThan(500)
    expect(await violations(probeFor(SHOP_ROOM), shopRule)).toEqual([])
  })

  it('bypasses only paths that every reading puts under /static (every path covered)', async () => {
    expect(await violations(probeFor(ALL_ROOM), bypassRule)).toEqual([])
  })

  it('still serves a clean bypassed path and an uncovered one: fail closed is not "cover everything"', async () => {
    const shop = probeFor(SHOP_ROOM)
    const all = probeFor(ALL_ROOM)
    const seen = {
      static: await shop('/static/app.js'),
      staticNested: await shop('/static/css/site%20v2.css?v=3'),
      about: await shop('/about'),
      home: await shop('/?next=/shop'),
      shop: await shop('/shop'),
      product: await shop('/shop/product/123'),
      allStatic: await all('/static/app.js'),
      allAbout: await all('/about'),
    }
    expect(seen).toEqual({
      static: 'static',
      staticNested: 'static',
      about: 'about',
      home: 'home',
      shop: 'queued',
      product: 'queued',
      allStatic: 'static',
      allAbout: 'queued',
    })
  })
})

describe('the proxy over real sockets, room full', () => {
  let origin: Listening
  let proxy: Listening
  beforeAll(async () => {
    origin = await listen(routes(new Hono()).fetch, 0, '127.0.0.1')
    proxy = await listen(createProxyApp({ origin: origin.url, room: SHOP_ROOM, onOriginError: () => {} }).fetch, 0, '127.0.0.1')
  })
  afterAll(async () => {
    await proxy?.close()
    await origin?.close()
  })

  /** Sends the request target byte for byte (fetch would normalise it first). */
  const raw: Probe = (target) =>
    new Promise((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port: proxy.port, path: target, method: 'GET' }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          const headers = new Headers(response.headers as Record<string, string>)
          resolve(outcomeOf(new Response(Buffer.concat(chunks), { status: response.statusCode!, headers })))
        })
      })
      request.on('error', reject)
      request.end()
    })

  it('lets no raw request target reach a /shop handler', async () => {
    expect(await violations(raw, (_, outcome) => SHOP_HANDLERS.has(outcome))).toEqual([])
    expect([await raw('/static/app.js'), await raw('/about'), await raw('/shop/product/1')]).toEqual(['static', 'about', 'queued'])
  }, 60_000)
})
