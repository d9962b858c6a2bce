/// <reference types="node" />
/**
 * The queue page in Chromium (issue 10, item 6): a user beyond the limit sees the page, the page refreshes
 * by itself and lets the user in once a slot frees, with no click; and JSON mode works from a page script.
 *
 * Time: the room runs on a fake clock, moved by the test, so sessions end without waiting; only the
 * browser's own refresh timer is real. With `refreshIntervalSeconds: 5` (the minimum) and the jitter at its
 * low end (`random: () => 0`), each real refresh takes 4 s; the file waits for four of them (about 16 s).
 * Screenshots: test-results/browser/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { artifact, launchChromium, MINUTE, sent, START, startRoom, waitUntil, type Hit, type RoomServer } from './support.ts'

const HEADING = 'You are now in line' // the default page's heading in English
const REFRESH = 4 // seconds: refreshIntervalSeconds 5, jitter at its low end

let browser: Browser
let context: BrowserContext | undefined
let server: RoomServer | undefined

beforeAll(async () => {
  browser = await launchChromium()
})
afterEach(async () => {
  await context?.close()
  await server?.close()
  context = undefined
  server = undefined
})
afterAll(async () => {
  await browser?.close()
})

/** The first user takes the room's only slot at 12:00, outside the browser. */
async function fillTheRoom(room: RoomServer, path = '/'): Promise<void> {
  const response = await fetch(room.url(path))
  await response.text()
  expect(room.hits.at(-1)).toMatchObject({ outcome: 'admitted', reason: 'slot' })
}

const documents = (room: RoomServer, path = '/'): Hit[] => room.hits.filter((hit) => hit.dest === 'document' && hit.path === path)

async function newPage(): Promise<Page> {
  context = await browser.newContext({ locale: 'en-US', viewport: { width: 800, height: 600 } })
  return context.newPage()
}

describe('the queue page in Chromium', () => {
  it('queues a user beyond the limit, refreshes by itself and lets them in once a slot frees, without a click', { timeout: 30_000 }, async () => {
    const room = (server = await startRoom({ totalActiveUsers: 1, newUsersPerMinute: 1, sessionDurationMinutes: 1, refreshIntervalSeconds: 5 }))
    await fillTheRoom(room)

    // 12:01: a second user arrives and gets the queue page.
    room.clock.now = START + MINUTE
    const page = await newPage()
    const response = await page.goto(room.url('/'))
    // Her next check-in is due 5 s later on the room's clock; set it now, before the browser's 4 s timer fires.
    room.clock.now += 5_000
    expect(response?.status()).toBe(200)
    expect(response?.headers()['refresh']).toBe(String(REFRESH))
    expect(response?.headers()['cache-control']).toBe('no-store')
    await page.getByRole('heading', { name: HEADING }).waitFor()
    expect(await page.title()).toBe('You are in line')
    expect(await page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe(String(REFRESH))
    expect(await page.getByRole('status').textContent()).toMatch(/about \d+ minutes?/)
    await page.screenshot({ path: artifact('queue-page.png'), fullPage: true })
    const [first] = documents(room)
    expect(first).toMatchObject({ outcome: 'queued', bucketId: (START + MINUTE) / MINUTE })
    expect(sent(first!)).toBe(false)

    // The browser's own timer brings the check-in — still no slot.
    await waitUntil(() => documents(room).length >= 2, 3 * REFRESH * 1000, 'the queue page to refresh by itself')
    // 12:02:01: the first user's session (1 minute after 12:00's minute) is over, for the next refresh.
    room.clock.now = START + 2 * MINUTE + 1_000
    const second = documents(room)[1]!
    expect(second.at - first!.at).toBeGreaterThanOrEqual((REFRESH - 1) * 1000) // the timer, not a reload of ours
    expect(sent(second)).toBe(true)
    expect(second).toMatchObject({ outcome: 'queued', ticketId: first!.ticketId, bucketId: first!.bucketId })
    expect(second.reason).not.toBe('too-early') // a counted check-in
    expect(second.refreshHeader).toBe(String(REFRESH)) // and the page keeps refreshing
    await page.getByRole('heading', { name: HEADING }).waitFor()
    await page.screenshot({ path: artifact('queue-page-refreshed.png'), fullPage: true })

    // The next refresh lets her in.
    await page.getByRole('heading', { name: 'Welcome to the shop' }).waitFor({ timeout: 3 * REFRESH * 1000 })
    const pages = documents(room)
    expect(pages).toHaveLength(3) // one navigation per refresh: the Refresh header and the meta tag do not double up
    const third = pages[2]!
    expect(third.at - second.at).toBeGreaterThanOrEqual((REFRESH - 1) * 1000)
    expect(sent(third)).toBe(true)
    expect(third).toMatchObject({ outcome: 'admitted', reason: 'slot', ticketId: first!.ticketId, bucketId: first!.bucketId })
    expect(third.refreshHeader).toBeNull()
    expect(await page.locator('#reason').textContent()).toBe('slot')
    expect(page.url()).toBe(room.url('/')) // the same address all along
    await page.screenshot({ path: artifact('admitted.png'), fullPage: true })
  })

  it('keeps refreshing through the Refresh header alone (a custom template without a meta refresh)', { timeout: 30_000 }, async () => {
    const template = '<!doctype html><html lang="en"><head><title>Custom queue</title></head><body><h1>Custom queue page</h1><p>Wait: {{waitTimeFormatted}}</p></body></html>'
    const room = (server = await startRoom({ totalActiveUsers: 1, newUsersPerMinute: 1, sessionDurationMinutes: 1, refreshIntervalSeconds: 5, template }))
    await fillTheRoom(room)
    room.clock.now = START + MINUTE
    const page = await newPage()
    await page.goto(room.url('/'))
    room.clock.now = START + 2 * MINUTE + 1_000 // the first user's session is over before the refresh
    await page.getByRole('heading', { name: 'Custom queue page' }).waitFor()
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0)
    await page.screenshot({ path: artifact('custom-template.png'), fullPage: true })

    await page.getByRole('heading', { name: 'Welcome to the shop' }).waitFor({ timeout: 3 * REFRESH * 1000 })
    const [first, second] = documents(room)
    expect(documents(room)).toHaveLength(2)
    expect(first).toMatchObject({ outcome: 'queued', refreshHeader: String(REFRESH) })
    expect(second!.at - first!.at).toBeGreaterThanOrEqual((REFRESH - 1) * 1000)
    expect(second).toMatchObject({ outcome: 'admitted', reason: 'slot', ticketId: first!.ticketId })
  })
})

