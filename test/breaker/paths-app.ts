/** The app under attack: /shop covered, /static bypassed, a full room (queueAll). */
import { Hono } from 'hono'
import { RegExpRouter } from 'hono/router/reg-exp-router'
import { TrieRouter } from 'hono/router/trie-router'
import { LinearRouter } from 'hono/router/linear-router'
import { PatternRouter } from 'hono/router/pattern-router'
import { waitingRoom, memoryCoordinator, SECRET, START } from './harness.ts'

export const ROUTERS = ['regexp', 'trie', 'linear', 'pattern', 'nonstrict'] as const
export type RouterName = (typeof ROUTERS)[number]

export function shopApp(router: RouterName = 'regexp', extra: Record<string, unknown> = {}) {
  const options =
    router === 'nonstrict' ? { strict: false } :
    { router: router === 'regexp' ? new RegExpRouter() : router === 'trie' ? new TrieRouter() : router === 'linear' ? new LinearRouter() : new PatternRouter() }
  const app = new Hono(options as never)
  app.use('*', waitingRoom({ secret: SECRET, clock: () => START, coordinator: memoryCoordinator(), paths: ['/shop'], queueAll: true, bypass: { paths: ['/static'] }, ...extra }))
  const shop = (name: string) => (c: any) => { c.header('x-reached', 'shop'); return c.text(`SHOP ${name} ${c.req.path}`) }
  app.get('/shop/product/:id', shop('product'))
  app.all('/shop/*', shop('wild'))
  app.all('/shop', shop('root'))
  app.get('/static/*', (c) => c.text(`static ${c.req.path}`))
  app.all('*', (c) => c.text(`other ${c.req.path}`))
  return app
}
