/// <reference types="node" />
/**
 * The proxy CLI serves the admin API and dashboard (issue 18, item 6): `--admin-token` / `WR_ADMIN_TOKEN` and
 * `--admin-path` parsed and checked (a bad token is named, never echoed); `startProxy` with them answers the
 * admin routes first — in a full room, never forwarded to the origin — only for the pinned hosts; without a
 * token nothing is served there. Real sockets (node:http), fake clock.
 */
import { request } from 'node:http'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseFlags, UsageError } from '../bin/flags.ts'
import type { Listening } from '../bin/listen.ts'
import { startProxy } from '../bin/proxy-command.ts'
import { MINUTE_MS } from '../src/clock.ts'
import { serveApp } from './proxy-servers.ts'

const TOKEN = 'cli-admin-token-0123456789abcdef'
const now = 29_100_000 * MINUTE_MS + 1_000
let origin: Listening
const originHits: string[] = []
const servers: Listening[] = []

beforeAll(async () => {
  const app = new Hono()
  app.all('*', (c) => {
    originHits.push(c.req.path)
    return c.text('origin page')
  })
  origin = await serveApp(app)
})
afterAll(async () => {
  for (const server of servers) await server.close()
  await origin?.close()
})

/** A GET with a Host header of our choosing (fetch cannot set one). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      let body = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve({ status: response.statusCode!, body }))
    }).on('error', reject).end()
  })
}

const flags = (argv: string[], env: Record<string, string> = {}) => parseFlags(['--origin', 'http://127.0.0.1:9', ...argv], env).config

describe('--admin-token and --admin-path', () => {
  it('are read from the flags or WR_ADMIN_TOKEN / WR_ADMIN_PATH, the path defaulting to /_room', () => {
    expect(flags([]).admin).toBeUndefined()
    expect(flags(['--admin-token', TOKEN]).admin).toEqual({ token: TOKEN, path: '/_room' })
    expect(flags([], { WR_ADMIN_TOKEN: TOKEN, WR_ADMIN_PATH: '/ops/room' }).admin).toEqual({ token: TOKEN, path: '/ops/room' })
    expect(flags(['--admin-token', TOKEN, '--admin-path', '/x'], { WR_ADMIN_TOKEN: 'other-token-0123456789abcdef' }).admin).toEqual({ token: TOKEN, path: '/x' })
  })

  it('refuse a short or malformed token without echoing it, a bad path, and a path without a token', () => {
    for (const bad of ['short', 'has spaces in it 0123456789', 'ünïcode-0123456789abcdef']) {
      let error: unknown
      try {
        flags(['--admin-token', bad])
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(UsageError)
      expect((error as Error).message).toMatch(/^invalid --admin-token: /)
      expect((error as Error).message).not.toContain(bad)
    }
    for (const path of ['_room', '/_room/', '/a/../b', '/a b', '/a?x', '/']) {
      expect(() => flags(['--admin-token', TOKEN, '--admin-path', path]), path).toThrow(/invalid --admin-path/)
    }
    expect(() => flags(['--admin-path', '/x'])).toThrow(/--admin-path needs --admin-token/)
  })
})

describe('startProxy with an admin token', () => {
  async function proxy(extra: Partial<ReturnType<typeof flags>> = {}): Promise<Listening> {
    const config = { ...flags(['--port', '0', '--admin-token', TOKEN]), origin: origin.url, ...extra }
    config.room = { ...config.room, totalActiveUsers: 1, newUsersPerMinute: 1, clock: () => now }
    const server = await startProxy(config)
    servers.push(server)
    return server
  }

  it('answers the admin API and the dashboard in a full room, and forwards none of it to the origin', async () => {
    const server = await proxy()
    expect(await (await fetch(`${server.url}/`)).text()).toBe('origin page')
    expect(await (await fetch(`${server.url}/`, { headers: { accept: 'text/html' } })).text()).toContain('id="wait-time"') // full
    originHits.length = 0
    const status = await fetch(`${server.url}/_room/status`, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(status.status).toBe(200)
    expect((await status.json()).estimatedTotalActiveUsers).toBe(1)
    const dashboard = await fetch(`${server.url}/_room`)
    expect(dashboard.headers.get('content-security-policy')).toMatch(/default-src 'none'/)
    expect(await dashboard.text()).toContain('Waiting room dashboard')
    expect((await fetch(`${server.url}/_room/settings`)).status).toBe(401)
    const patch = await fetch(`${server.url}/_room/settings`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ suspended: true }),
    })
    expect(patch.status).toBe(200)
    expect(await (await fetch(`${server.url}/`, { headers: { accept: 'text/html' } })).text()).toBe('origin page') // suspended: everyone passes
    expect(originHits).toEqual(['/'])
  })

  it('serves it at --admin-path only, and only for the pinned hosts', async () => {
    const server = await proxy({ admin: { token: TOKEN, path: '/ops' }, publicHosts: ['shop.example'] })
    const at = (path: string, host: string) => get(`${server.url}${path}`, { authorization: `Bearer ${TOKEN}`, host })
    expect((await at('/ops/status', 'shop.example')).status).toBe(200)
    expect((await at('/ops/status', 'evil.example')).status).toBe(421)
    expect((await at('/ops', 'evil.example')).status).toBe(421)
    originHits.length = 0
    expect((await at('/_room/status', 'shop.example')).body).toBe('origin page') // not the admin's path here
    expect(originHits).toEqual(['/_room/status'])
  })

  it('serves nothing at /_room without a token', async () => {
    const server = await proxy({ admin: undefined })
    originHits.length = 0
    expect(await (await fetch(`${server.url}/_room/status`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()).toBe('origin page')
  })
})
