/**
 * break14b — issue #14 item 1 (path coverage) with Hono features the fuzz does not exercise: basePath,
 * app.route sub-apps (room outside and inside), app.mount, a custom getPath, strict: false, and several rooms
 * (an open site room plus a full checkout room, "most specific decides"). A full room (queueAll) must keep every
 * variant that reaches a covered handler away from it.
 * BROKEN (2 tests): a full checkout room mounted on a prefix — `app.use('/checkout/*', checkout)` or `sub.use('*', checkout)`
 * in `app.route('/checkout', sub)` — after an open site room `app.use('*', site)`: every /checkout request reaches
 * the handler. The rooms rank by their paths/routes options only; the mount prefix is ignored, so both rank as
 * catch-alls and the room mounted first (site) decides.
 */
import { Hono } from 'hono'
import { getPath as honoGetPath } from 'hono/utils/url'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator, waitingRoom, SECRET, START } from '../harness.ts'

const room = (extra: Record<string, unknown>) =>
  waitingRoom({ secret: SECRET, clock: () => START, coordinator: memoryCoordinator(), queueAll: true, ...extra })
const mark = (c: any) => { c.header('x-reached', 'covered'); return c.text(`COVERED ${c.req.path}`) }
const other = (c: any) => c.text(`other ${c.req.path}`)

/** Path spellings around a covered prefix P. */
function variants(P: string): string[] {
  const up = P.toUpperCase()
  const last = P.split('/').pop()!
  const parent = P.slice(0, P.length - last.length)
  return [
    P, `${P}/`, `${P}/item/1`, `${P}//item`, `${P}?x=/static`, `${P}/?../static`, up, `${up}/item/1`,
    `${parent}${last[0]!.toUpperCase()}${last.slice(1)}/item`,
    `${parent}%${last.charCodeAt(0).toString(16)}${last.slice(1)}/item`, `${parent}%${last.charCodeAt(0).toString(16).toUpperCase()}${last.slice(1)}`,
    `${P}%00`, `${P}%20`, `${P}.`, `${P};x=1`, `${P}/.`, `${P}/./item`, `/x/..${P}`, `/static/..${P}/item`, `/static/%2e%2e${P}/item`,
    `${P.replace(/\/[^/]*$/, '')}//${last}/item`, `/${P}`, `//${P.slice(1)}/item`, `${P}#frag`,
  ]
}

async function probe(app: { request: (p: string, init?: RequestInit) => Response | Promise<Response> }, paths: string[], methods = ['GET', 'HEAD', 'POST']) {
  const leaks: string[] = []
  for (const p of paths) for (const method of methods) {
    let res: Response
    try { res = await app.request(`http://shop.test${p}`, { method }) } catch { continue }
    if (res.headers.get('x-reached') === 'covered') leaks.push(`${method} ${p} -> ${res.status} ${method === 'HEAD' ? '' : (await res.text()).slice(0, 60)}`)
  }
  return leaks
}

