/// <reference types="node" />
/**
 * The room embedded in a cross-site iframe keeps its ticket (issue 10, item 6; seed 002): a partner's page
 * on http://127.0.0.1:<port> embeds the room served over HTTPS from https://localhost:<port> — another
 * site (another host, and another scheme) — and the iframe is reloaded. What the browser sent is read on
 * the server side: the Cookie header of every iframe request, and the room's decision.
 *
 * - `sameSite: 'none'` (and `'auto'`, which is None over HTTPS): the reload carries the ticket, so the user
 *   stays admitted, or keeps their place in line.
 * - `sameSite: 'lax'` (control): the ticket is never sent in the cross-site iframe; the user is new each time.
 *
 * Which browser: third-party cookies are a user setting. These cases run in a regular profile with Google
 * Chrome's default, third-party cookies allowed outside Incognito (see `launchDefaultUserProfile`). One more
 * case pins down what happens where they are blocked — Incognito, and this Chromium build's own default.
 *
 * HTTPS: a self-signed certificate made with openssl at test time (never written to the repository); the
 * browser context ignores certificate errors (`ignoreHTTPSErrors`), which does not change cookie rules.
 * Time: no real waiting — the room's clock is fake and the reloads are done by the page's script.
 */
import { Hono } from 'hono'
import type { Browser, BrowserContext, Cookie } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitingRoom, type CookieOptions, type WaitingRoomEnv } from '../../src/index.ts'
import {
  artifact,
  hitLog,
  launchChromium,
  launchDefaultUserProfile,
  MINUTE,
  originPage,
  roomOptions,
  selfSignedCertificate,
  sent,
  serveApp,
  START,
  waitUntil,
  type Hit,
  type Served,
} from './support.ts'

const SHOP_COOKIE = '__wroom_shop'
const LINE_COOKIE = '__wroom_line'

let tls: { key: Buffer; cert: Buffer }
let parent: Served
let defaultUser: { context: BrowserContext; close(): Promise<void> }
let browser: Browser

