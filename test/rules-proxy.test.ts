/// <reference types="node" />
/**
 * Runtime bypass rules behind the reverse proxy, over real sockets: the rule's `ip` test sees the client
 * address the proxy concluded (its socket peer here, no trusted proxies), so a forged X-Forwarded-For does
 * not buy a bypass, and rules stored by another process are picked up from the shared storage.
 */
import { Hono } from 'hono'
import { afterAll, describe, expect, it } from 'vitest'
import type { Listening } from '../bin/listen.ts'
import { memorySettingsStorage } from '../src/admission/settings.ts'
import { CookieJar, serveApp, serveProxy } from './proxy-servers.ts'

const servers: Listening[] = []
afterAll(async () => {
  for (const server of servers) await server.close()
})

describe('proxy: runtime bypass rules', () => {
  it("an ip rule matches the proxy's concluded client address, not a forged header", async () => {
    const origin = await serveApp(new Hono().get('*', (c) => c.text('origin page')))
    servers.push(origin)
    const storage = memorySettingsStorage()
    const proxyFor = async (range: string) => {
      await storage.setItem('waiting-room:default:rules', [{ id: 'loopback', when: { ip: [range] } }])
      const proxy = await serveProxy({ origin: origin.url, room: { storage, totalActiveUsers: 1, newUsersPerMinute: 100 } })
      servers.push(proxy)
      return proxy
    }
    const outside = await proxyFor('203.0.113.0/24')
    expect(await (await new CookieJar().fetch(`${outside.url}/`)).text()).toBe('origin page') // fills the room
    const forged = await new CookieJar().fetch(`${outside.url}/`, { headers: { 'x-forwarded-for': '203.0.113.5' } })
    expect(await forged.text()).not.toBe('origin page') // queued: the header is not believed

    const loopback = await proxyFor('127.0.0.0/8')
    expect(await (await new CookieJar().fetch(`${loopback.url}/`)).text()).toBe('origin page')
    const second = await new CookieJar().fetch(`${loopback.url}/`)
    expect(await second.text()).toBe('origin page') // bypassed by the rule, though the room is full
    expect(second.headers.getSetCookie()).toEqual([])
  })
})