/** A same-origin page (not covered by the room) whose script polls a covered JSON API as the room asks. */
const POLL_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stock</title></head>
<body style="font:1rem system-ui,sans-serif;padding:2rem"><h1>Stock</h1><p id="status">Checking…</p>
<script>
window.polls = []
async function poll() {
  const response = await fetch('/api/stock', { headers: { Accept: 'application/json' }, credentials: 'include' })
  const body = await response.json()
  const room = body.waitingRoom
  if (room && room.inWaitingRoom) {
    window.polls.push({ status: response.status, queued: true, refreshIntervalSeconds: room.refreshIntervalSeconds, waitTime: room.waitTime, waitTimeKnown: room.waitTimeKnown })
    document.getElementById('status').textContent = 'In line: about ' + room.waitTime + ' min; next check in ' + room.refreshIntervalSeconds + ' s'
    setTimeout(poll, room.refreshIntervalSeconds * 1000)
  } else {
    window.polls.push({ status: response.status, queued: false })
    window.result = body
    document.getElementById('status').textContent = 'In stock: ' + body.stock
  }
}
poll()
</script></body></html>`

describe('JSON mode from a page script', () => {
  it('polls with fetch (Accept: application/json, credentials: include) at refreshIntervalSeconds until admitted', { timeout: 30_000 }, async () => {
    const room = (server = await startRoom(
      {
        totalActiveUsers: 1,
        newUsersPerMinute: 1,
        sessionDurationMinutes: 1,
        refreshIntervalSeconds: 5,
        jsonResponseEnabled: true,
        bypass: { paths: ['/favicon.ico', '/stock.html'] },
      },
      (app) => {
        app.get('/stock.html', (c) => c.html(POLL_PAGE))
        app.get('/api/stock', (c) => c.json({ stock: 7, reason: c.get('waitingRoom').reason }))
      },
    ))
    await fillTheRoom(room, '/api/stock')
    room.clock.now = START + MINUTE
    const page = await newPage()
    await page.goto(room.url('/stock.html'))
    expect(room.hits.find((hit) => hit.path === '/stock.html')).toMatchObject({ outcome: 'bypassed' })

    await page.waitForFunction(() => (window as unknown as { polls: unknown[] }).polls.length >= 1)
    // The first user's session ends; the script's next poll (after refreshIntervalSeconds) gets the API's answer.
    room.clock.now = START + 2 * MINUTE + 1_000
    await page.screenshot({ path: artifact('json-poll-queued.png'), fullPage: true })
    const [queued] = await page.evaluate(() => (window as unknown as { polls: Record<string, unknown>[] }).polls)
    expect(queued).toEqual({ status: 200, queued: true, refreshIntervalSeconds: REFRESH, waitTime: expect.any(Number), waitTimeKnown: true })

    await page.waitForFunction(() => (window as unknown as { result?: unknown }).result !== undefined, undefined, { timeout: 3 * REFRESH * 1000 })
    const seen = await page.evaluate(() => {
      const w = window as unknown as { polls: unknown[]; result: unknown }
      return { polls: w.polls, result: w.result, cookie: document.cookie, status: document.getElementById('status')!.textContent }
    })
    expect(seen.polls).toEqual([expect.objectContaining({ queued: true }), { status: 200, queued: false }])
    expect(seen.result).toEqual({ stock: 7, reason: 'slot' })
    expect(seen.status).toBe('In stock: 7')
    expect(seen.cookie).not.toContain('__wroom') // the ticket is HttpOnly: scripts never see it, fetch still sends it
    await page.screenshot({ path: artifact('json-poll-admitted.png'), fullPage: true })

    const calls = room.hits.filter((hit) => hit.path === '/api/stock' && hit.dest === 'empty')
    expect(calls).toHaveLength(2)
    expect(calls[0]).toMatchObject({ outcome: 'queued', accept: 'application/json' })
    expect(sent(calls[0]!)).toBe(false)
    expect(calls[0]!.setCookie.some((line) => line.startsWith('__wroom='))).toBe(true)
    expect(sent(calls[1]!)).toBe(true) // credentials: 'include' carried the ticket
    expect(calls[1]).toMatchObject({ outcome: 'admitted', reason: 'slot', ticketId: calls[0]!.ticketId })
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual((REFRESH - 1) * 1000) // the script waited as told
  })
})
