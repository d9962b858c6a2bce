/// <reference types="node" />
/**
 * `turnstile()` against a local server that answers like Cloudflare's `siteverify`
 * (https://developers.cloudflare.com/turnstile/get-started/server-side-validation/): a form POST of `secret`,
 * `response`, `remoteip` and `idempotency_key`; JSON with `success`, `error-codes`, `challenge_ts`, `hostname`,
 * `action`; a token is valid once (`timeout-or-duplicate` after). No network leaves the machine.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHALLENGE_HEADER, turnstile } from '../src/index.ts'
import { roomHarness } from './support/room-harness.ts'

const SECRET_KEY = '0x4AAAAAAA-test-secret'
const GOOD_TOKENS = new Set(['token-a', 'token-b', 'token-c', 'token-d'])

let server: Server
let url = ''
const received: Record<string, string>[] = []
const spent = new Set<string>()
let delayMs = 0

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body))
      received.push({ ...form, contentType: req.headers['content-type'] ?? '', method: req.method ?? '' })
      const answer = (json: object) =>
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify(json))
        }, delayMs)
      if (form.secret !== SECRET_KEY) return answer({ success: false, 'error-codes': ['invalid-input-secret'] })
      if (!form.response) return answer({ success: false, 'error-codes': ['missing-input-response'] })
      if (!GOOD_TOKENS.has(form.response)) return answer({ success: false, 'error-codes': ['invalid-input-response'] })
      if (spent.has(form.response)) return answer({ success: false, 'error-codes': ['timeout-or-duplicate'] })
      spent.add(form.response)
      answer({ success: true, 'error-codes': [], challenge_ts: new Date().toISOString(), hostname: 'localhost', action: form.response === 'token-d' ? 'other' : 'queue', cdata: '' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/turnstile/v0/siteverify`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const room = (options: Partial<Parameters<typeof turnstile>[0]> = {}, onFail: 'log' | 'infinite-queue' = 'infinite-queue') =>
  roomHarness({
    roomId: `ts-${Math.random().toString(36).slice(2)}`,
    totalActiveUsers: 100,
    challenge: { provider: turnstile({ siteKey: '1x00000000000000000000AA', secretKey: SECRET_KEY, siteverifyUrl: url, ...options }), when: 'always', onFail },
  })

describe('turnstile()', () => {
  it('puts the widget on the page, verifies a token with the documented form fields, and refuses its replay', async () => {
    const r = room()
    const held = await r.visit()
    expect(held.outcome).toBe('queued')
    expect(held.body).toContain('class="cf-turnstile" data-sitekey="1x00000000000000000000AA" data-callback="waitingRoomChallengeSolved" data-appearance="interaction-only"')
    expect(held.body).toContain('https://challenges.cloudflare.com/turnstile/v0/api.js')
    const admitted = await r.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'token-a', 'cf-connecting-ip': '203.0.113.9' } })
    expect(admitted.outcome).toBe('admitted')
    const call = received.at(-1)!
    expect(call).toMatchObject({ method: 'POST', secret: SECRET_KEY, response: 'token-a', contentType: expect.stringContaining('application/x-www-form-urlencoded') })
    // Outside Workers (no request.cf) anyone can write CF-Connecting-IP: no remoteip rather than a forged one
    // (test/challenge-turnstile-checks.test.ts covers where remoteip comes from).
    expect(call.remoteip).toBeUndefined()
    expect(call.idempotency_key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/) // a UUID, as documented
    // siteverify refuses the same token again: held.
    const replay = await r.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'token-a' } })
    expect(replay.outcome).toBe('queued')
    expect(replay.response.headers.get('set-cookie')).toBeNull()
    expect(r.room.metrics.challenge.failed.refused).toBe(1)
    // The admitted user is not asked again.
    expect((await r.visit(admitted.cookie)).outcome).toBe('admitted')
  })

  it('refuses an unknown token and, when asked for one, a token of another action', async () => {
    const r = room({ action: 'queue' })
    expect((await r.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'forged' } })).outcome).toBe('queued')
    expect((await r.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'token-d' } })).outcome).toBe('queued')
    expect((await r.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'token-b' } })).outcome).toBe('admitted')
    expect(r.room.metrics.challenge.failed.refused).toBe(2)
  })

  it('a siteverify that does not answer in time is unavailable: held by default, let by with onError pass', async () => {
    delayMs = 300
    try {
      const strict = room({ timeoutMs: 50 })
      expect((await strict.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'token-c' } })).outcome).toBe('queued')
      expect(strict.room.metrics.challenge.failed.unavailable).toBe(1)
      const lenient = room({ timeoutMs: 50, onError: 'pass' })
      expect((await lenient.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'anything' } })).outcome).toBe('admitted')
      const unreachable = room({ siteverifyUrl: 'http://127.0.0.1:9/siteverify' })
      expect((await unreachable.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'token-c' } })).outcome).toBe('queued')
    } finally {
      delayMs = 0
    }
  })

  it("interactive mode always shows the widget; onFail 'log' admits a refused token", async () => {
    const r = roomHarness({
      roomId: 'ts-interactive',
      challenge: { provider: turnstile({ siteKey: 'site', secretKey: SECRET_KEY, siteverifyUrl: url }), mode: 'interactive', onFail: 'log', when: 'always' },
    })
    const visit = await r.visit(undefined, { headers: { [CHALLENGE_HEADER]: 'forged' } })
    expect(visit.outcome).toBe('admitted')
    expect(r.room.metrics.challenge.failed.refused).toBe(1)
    const page = roomHarness({ totalActiveUsers: 1, challenge: { provider: turnstile({ siteKey: 'site', secretKey: SECRET_KEY, siteverifyUrl: url }), mode: 'interactive' } })
    await page.visit()
    expect((await page.visit()).body).toContain('data-appearance="always"')
  })

  it('throws at build time naming the bad field', () => {
    expect(() => turnstile({ siteKey: '', secretKey: 's' })).toThrow(/siteKey: a non-empty string/)
    expect(() => turnstile({ siteKey: 'k', secretKey: '' })).toThrow(/secretKey: a non-empty string/)
    expect(() => turnstile({ siteKey: 'k', secretKey: 's', siteverifyUrl: 'ftp://x' })).toThrow(/siteverifyUrl: an http\(s\) URL/)
    expect(() => turnstile({ siteKey: 'k', secretKey: 's', timeoutMs: 0 })).toThrow(/timeoutMs: an integer from 1 to 60000/)
  })
})
