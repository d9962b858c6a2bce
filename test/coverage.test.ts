/**
 * Which requests the room covers, and that no variant of a protected path slips past it.
 */
import { describe, expect, it } from 'vitest'
import { normalizePath, pathMatcher, rawPathOf } from '../src/room/coverage.ts'
import { roomHarness } from './support/room-harness.ts'

describe('path normalisation', () => {
  it.each([
    ['/', '/'],
    ['/Shop', '/shop'],
    ['/shop/', '/shop'],
    ['//shop//cart', '/shop/cart'],
    ['/%73hop', '/shop'],
    ['/%2573hop', '/shop'], // double encoding
    ['/shop%2Fcart', '/shop/cart'],
    ['/static/../shop', '/shop'],
    ['/static/%2e%2e/shop', '/shop'],
    ['/./shop/.', '/shop'],
    ['/shop;jsessionid=1/cart', '/shop/cart'],
    ['\\shop', '/shop'],
    ['/../../shop', '/shop'],
    ['/%zz/shop', '/%zz/shop'], // malformed escapes stay as they are, never throw
  ])('%s → %s', (raw, normalized) => {
    expect(normalizePath(raw)).toBe(normalized)
  })

  it('takes the path from the raw URL, before any decoding', () => {
    expect(rawPathOf('https://a.example/%73hop?x=/y#z')).toBe('/%73hop')
    expect(rawPathOf('http://a.example')).toBe('/')
  })

  it('matches prefixes on segment boundaries, with * for one segment', () => {
    const matches = pathMatcher(['/shop', '/events/*/tickets'])
    expect(matches('/shop')).toBe(true)
    expect(matches('/shop/cart')).toBe(true)
    expect(matches('/shopping')).toBe(false)
    expect(matches('/events/42/tickets')).toBe(true)
    expect(matches('/events/42/tickets/7')).toBe(true)
    expect(matches('/events/42')).toBe(false)
  })
})

describe('coverage and bypass in the room', () => {
  /** A full room (limit 1, taken) protecting /shop, with static files and OPTIONS bypassed. */
  async function protectedShop() {
    const room = roomHarness({ totalActiveUsers: 1, paths: ['/shop'], bypass: { paths: ['/static'], methods: ['OPTIONS'] } })
    expect((await room.visit(undefined, { path: '/shop' })).outcome).toBe('admitted')
    return room
  }

  it('catches every variant of a protected path', async () => {
    const room = await protectedShop()
    const variants = ['/shop', '/SHOP', '/Shop/', '/shop/', '//shop', '/%73hop', '/%2573hop', '/shop;x=1', '/static/../shop', '/static/%2e%2e/shop', '/./shop', '/shop/cart?x=1', '/%2Fshop']
    for (const path of variants) {
      const visit = await room.visit(undefined, { path })
      expect({ path, outcome: visit.outcome }).toEqual({ path, outcome: 'queued' })
    }
    const head = await room.visit(undefined, { path: '/shop', method: 'HEAD' })
    expect(head.response.headers.get('refresh')).not.toBeNull() // HEAD is judged as GET: queued
  })

  it('lets uncovered paths, bypassed paths and methods through without counting them', async () => {
    const room = await protectedShop()
    for (const [path, method] of [
      ['/', 'GET'],
      ['/shopping', 'GET'],
      ['/static/app.js', 'GET'],
      ['/STATIC/app.js', 'GET'],
      ['/shop', 'OPTIONS'],
    ] as const) {
      const visit = await room.visit(undefined, { path, method })
      expect({ path, method, reason: visit.response.headers.get('x-origin') }).toEqual({ path, method, reason: 'bypass' })
    }
  })

  it('covers only the listed hosts, and bypasses by rule and for verified crawlers', async () => {
    const room = roomHarness({
      totalActiveUsers: 1,
      hosts: ['shop.example'],
      bypass: { when: (c) => c.req.header('x-health') === '1' },
      bypassCrawlers: (c) => c.req.header('x-verified-bot') === 'yes',
    })
    await room.visit(undefined, { path: 'http://shop.example/' })
    expect((await room.visit(undefined, { path: 'http://SHOP.example./' })).outcome).toBe('queued')
    expect((await room.visit(undefined, { path: 'http://blog.example/' })).response.headers.get('x-origin')).toBe('bypass')
    expect((await room.visit(undefined, { path: 'http://shop.example/', headers: { 'x-health': '1' } })).response.headers.get('x-origin')).toBe('bypass')
    expect((await room.visit(undefined, { path: 'http://shop.example/', headers: { 'x-verified-bot': 'yes' } })).response.headers.get('x-origin')).toBe('bypass')
  })
})