describe('break14b: path coverage with Hono features (full room, nobody new admitted)', () => {
  it('basePath(/v1): room on the based app, paths [/v1/shop]', async () => {
    const app = new Hono().basePath('/v1')
    app.use('*', room({ paths: ['/v1/shop'], bypass: { paths: ['/v1/static'] } }))
    app.all('/shop', mark); app.all('/shop/*', mark); app.get('/static/*', other); app.all('*', other)
    expect(await probe(app, variants('/v1/shop'))).toEqual([])
  })

  it('app.route(/api, sub): room on the parent, paths [/api/shop]', async () => {
    const sub = new Hono(); sub.all('/shop', mark); sub.all('/shop/*', mark); sub.all('*', other)
    const app = new Hono(); app.use('*', room({ paths: ['/api/shop'], bypass: { paths: ['/api/static'] } })); app.route('/api', sub)
    expect(await probe(app, variants('/api/shop'))).toEqual([])
  })

  it('app.route(/api, sub): room inside the sub-app (sub.use(*)), paths [/api/shop]', async () => {
    const sub = new Hono(); sub.use('*', room({ paths: ['/api/shop'] })); sub.all('/shop', mark); sub.all('/shop/*', mark); sub.all('*', other)
    const app = new Hono(); app.route('/api', sub); app.all('*', other)
    expect(await probe(app, variants('/api/shop'))).toEqual([])
  })

  it('app.mount(/legacy, inner.fetch) after the room, paths [/legacy/shop]', async () => {
    const inner = new Hono(); inner.all('/shop', mark); inner.all('/shop/*', mark); inner.all('*', other)
    const app = new Hono(); app.use('*', room({ paths: ['/legacy/shop'] })); app.mount('/legacy', inner.fetch); app.all('*', other)
    expect(await probe(app, variants('/legacy/shop'))).toEqual([])
  })

  it('room inside an app mounted with app.mount(/legacy): paths [/shop] as the inner app sees it', async () => {
    const inner = new Hono(); inner.use('*', room({ paths: ['/shop'] })); inner.all('/shop', mark); inner.all('/shop/*', mark); inner.all('*', other)
    const app = new Hono(); app.mount('/legacy', inner.fetch); app.all('*', other)
    expect(await probe(app, variants('/legacy/shop'))).toEqual([])
  })

  it('getPath: host-based routing (Hono docs example), paths [/shop]', async () => {
    const app = new Hono({ getPath: (req) => '/' + req.headers.get('host') + honoGetPath(req) })
    app.use('*', room({ paths: ['/shop'] }))
    app.all('/shop.test/shop', mark); app.all('/shop.test/shop/*', mark); app.all('*', other)
    const leaks: string[] = []
    for (const p of variants('/shop')) {
      let res: Response
      try { res = await app.request(`http://shop.test${p}`, { headers: { host: 'shop.test' } }) } catch { continue }
      if (res.headers.get('x-reached') === 'covered') leaks.push(`${p} -> ${res.status}`)
    }
    expect(leaks).toEqual([])
  })

  it('getPath that lowercases (a case-insensitive site), paths [/shop]', async () => {
    const app = new Hono({ getPath: (req) => honoGetPath(req).toLowerCase() })
    app.use('*', room({ paths: ['/shop'], bypass: { paths: ['/static'] } }))
    app.all('/shop', mark); app.all('/shop/*', mark); app.get('/static/*', other); app.all('*', other)
    expect(await probe(app, [...variants('/shop'), '/STATIC/../shop', '/Static/x', '/static/X/../../SHOP'])).toEqual([])
  })

  it('getPath that strips a trailing slash and collapses // (a common normaliser), paths [/shop], bypass [/static]', async () => {
    const app = new Hono({ getPath: (req) => honoGetPath(req).replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1') })
    app.use('*', room({ paths: ['/shop'], bypass: { paths: ['/static'] } }))
    app.all('/shop', mark); app.all('/shop/*', mark); app.get('/static/*', other); app.all('*', other)
    expect(await probe(app, [...variants('/shop'), '/static//shop', '//static/../shop'])).toEqual([])
  })

  it('strict: false with a room on a prefix-mounted middleware (app.use(/shop/*)) only', async () => {
    const app = new Hono({ strict: false })
    app.use('/shop/*', room({})); app.use('/shop', room({}))
    app.all('/shop', mark); app.all('/shop/*', mark); app.all('*', other)
    expect(await probe(app, variants('/shop'))).toEqual([])
  })

  it('several rooms: an open site room (app.use) and a full checkout room with routes [/checkout]', async () => {
    const app = new Hono()
    app.use('*', waitingRoom({ secret: SECRET, clock: () => START, coordinator: memoryCoordinator(), roomId: 'site', totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000 }))
    app.use('*', room({ roomId: 'checkout', routes: [{ path: '/checkout' }] }))
    app.all('/checkout', mark); app.all('/checkout/*', mark); app.all('*', other)
    expect(await probe(app, variants('/checkout'))).toEqual([])
  })

  it('several rooms: open site room + full checkout room in a sub-app (app.route(/checkout, sub) with sub.use(*))', async () => {
    const sub = new Hono(); sub.use('*', room({ roomId: 'checkout', cookie: { suffix: 'co' } })); sub.all('/', mark); sub.all('/*', mark)
    const app = new Hono()
    app.use('*', waitingRoom({ secret: SECRET, clock: () => START, coordinator: memoryCoordinator(), roomId: 'site', totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000 }))
    app.route('/checkout', sub); app.all('*', other)
    expect(await probe(app, variants('/checkout'))).toEqual([])
  })

  it('several rooms: open site room (app.use(*)) + full checkout room mounted on a prefix (app.use(/checkout/*)) after it', async () => {
    const app = new Hono()
    app.use('*', waitingRoom({ secret: SECRET, clock: () => START, coordinator: memoryCoordinator(), roomId: 'site', totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000 }))
    app.use('/checkout/*', room({ roomId: 'checkout', cookie: { suffix: 'co' } }))
    app.all('/checkout/*', mark); app.all('*', other)
    expect(await probe(app, ['/checkout/item/1', '/checkout/pay'])).toEqual([])
  })

  it('several rooms + getPath that lowercases: open site room, full checkout room with routes [/checkout] (case-sensitive)', async () => {
    const app = new Hono({ getPath: (req) => honoGetPath(req).toLowerCase() })
    app.use('*', waitingRoom({ secret: SECRET, clock: () => START, coordinator: memoryCoordinator(), roomId: 'site', totalActiveUsers: 1_000_000, newUsersPerMinute: 1_000_000 }))
    app.use('*', room({ roomId: 'checkout', routes: [{ path: '/checkout' }] }))
    app.all('/checkout', mark); app.all('/checkout/*', mark); app.all('*', other)
    expect(await probe(app, variants('/checkout'))).toEqual([])
  })
})