/** The partner's page: the room's two routes, each in an iframe. */
function partnerPage(shop: string, line: string): string {
  const frame = (id: string, src: string) =>
    `<iframe id="${id}" title="${id}" src="${src.replace(/"/g, '&quot;')}" width="460" height="520" style="border:1px solid #999"></iframe>`
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Partner</title></head>
<body style="font:1rem system-ui,sans-serif;margin:1rem"><h1>A partner's page</h1>
<p>This page (http://127.0.0.1) embeds the room (https://localhost).</p>${frame('shop', shop)} ${frame('line', line)}</body></html>`
}

beforeAll(async () => {
  tls = selfSignedCertificate()
  const app = new Hono()
  app.get('/embed', (c) => c.html(partnerPage(c.req.query('shop')!, c.req.query('line')!)))
  parent = await serveApp(app)
  defaultUser = await launchDefaultUserProfile({ ignoreHTTPSErrors: true })
  browser = await launchChromium()
}, 30_000)

afterAll(async () => {
  await defaultUser?.close()
  await browser?.close()
  await parent?.close()
})

interface Embedded {
  /** The first load and the reload of the admitting room's iframe. */
  shop: [Hit, Hit]
  /** The same for a room that queues everyone. */
  line: [Hit, Hit]
  /** The browser's cookie jar for the room's origin afterwards. */
  jar: Cookie[]
}

/**
 * Serves two rooms over HTTPS with `cookie` — `/shop` admits, `/line` queues everyone — has the partner's
 * page embed both, then (a minute later on the room's clock) reloads each iframe from inside it.
 */
async function embedAndReload(context: BrowserContext, cookie: CookieOptions, screenshot: string): Promise<Embedded> {
  const clock = { now: START }
  const { hits, middleware } = hitLog()
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', middleware)
  app.use('/shop/*', waitingRoom(roomOptions(clock, { roomId: 'shop', cookie: { ...cookie, suffix: 'shop' } })))
  // 30 s (27 s after jitter): the queue page does not refresh by itself during the test.
  app.use('/line/*', waitingRoom(roomOptions(clock, { roomId: 'line', queueAll: true, refreshIntervalSeconds: 30, cookie: { ...cookie, suffix: 'line' } })))
  app.get('*', (c) => c.html(originPage(c.get('waitingRoom').reason)))
  const room = await serveApp(app, tls)
  const page = await context.newPage()
  try {
    await context.clearCookies()
    await page.setViewportSize({ width: 1000, height: 680 })
    const shopUrl = room.url('/shop/', 'localhost')
    const lineUrl = room.url('/line/', 'localhost')
    await page.goto(parent.url(`/embed?shop=${encodeURIComponent(shopUrl)}&line=${encodeURIComponent(lineUrl)}`))
    await waitUntil(() => hits.filter((hit) => hit.dest === 'iframe').length >= 2, 10_000, 'both iframes to load')

    clock.now = START + MINUTE
    for (const path of ['/shop/', '/line/']) {
      const frame = page.frames().find((f) => f.url().startsWith(room.url(path, 'localhost')))
      if (!frame) throw new Error(`no iframe for ${path}`)
      const navigated = page.waitForEvent('framenavigated', { predicate: (f) => f === frame })
      await frame.evaluate(() => void setTimeout(() => location.reload(), 0)) // the iframe reloads itself
      await navigated
      await frame.waitForLoadState('load')
    }
    const of = (path: string) => hits.filter((hit) => hit.dest === 'iframe' && hit.path === path)
    await waitUntil(() => of('/shop/').length >= 2 && of('/line/').length >= 2, 10_000, 'both reloads to reach the room')
    await page.screenshot({ path: artifact(screenshot) })
    const shop = of('/shop/')
    const line = of('/line/')
    expect(shop).toHaveLength(2)
    expect(line).toHaveLength(2)
    return { shop: shop as [Hit, Hit], line: line as [Hit, Hit], jar: await context.cookies(room.url('/', 'localhost')) }
  } finally {
    await page.close()
    await room.close()
  }
}

/** The first loads: cross-site, no ticket yet; admitted in the shop, queued in the line. */
function expectFirstLoads({ shop, line }: Embedded, sameSite: 'None' | 'Lax'): void {
  expect(shop[0]).toMatchObject({ site: 'cross-site', outcome: 'admitted', reason: 'slot' })
  expect(line[0]).toMatchObject({ site: 'cross-site', outcome: 'queued', reason: 'queue-all', bucketId: START / MINUTE })
  expect(sent(shop[0], SHOP_COOKIE)).toBe(false)
  expect(sent(line[0], LINE_COOKIE)).toBe(false)
  for (const [hit, name] of [[shop[0], SHOP_COOKIE], [line[0], LINE_COOKIE]] as const) {
    const set = hit.setCookie.find((value) => value.startsWith(`${name}=`))
    expect(set).toBeDefined()
    expect(set).toContain(`SameSite=${sameSite}`)
    expect(set).toContain('; Secure')
    expect(set).toContain('; HttpOnly')
  }
}

/** The reload carried the ticket: still admitted, still in the same place in line. */
function expectTicketKept({ shop, line, jar }: Embedded): void {
  expect(sent(shop[1], SHOP_COOKIE)).toBe(true)
  expect(shop[1]).toMatchObject({ outcome: 'admitted', reason: 'session', ticketId: shop[0].ticketId })
  expect(sent(line[1], LINE_COOKIE)).toBe(true)
  expect(line[1]).toMatchObject({ outcome: 'queued', ticketId: line[0].ticketId, bucketId: line[0].bucketId })
  expect(jar.find((c) => c.name === SHOP_COOKIE)).toMatchObject({ sameSite: 'None', secure: true, httpOnly: true })
}

/** The reload came without a ticket: a new user each time — admitted anew, or at the back of the line. */
function expectTicketLost({ shop, line, jar }: Embedded): void {
  expect(sent(shop[1], SHOP_COOKIE)).toBe(false)
  expect(shop[1]).toMatchObject({ outcome: 'admitted', reason: 'slot' })
  expect(shop[1].ticketId).not.toBe(shop[0].ticketId)
  expect(sent(line[1], LINE_COOKIE)).toBe(false)
  expect(line[1]).toMatchObject({ outcome: 'queued', bucketId: line[0].bucketId! + 1 })
  expect(line[1].ticketId).not.toBe(line[0].ticketId)
  expect(jar.map((c) => c.name)).not.toContain(SHOP_COOKIE) // the browser did not even store it
}

describe('the room in a cross-site iframe, over HTTPS', () => {
  it("keeps the ticket with sameSite 'none' (secure 'always')", async () => {
    const embedded = await embedAndReload(defaultUser.context, { sameSite: 'none', secure: 'always' }, 'iframe-samesite-none.png')
    expectFirstLoads(embedded, 'None')
    expectTicketKept(embedded)
  })

  it("keeps the ticket with sameSite 'auto' (None over HTTPS)", async () => {
    const embedded = await embedAndReload(defaultUser.context, {}, 'iframe-samesite-auto.png')
    expectFirstLoads(embedded, 'None')
    expectTicketKept(embedded)
  })

  it("control: with sameSite 'lax' the ticket is never sent in the cross-site iframe", async () => {
    const embedded = await embedAndReload(defaultUser.context, { sameSite: 'lax', secure: 'always' }, 'iframe-samesite-lax.png')
    expectFirstLoads(embedded, 'Lax')
    expectTicketLost(embedded)
  })

  it('where third-party cookies are blocked (Incognito, this Chromium by default), an unpartitioned ticket is lost', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true })
    try {
      const embedded = await embedAndReload(context, { sameSite: 'none', secure: 'always' }, 'iframe-third-party-cookies-blocked.png')
      expectFirstLoads(embedded, 'None')
      expectTicketLost(embedded)
    } finally {
      await context.close()
    }
  })

  it("with cookie.partitioned the ticket survives even where third-party cookies are blocked (CHIPS)", async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true })
    try {
      const embedded = await embedAndReload(context, { sameSite: 'none', secure: 'always', partitioned: true }, 'iframe-partitioned.png')
      expectFirstLoads(embedded, 'None')
      expect(embedded.shop[0].setCookie.some((value) => value.startsWith(`${SHOP_COOKIE}=`) && /;\s*Partitioned/i.test(value))).toBe(true)
      expectTicketKept(embedded)
    } finally {
      await context.close()
    }
  })
})
