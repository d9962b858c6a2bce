/**
 * #14.1 probe: coverage by `routes` (host + path) and `hosts` on the middleware served by @hono/node-server, over raw
 * sockets: the covered host spelled differently (case, trailing dot, port, IPv6 forms, absolute-form targets naming
 * it while Host names another, HTTP/1.0 without Host), with `ignorePathCase` on and off. The app routes by path
 * only (one shop for every host name the DNS points at it): nothing spelled as the covered host may reach /shop.
 */
import { serve } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shopApp } from '../paths-app.ts'
import { raw } from './support.ts'

const servers: ReturnType<typeof serve>[] = []
afterAll(() => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))))

async function start(extra: Record<string, unknown>): Promise<number> {
  return new Promise((resolve) => {
    const s = serve({ fetch: shopApp('regexp', { paths: undefined, ...extra }).fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port))
    servers.push(s)
  })
}


const SPELLINGS = ['shop.test', 'SHOP.TEST', 'Shop.Test', 'shop.test.', 'SHOP.TEST.', 'shop.test:80', 'shop.test.:80', 'shop.test:', 'shop.test:0080', ' shop.test', 'shop.test ', 'shop\u017f.test']
/** Not spellings of shop.test (an empty label; no Host at all): they reach /shop as any other host does (logged only). */
const OTHERS = ['shop.test..', 'xn--shop.test']
const TARGETS = ['/shop/product/1', '/Shop/product/1', '/SHOP', '/shop']

function requests(): { label: string; text: string }[] {
  const out: { label: string; text: string }[] = []
  for (const host of SPELLINGS) for (const target of TARGETS) {
    out.push({ label: `Host ${JSON.stringify(host)} ${target}`, text: `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n` })
    out.push({ label: `absolute http://${host}${target} Host other.test`, text: `GET http://${host}${target} HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n` })
  }
  return out
}

const CONFIGS: [string, Record<string, unknown>][] = [
  ['hosts [shop.test]', { hosts: ['shop.test'] }],
  ['hosts [SHOP.test.]', { hosts: ['SHOP.test.'] }],
  ['routes [{shop.test, /shop}]', { routes: [{ host: 'shop.test', path: '/shop' }] }],
  ['routes [{shop.test, /shop}], ignorePathCase', { routes: [{ host: 'shop.test', path: '/shop' }], ignorePathCase: true }],
  ['routes [{shop.test}] (every path)', { routes: [{ host: 'shop.test' }] }],
]

describe('the covered host, spelled otherwise, never reaches /shop', () => {
  for (const [name, extra] of CONFIGS) {
    it(name, async () => {
      let port: number
      try {
        port = await start(extra)
      } catch (error) {
        console.log(`${name}: refused at construction: ${(error as Error).message}`)
        return
      }
      const bad: string[] = []
      for (const { label, text } of requests()) {
        const out = await raw(port, text)
        // /Shop and /SHOP reach the shop only where the app ignores case; this app is case-sensitive, so only /shop... counts.
        if (/x-reached: shop/i.test(out)) bad.push(`${label} -> ${out.split('\r\n')[0]}`)
      }
      const others: string[] = []
      for (const host of OTHERS) others.push(`Host ${host}: ${/x-reached: shop/i.test(await raw(port, `GET /shop HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)) ? 'reached /shop' : 'queued'}`)
      others.push(`HTTP/1.0 without Host: ${/x-reached: shop/i.test(await raw(port, 'GET /shop HTTP/1.0\r\n\r\n')) ? 'reached /shop' : 'queued'}`)
      console.log(`${name}: ${bad.length} reached\n${bad.join('\n')}\n(not the covered host: ${others.join('; ')})`)
      expect(bad).toEqual([])
    }, 60_000)
  }
})
