/// <reference types="node" />
/**
 * The request target's scheme and authority are the client's to write (break20 absolute-form-proto, issue 14
 * item 6): `GET https://evil.example/x HTTP/1.1` says nothing about the listener or the host. Generated
 * absolute-form targets (schemes in any case, authorities ours and not, with ports) × Host headers (ours, another,
 * none) × new and admitted users × plain requests and WebSocket upgrades, on the CLI on Node and on Bun with
 * `--public-host shop.example`: the Host header alone is checked (421 / 400) and becomes X-Forwarded-Host and the
 * redirects' host; the scheme is the listener's (http) — the origin is told http, the cookie is not Secure, the
 * Location is http. And the other way round on a TLS listener (createProxyApp under @hono/node-server on
 * https.createServer, as the CLI wires it): an `http://` target still gets https everywhere.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect as tlsConnect } from 'node:tls'
import { serve } from '@hono/node-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProxyApp } from '../src/proxy/proxy.ts'
import { fastListener } from '../src/proxy/node-fast.ts'
import { nodeTransport, proxyUpgrades } from '../src/proxy/node.ts'
import { raw, rawOrigin, startCli, stopAll, type RawOrigin } from './breaker/breakh1/helpers.ts'
import { seededRandom, ticketFor } from './breaker/break20/targets.ts'

const SCHEMES = ['https', 'HTTPS', 'HtTpS', 'http', 'HTTP']
const AUTHORITIES = ['shop.example', 'shop.example:443', 'evil.example', 'evil.example:8443', '127.0.0.1']
const HOSTS = ['shop.example', 'SHOP.example', 'evil.example', undefined] as const

interface Case { target: string; host: string | undefined; user: 'new' | 'admitted'; upgrade: boolean }

/** 40 generated cases per seed: every target form with every Host, users and upgrades mixed. */
function cases(seed: string): Case[] {
  const r = seededRandom(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)]!
  return Array.from({ length: 40 }, () => ({
    target: `${pick(SCHEMES)}://${pick(AUTHORITIES)}${pick(['/x', '/a/b?q=1', '/'])}`,
    host: pick(HOSTS),
    user: r() < 0.5 ? 'new' : 'admitted',
    upgrade: r() < 0.25,
  }))
}

/** The request's bytes (HTTP/1.0 without a Host, as HTTP/1.1 requires one). */
function requestOf(c: Case, ticket: string): string {
  const lines = [`GET ${c.target} HTTP/1.${c.host === undefined ? 0 : 1}`]
  if (c.host !== undefined) lines.push(`Host: ${c.host}`)
  if (c.user === 'admitted') lines.push(`Cookie: __wroom=${ticket}`)
  lines.push(c.upgrade ? 'Connection: Upgrade\r\nUpgrade: websocket' : 'Connection: close')
  return `${lines.join('\r\n')}\r\n\r\n`
}

/** The origin: upgrades switch (then close), anything else a redirect to itself. */
const answer = (origin: () => RawOrigin) => (socket: import('node:net').Socket, head: string) => {
  if (/\r\nupgrade: websocket/i.test(head)) return void socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n')
  socket.write(`HTTP/1.1 302 Found\r\nLocation: ${origin().url}/next\r\nContent-Length: 2\r\n\r\nok`)
}

/** What the origin was told of one request (its X-Forwarded-Proto and -Host), and what the client got; whether it reached the origin. */
function check(c: Case, got: string, told: string[], proto: 'http' | 'https'): boolean {
  const status = got.split('\r\n')[0]
  const why = JSON.stringify({ c, got: got.slice(0, 300), told })
  // @hono/node-server reads a target as absolute only in lower case (`HTTPS://…` is an invalid URL to it): refusing the form outright is fair.
  if (status === 'HTTP/1.1 400 Bad Request' && told.length === 0 && !c.target.startsWith('http')) return false
  if (c.host === undefined || c.host.toLowerCase() !== 'shop.example') {
    expect([status, told], why).toEqual([c.host === undefined ? 'HTTP/1.1 400 Bad Request' : 'HTTP/1.1 421 Misdirected Request', []])
    return false
  }
  expect(told.length, why).toBe(1)
  expect(/\r\nX-Forwarded-Proto: ([^\r]*)/i.exec(told[0]!)?.[1], why).toBe(proto)
  expect(/\r\nX-Forwarded-Host: ([^\r]*)/i.exec(told[0]!)?.[1], why).toBe(c.host)
  if (c.upgrade) {
    expect(status, why).toBe('HTTP/1.1 101 Switching Protocols')
    return true
  }
  expect(status, why).toBe('HTTP/1.1 302 Found')
  expect(/\r\nlocation: ([^\r]*)/i.exec(got)?.[1], why).toBe(`${proto}://${c.host}/next`)
  const cookie = /\r\nset-cookie: (__wroom=[^\r]*)/i.exec(got)?.[1]
  if (c.user === 'new') expect(cookie, why).toBeDefined()
  expect(/;\s*secure/i.test(cookie ?? ''), why).toBe(proto === 'https' && cookie !== undefined)
  return true
}

