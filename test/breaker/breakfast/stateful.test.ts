/// <reference types="node" />
/**
 * breakfast's regression probes on state (they pass): with the fast path on and off (each its own pair of
 * CLI processes sharing a `--store` SQLite file, one fake clock reset per pair), an admitted ticket through
 * an origin `revoke` (reused on the same and on the second process), the admin API suspending the room and
 * lowering limits, a ticket whose renewal falls due at a minute boundary, a pipelined cookieless request
 * behind an admitted one in a full room, and origin answers carrying the command in odd ways.
 * Every step's answer and origin request must match between the two pairs.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { ADMIN_TOKEN, baseConfig, clock, mint, probe, raw, startSide, stopSide, type Side } from './harness.ts'

const all: Side[] = []
afterAll(async () => {
  for (const side of all) await stopSide(side)
})
const get = (path: string, method = 'GET') => `${method} ${path} HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom={T}\r\nConnection: close\r\n\r\n`
const patch = (body: string) =>
  `PATCH /_room/settings HTTP/1.1\r\nHost: shop.example\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
const START = Date.UTC(2026, 0, 1, 12, 0, 20)

function reply(url: string): { status?: number; headers?: string[] } {
  if (url.includes('revokeme')) return { headers: ['Waiting-Room-Command', 'revoke'] }
  if (url.includes('nominated')) return { headers: ['Connection', 'Waiting-Room-Command', 'Waiting-Room-Command', 'revoke'] }
  if (url.includes('twice')) return { headers: ['Waiting-Room-Command', 'revoke', 'Waiting-Room-Command', 'revoke'] }
  if (url.includes('cf')) return { headers: ['Cf-Waiting-Room-Command', 'revoke'] }
  if (url.includes('spaced')) return { headers: ['waiting-room-command', '  REVOKE '] }
  if (url.includes('s304')) return { status: 304, headers: ['Waiting-Room-Command', 'revoke'] }
  return {}
}

/** Responses as HTTP reads them: header names are case-insensitive and their order (but per name) free. */
function canonical(answer: string): string {
  return answer
    .split(/(?=HTTP\/1\.[01] \d{3})/)
    .map((one) => {
      const [head = '', ...body] = one.split('\r\n\r\n')
      const [status, ...lines] = head.split('\r\n')
      const headers = lines.map((line) => line.replace(/^[^:]+/, (name) => name.toLowerCase())).sort()
      // The queue page's refresh is jittered at random: not the fast path's doing.
      return [status, ...headers, '', body.join('\r\n\r\n')].join('\n').replace(/(refresh: |content=")\d+/g, '$1<n>')
    })
    .join('\n---\n')
}

/** One scenario on one pair; returns every step's outcome, labelled. */
async function scenario(fast: boolean, dir: string, room: object): Promise<string[]> {
  clock.now = START
  const store = join(dir, `s-${fast}-${Math.random().toString(36).slice(2)}.sqlite`)
  const config = (o: string) => baseConfig(o, { store, admin: { token: ADMIN_TOKEN, path: '/_room' } }, { enabledOriginCommands: ['revoke'], ...room })
  const a = await startSide(fast, config)
  const b = await startSide(fast, config)
  all.push(a, b)
  a.origin.reply = reply
  b.origin.reply = reply
  const steps: string[] = []
  const step = async (label: string, side: Side, bytes: string) => {
    const o = await probe(side, bytes)
    // Pipelined requests reach the origin concurrently (the admitted one by the fast path): in either order.
    const origin = o.origin.split('\n').sort().join('\n')
    steps.push(`${label}\n${canonical(o.answer)}\n${origin}`)
  }
  const share = () => (b.ticket = a.ticket)
  await mint(a)
  share()
  await step('b warm', b, get('/w1'))
  await step('b warm again', b, get('/w2'))
  await step('pipelined cookieless behind admitted', a, `GET /p1 HTTP/1.1\r\nHost: shop.example\r\nCookie: __wroom={T}\r\n\r\nGET /p2 HTTP/1.1\r\nHost: shop.example\r\nAccept: application/json\r\nConnection: close\r\n\r\n`)
  await step('a revoke', a, get('/revokeme'))
  await step('a reuse revoked', a, get('/after'))
  await step('b reuse revoked', b, get('/after'))
  clock.now += 10_000
  await step('b reuse revoked +10s', b, get('/after'))
  for (const kind of ['nominated', 'twice', 'cf', 'spaced', 's304']) {
    clock.now += 5 * 60_000
    await mint(a)
    await step(`origin command ${kind}`, a, get(`/${kind}`))
    await step(`origin command ${kind}, HEAD`, a, get(`/${kind}`, 'HEAD'))
    await step(`after origin command ${kind}`, a, get('/again'))
  }
  clock.now += 5 * 60_000
  await mint(a)
  share()
  await probe(b, get('/w'))
  steps.push('suspend ' + (await raw(a.port, patch('{"suspended":true}'))).split('\r\n')[0])
  await step('a suspended', a, get('/s'))
  await step('b suspended', b, get('/s'))
  steps.push('lower ' + (await raw(a.port, patch('{"suspended":false,"totalActiveUsers":1,"newUsersPerMinute":1}'))).split('\r\n')[0])
  await step('a lowered', a, get('/l'))
  await step('b lowered', b, get('/l'))
  steps.push('renewal off ' + (await raw(a.port, patch('{"disableSessionRenewal":true}'))).split('\r\n')[0])
  await step('a renewal off', a, get('/n'))
  steps.push('renewal on ' + (await raw(a.port, patch('{"disableSessionRenewal":false,"totalActiveUsers":1000,"newUsersPerMinute":1000}'))).split('\r\n')[0])
  const minute = Math.floor(clock.now / 60_000) * 60_000 + 10 * 60_000
  clock.now = minute + 59_999
  await mint(a)
  clock.now = minute + 60_000
  await step('renewal due at the minute boundary', a, get('/m'))
  const status = await raw(a.port, `GET /_room/status HTTP/1.1\r\nHost: shop.example\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nConnection: close\r\n\r\n`)
  steps.push(`status ${status.split('\r\n\r\n')[1]}`)
  return steps
}

it('revoke, admin changes, minute boundary and origin commands: fast path on and off alike', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'breakfast-'))
  const fast = await scenario(true, dir, {})
  const full = await scenario(false, dir, {})
  expect(fast).toEqual(full)
}, 60_000)

it('the same in a full room (one active user): a revoked or cookieless user is not let through', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'breakfast-'))
  const room = { totalActiveUsers: 1, newUsersPerMinute: 1 }
  const fast = await scenario(true, dir, room)
  const full = await scenario(false, dir, room)
  expect(fast).toEqual(full)
}, 60_000)
