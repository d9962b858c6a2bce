/// <reference types="node" />
/**
 * Proof of work in Chromium (issue 17): a user arriving at a full room gets the queue page with a challenge,
 * the page solves it by itself in a Web Worker (no click), sends the answer, waits in line and is let in —
 * never asked again. A cookieless client (fetch) that never answers stays in the infinite queue: never
 * admitted, never given a ticket, and the room's `estimatedQueuedUsers` does not move.
 *
 * Time: the room runs on a fake clock moved by the test; the browser's refresh timer and the solving are real
 * (difficulty 12: a few ms of hashing).
 */
import { Hono } from 'hono'
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { proofOfWork, waitingRoom, waitingRoomAdmin, type WaitingRoomEnv } from '../../src/index.ts'
import { artifact, hitLog, launchChromium, MINUTE, originPage, roomOptions, sent, serveApp, START, waitUntil, type Hit, type Served } from './support.ts'

const TOKEN = 'browser-admin-token-0123456789'

let browser: Browser
let context: BrowserContext | undefined
let served: Served | undefined

beforeAll(async () => {
  browser = await launchChromium()
})
afterEach(async () => {
  await context?.close()
  await served?.close()
  context = undefined
  served = undefined
})
afterAll(async () => {
  await browser?.close()
})

/** A full-able room with proof of work on, and its admin API (bypassed) for the status. */
async function challengeRoom() {
  const clock = { now: START }
  const { hits, middleware } = hitLog()
  const room = waitingRoom(
    roomOptions(clock, {
      roomId: `pow-browser-${process.pid}`,
      totalActiveUsers: 1,
      newUsersPerMinute: 1,
      sessionDurationMinutes: 1,
      refreshIntervalSeconds: 5,
      bypass: { paths: ['/favicon.ico', '/_admin/*'] },
      challenge: { provider: proofOfWork({ difficulty: 12 }) },
    }),
  )
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', middleware)
  app.use('*', room)
  app.route('/_admin', waitingRoomAdmin(room, { token: TOKEN }))
  app.get('*', (c) => c.html(originPage(c.get('waitingRoom').reason)))
  served = await serveApp(app)
  const server = served
  const queued = async (): Promise<number> => {
    const response = await fetch(server.url('/_admin/status'), { headers: { authorization: `Bearer ${TOKEN}` } })
    return ((await response.json()) as { estimatedQueuedUsers: number }).estimatedQueuedUsers
  }
  return { clock, hits, url: server.url, queued }
}

const ofPath = (hits: Hit[], path = '/') => hits.filter((hit) => hit.path === path && hit.method === 'GET')

describe('proof of work in Chromium', () => {
  it('the page solves the challenge by itself, the user waits in line and is let in; a client that never answers is never admitted nor counted', { timeout: 40_000 }, async () => {
    const room = await challengeRoom()
    // 12:00: the only place is taken, outside the browser (no challenge while a place is free).
    const first = await fetch(room.url('/'))
    expect(await first.text()).toContain('Welcome to the shop')
    expect(room.hits.at(-1)).toMatchObject({ outcome: 'admitted', reason: 'slot' })
    expect(await room.queued()).toBe(0)

    // 12:01: the browser arrives. Held with a challenge; it answers by itself.
    room.clock.now = START + MINUTE
    context = await browser.newContext({ locale: 'en-US', viewport: { width: 800, height: 600 } })
    const page = await context.newPage()
    const response = await page.goto(room.url('/'))
    expect(response?.status()).toBe(200)
    await page.getByRole('heading', { name: 'You are now in line' }).waitFor()
    const held = ofPath(room.hits)[1]!
    expect(held).toMatchObject({ dest: 'document', outcome: 'queued', reason: 'challenge', setCookie: [] })
    await page.screenshot({ path: artifact('challenge-held.png'), fullPage: true })

    // The answer comes from the page's script (fetch: Sec-Fetch-Dest empty), with no click, and gets the ticket.
    await waitUntil(() => ofPath(room.hits).some((hit) => hit.dest === 'empty'), 10_000, 'the page to send its answer')
    const answered = ofPath(room.hits).find((hit) => hit.dest === 'empty')!
    expect(answered).toMatchObject({ outcome: 'queued', reason: 'no-slot' })
    expect(answered.setCookie.some((cookie) => cookie.startsWith('__wroom='))).toBe(true)
    // Then the page reloads itself, with the ticket, and shows no challenge any more.
    await waitUntil(() => ofPath(room.hits).filter((hit) => hit.dest === 'document').length >= 2, 5_000, 'the page to reload')
    const reloaded = ofPath(room.hits).filter((hit) => hit.dest === 'document')[1]!
    expect(sent(reloaded)).toBe(true)
    expect(reloaded.reason).not.toBe('challenge')
    await page.getByRole('heading', { name: 'You are now in line' }).waitFor()
    expect(await page.locator('#wr-challenge').count()).toBe(0)
    const waiting = await room.queued()
    expect(waiting).toBe(1) // the answered user is in line

    // A cookieless client that never answers: 40 requests, none admitted, no ticket, the estimate unchanged.
    for (let i = 0; i < 40; i++) {
      const bot = await fetch(room.url('/'), { headers: { 'user-agent': 'scalper-bot/1.0' } })
      const body = await bot.text()
      expect(bot.status).toBe(200)
      expect(body).toContain('You are now in line')
      expect(body).not.toContain('Welcome to the shop')
      expect(bot.headers.get('set-cookie')).toBeNull()
      expect(room.hits.at(-1)).toMatchObject({ outcome: 'queued', reason: 'challenge' })
    }
    expect(await room.queued()).toBe(waiting)

    // 12:02:01: the first session is over. The browser's own refresh lets the answered user in.
    room.clock.now = START + 2 * MINUTE + 1_000
    await page.getByRole('heading', { name: 'Welcome to the shop' }).waitFor({ timeout: 15_000 })
    expect(await page.locator('#reason').textContent()).toBe('slot')
    expect(page.url()).toBe(room.url('/'))
    const admitted = room.hits.filter((hit) => hit.outcome === 'admitted' && hit.dest === 'document')
    expect(admitted).toHaveLength(1)
    expect(admitted[0]!.ticketId).toBe(answered.ticketId)
    await page.screenshot({ path: artifact('challenge-admitted.png'), fullPage: true })

    // The bot, with the place taken again (the session lasts through 12:03): still held, not counted.
    const queuedNow = await room.queued()
    for (let i = 0; i < 20; i++) {
      room.clock.now += 2_000
      const bot = await fetch(room.url('/'))
      expect(await bot.text()).not.toContain('Welcome to the shop')
      expect(room.hits.at(-1)).toMatchObject({ reason: 'challenge' })
    }
    expect(await room.queued()).toBe(queuedNow)
    // Every cookieless request after the first user's: held (Node's fetch sends no Sec-Fetch-Dest).
    const bots = ofPath(room.hits).filter((hit) => hit.dest === undefined).slice(1)
    expect(bots).toHaveLength(60)
    expect(bots.every((hit) => hit.reason === 'challenge' && hit.setCookie.length === 0)).toBe(true)
  })
})