for (const runtime of ['node', 'bun'] as const) {
  describe(`absolute-form targets on the CLI's plain listener, --public-host shop.example (${runtime})`, () => {
    let origin: RawOrigin
    let port = 0
    let ticket = ''
    beforeAll(async () => {
      origin = await rawOrigin(answer(() => origin))
      port = (await startCli(origin.url, runtime, ['--public-host', 'shop.example'])).port
      ticket = await ticketFor(port)
    }, 30_000)
    afterAll(() => { stopAll(); origin?.close() })

    for (const seed of ['a', 'b']) {
      it(`seed ${seed}: the Host header is checked and named, the scheme is the listener's (http)`, async () => {
        let reached = 0
        for (const c of cases(`absolute-form-${runtime}-${seed}`)) {
          const before = origin.heads.length
          const got = await raw(port, requestOf(c, ticket), 800)
          if (check(c, got, origin.heads.slice(before).map(([, head]) => head), 'http')) reached++
        }
        expect(reached).toBeGreaterThan(5) // the forms were tried, not all refused
      }, 60_000)
    }
  })
}

describe('on a TLS listener (createProxyApp under @hono/node-server on https.createServer)', () => {
  let origin: RawOrigin
  let port = 0
  let ticket = ''
  let close = () => {}
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wr-tls-'))
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=shop.example', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' })
    const tls = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }
    origin = await rawOrigin(answer(() => origin))
    const app = createProxyApp({ origin: origin.url, transport: nodeTransport(), publicHosts: ['shop.example'], clientAddress: () => '127.0.0.1', room: { secret: 'absolute-form-secret-0123456789-abcdefghij', totalActiveUsers: 1e6, newUsersPerMinute: 1e6 } })
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', createServer: ((options: object, listener: never) => createHttpsServer({ ...options, ...tls }, fastListener(app.fastPath!, listener))) as never })
    proxyUpgrades(server as never, app.fetch as never)
    await new Promise((resolve) => server.once('listening', resolve))
    port = (server.address() as AddressInfo).port
    close = () => server.close()
    const first = await tlsRaw(port, 'GET /mint HTTP/1.1\r\nHost: shop.example\r\nConnection: close\r\n\r\n')
    ticket = /set-cookie: __wroom=([^;\r\n]+)/i.exec(first)![1]!
    await tlsRaw(port, `GET /warm HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom=${ticket}\r\nConnection: close\r\n\r\n`)
  }, 30_000)
  afterAll(() => { close(); origin?.close() })

  it('an http:// (or any) target still gets https: origin told https, Secure cookie, https Location', async () => {
    let reached = 0
    for (const c of [...cases('absolute-form-tls'), { target: '/x', host: 'shop.example', user: 'admitted', upgrade: false } as Case, { target: '/x', host: 'shop.example', user: 'new', upgrade: false } as Case]) {
      const before = origin.heads.length
      const got = await tlsRaw(port, requestOf(c, ticket))
      if (check(c, got, origin.heads.slice(before).map(([, head]) => head), 'https')) reached++
    }
    expect(reached).toBeGreaterThan(5)
  }, 60_000)
})

/** Raw bytes over TLS; everything read until the peer closes or 800 ms of silence. */
function tlsRaw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ port, host: '127.0.0.1', servername: 'shop.example', rejectUnauthorized: false })
    const chunks: Buffer[] = []
    let timer: ReturnType<typeof setTimeout> | undefined
    const done = () => { clearTimeout(timer); socket.destroy(); resolve(Buffer.concat(chunks).toString('latin1')) }
    const arm = () => { clearTimeout(timer); timer = setTimeout(done, 800) }
    socket.on('secureConnect', () => { socket.write(bytes); arm() })
    socket.on('data', (c: Buffer) => { chunks.push(c); arm() })
    socket.on('close', done)
    socket.on('error', done)
  })
}
