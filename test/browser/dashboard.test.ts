/// <reference types="node" />
/**
 * The operator's dashboard in Chromium (issue 18): signing in, the charts drawn with the numbers the API
 * returns (read back from the SVG and compared with `GET /analytics`, position included), a setting changed
 * in the form reaching `/status`, zod's error shown next to its field, suspend and resume in one click, the
 * queue page preview per language, light and dark, a phone's width, and a room whose coordinator keeps no history.
 *
 * The room is mounted BEFORE the admin API (`app.use('/*', room)` then `app.route('/_room', admin)`) and
 * is full: the dashboard must get through its own room. Fake clock for the room; traffic made from Node.
 * Screenshots: test-results/browser/dashboard-*.png (dashboard-light.png and dashboard-dark.png are copied to
 * docs/). Full-page screenshots leave the sandboxed preview frame blank; dashboard-preview.png shows it.
 */
import { Hono } from 'hono'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../../adapters/memory/index.ts'
import { waitingRoomAdmin } from '../../src/admin/admin.ts'
import type { Coordinator } from '../../src/coordination/coordinator.ts'
import { waitingRoom, type WaitingRoomEnv } from '../../src/room/middleware.ts'
import { artifact, launchChromium, MINUTE, originPage, roomOptions, serveApp, START, type Served } from './support.ts'

const TOKEN = 'dashboard-token-0123456789abcdef'
const auth = { authorization: `Bearer ${TOKEN}` }

let browser: Browser
let server: Served
const clock = { now: START }

/** A few minutes of traffic: new users every minute, queued ones checking in until a slot frees. */
async function traffic(served: Served): Promise<void> {
  const queued: string[] = []
  const visit = async (cookie?: string) => {
    const response = await fetch(served.url('/'), { headers: cookie ? { cookie } : {} })
    await response.text()
    const set = response.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    return { admitted: response.headers.get('refresh') === null, cookie: set ? set.split(';')[0]! : cookie }
  }
  for (let minute = 0; minute < 6; minute++) {
    clock.now = START + minute * MINUTE
    for (let i = 0; i < 4 - (minute % 2); i++) {
      const { admitted, cookie } = await visit()
      if (!admitted && cookie) queued.push(cookie)
    }
    clock.now += 30_000 // check-ins half a minute later
    for (const cookie of queued.splice(0)) {
      const result = await visit(cookie)
      if (!result.admitted && result.cookie) queued.push(result.cookie)
    }
    await new Promise((resolve) => setTimeout(resolve, 20)) // the room's background reports
  }
  clock.now = START + 6 * MINUTE + 10_000
}

async function api(path: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(server.url(`/_room${path}`), { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } })
  expect(response.ok, `${path}: ${response.status}`).toBe(true)
  return response.json()
}

beforeAll(async () => {
  browser = await launchChromium()
  const room = waitingRoom(roomOptions(clock, { totalActiveUsers: 3, newUsersPerMinute: 2, sessionDurationMinutes: 1, refreshIntervalSeconds: 5 }))
  const app = new Hono<WaitingRoomEnv>()
  app.use('/*', room) // the room first: the admin must get through it by itself
  app.route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
  app.get('*', (c) => c.html(originPage(c.get('waitingRoom').reason)))
  server = await serveApp(app)
  await traffic(server)
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await server?.close()
})

async function signedIn(context: BrowserContext): Promise<Page> {
  const page = await context.newPage()
  await page.goto(server.url('/_room'))
  await page.getByLabel('Admin token').fill('wrong-token-0123456789abcdef')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect.poll(() => page.locator('#login-error').textContent()).toContain('refused')
  await page.getByLabel('Admin token').fill(TOKEN)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('#chart-active svg').waitFor()
  // The token lives in this tab's sessionStorage, never in a cookie.
  expect(await page.evaluate(() => sessionStorage.getItem('hono-waiting-room.admin-token'))).toBe(TOKEN)
  expect(await context.cookies()).toEqual([])
  return page
}

interface Drawn { v: number; t: number; cx: number; cy: number }

async function drawn(page: Page, chart: string, series: string): Promise<{ points: Drawn[]; max: number; plot: number[] }> {
  return page.locator(`${chart} svg`).evaluate((svg, series) => {
    const points = [...svg.querySelectorAll(`circle[data-series="${series}"]`)].map((c) => ({
      v: Number(c.getAttribute('data-v')), t: Number(c.getAttribute('data-t')), cx: Number(c.getAttribute('cx')), cy: Number(c.getAttribute('cy')),
    }))
    return { points, max: Number(svg.getAttribute('data-max')), plot: svg.getAttribute('data-plot')!.split(',').map(Number) }
  }, series)
}

describe('the dashboard in Chromium', () => {
  it('signs in, and draws the numbers /analytics returns', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, colorScheme: 'light' })
    const page = await signedIn(context)
    const analytics = await api('/analytics?step=1')
    const checks: [string, string, (p: any) => number | null][] = [
      ['#chart-active', 'activeUsers', (p) => p.activeUsers],
      ['#chart-active', 'limit', (p) => p.limit],
      ['#chart-queue', 'waitingUsers', (p) => p.waitingUsers],
      ['#chart-admissions', 'admissions', (p) => p.admissions],
      ['#chart-admissions', 'newUsersPerMinute', (p) => p.newUsersPerMinute],
      ['#chart-wait', 'waitP50', (p) => p.wait.p50],
      ['#chart-wait', 'waitP90', (p) => p.wait.p90],
    ]
    for (const [chart, series, pick] of checks) {
      const expected = analytics.points.filter((p: any) => typeof pick(p) === 'number').map((p: any) => ({ t: Date.parse(p.time), v: pick(p) }))
      expect(expected.some((e: { v: number }) => e.v > 0), `${series} has data to draw`).toBe(true)
      await expect.poll(async () => (await drawn(page, chart, series)).points.map(({ t, v }) => ({ t, v })), { timeout: 15_000 }).toEqual(expected)
      // Drawn where the axis says: y from the value and the chart's scale.
      const { points, max, plot } = await drawn(page, chart, series)
      const [, top, , height] = plot as [number, number, number, number]
      for (const point of points) expect(point.cy).toBeCloseTo(top + height - (point.v / max) * height, 3)
    }
    expect(analytics.totals.admissions).toBeGreaterThan(0)
    expect(await page.locator('#active').textContent()).toBe(String((await api('/status')).estimatedTotalActiveUsers))

    // Another range: the page asks for it (ending at the server's clock) and redraws.
    const polls = Number(await page.locator('#updated').getAttribute('data-polls'))
    await page.locator('#range').selectOption('15')
    await expect.poll(async () => Number(await page.locator('#updated').getAttribute('data-polls')), { timeout: 15_000 }).toBeGreaterThan(polls)
    const to = Date.parse(analytics.to)
    const quarter = await api(`/analytics?step=1&from=${to - 15 * MINUTE}`)
    expect(quarter.points).toHaveLength(15)
    const active = quarter.points.filter((p: any) => p.activeUsers !== null).map((p: any) => ({ t: Date.parse(p.time), v: p.activeUsers }))
    await expect.poll(async () => (await drawn(page, '#chart-active', 'activeUsers')).points.map(({ t, v }) => ({ t, v }))).toEqual(active)
    await page.screenshot({ path: artifact('dashboard-light.png') }) // the top: status and charts (docs/)
    await page.screenshot({ path: artifact('dashboard-light-full.png'), fullPage: true })
    await context.close()
  })

  it('saves a setting from the form into /status, shows zod errors next to the field, suspends and resumes', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } })
    const page = await signedIn(context)
    await expect.poll(async () => (await api('/status')).status).toBe('queueing')

    await page.locator('#f-sessionDurationMinutes').fill('99')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await expect.poll(() => page.locator('[data-error-for="sessionDurationMinutes"]').textContent()).toMatch(/30/)
    expect((await api('/settings')).overrides.sessionDurationMinutes).toBeUndefined()

    await page.locator('#f-sessionDurationMinutes').fill('')
    await page.locator('#f-queueingMethod').selectOption('passthrough')
    await page.locator('#f-totalActiveUsers').fill('42')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await expect.poll(() => page.locator('#settings-result').textContent()).toBe('saved')
    expect(await page.locator('[data-error-for="sessionDurationMinutes"]').textContent()).toBe('')
    expect((await api('/status')).status).toBe('not_queueing')
    expect((await api('/settings')).settings).toMatchObject({ queueingMethod: 'passthrough', totalActiveUsers: 42 })

    await page.getByRole('button', { name: 'Suspend' }).click()
    await expect.poll(async () => (await api('/status')).status).toBe('suspended')
    await page.getByRole('button', { name: 'Resume' }).waitFor()
    await page.getByRole('button', { name: 'Resume' }).click()
    await expect.poll(async () => (await api('/status')).status).toBe('not_queueing')
    await page.getByRole('button', { name: 'Suspend' }).waitFor()
    await page.locator('#f-queueingMethod').selectOption('')
    await page.locator('#f-totalActiveUsers').fill('')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await expect.poll(async () => (await api('/settings')).overrides).toEqual({ suspended: false })
    await context.close()
  })

  it('previews the queue page in each language, lists events with their reports, in dark mode and on a phone', { timeout: 60_000 }, async () => {
    await api('/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'launch', name: 'Launch', eventStartTime: START + MINUTE, eventEndTime: START + 4 * MINUTE }),
    })
    const report = await api('/events/launch/report')
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true })
    const page = await signedIn(context)
    const row = page.locator('#events tr[data-event-id="launch"]')
    await row.waitFor()
    const cells = await row.locator('td').allTextContents()
    expect(cells[0]).toBe('Launch')
    expect(cells.slice(2)).toEqual([report.peakQueue, report.maxWaitSeconds, report.admitted, report.timeToDrainSeconds].map((v) => (v == null ? '–' : String(v))))

    for (const [language, heading] of [['de', 'Sie sind jetzt in der Warteschlange'], ['en', 'You are now in line']]) {
      await page.locator('#preview-lang').selectOption(language!)
      await expect.poll(() => page.frameLocator('#preview').locator('html').getAttribute('lang')).toBe(language)
      expect(await page.frameLocator('#preview').locator('body').textContent()).toContain(heading)
      expect(await page.frameLocator('#preview').locator('meta[http-equiv="refresh"]').count()).toBe(0) // a refresh would blank the frame
    }
    expect(await page.locator('#preview-lang option').count()).toBeGreaterThanOrEqual(19)
    // Readable on a phone: nothing wider than the screen, dark colours from prefers-color-scheme.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(15, 18, 22)')
    await page.locator('#preview').screenshot({ path: artifact('dashboard-preview.png') })
    await page.screenshot({ path: artifact('dashboard-dark-phone.png'), fullPage: true })
    await page.setViewportSize({ width: 1200, height: 900 })
    await page.locator('#range').selectOption('15')
    await page.locator('#preview-lang').selectOption('de')
    await page.waitForTimeout(300) // the redraw after the change (no assertion rides on it: only the screenshot)
    await page.screenshot({ path: artifact('dashboard-dark-bottom.png') }) // events and the preview, scrolled to by the select
    await page.evaluate(() => window.scrollTo(0, 0))
    await page.screenshot({ path: artifact('dashboard-dark.png') })
    await page.screenshot({ path: artifact('dashboard-dark-full.png'), fullPage: true })
    await context.close()
  })

  it('charts what the tab sees of /status when the coordinator keeps no history', { timeout: 60_000 }, async () => {
    const memory = memoryCoordinator()
    const coordinator: Coordinator = { name: 'no-history', increment: (r) => memory.increment(r), takeSlot: (r) => memory.takeSlot!(r), sync: (r) => memory.sync(r) }
    const room = waitingRoom(roomOptions(clock, { totalActiveUsers: 5, coordinator }))
    const app = new Hono<WaitingRoomEnv>()
    app.route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
    app.use('/*', room)
    app.get('*', (c) => c.html(originPage(c.get('waitingRoom').reason)))
    const served = await serveApp(app)
    try {
      for (let i = 0; i < 3; i++) await (await fetch(served.url('/'))).text()
      await room.room.flush() // the room's report, and the state it brings back (no timing to wait on)
      const context = await browser.newContext()
      const page = await context.newPage()
      await page.goto(served.url('/_room'))
      await page.getByLabel('Admin token').fill(TOKEN)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await expect.poll(() => page.locator('#history-note').textContent()).toMatch(/keeps no history/)
      const status = await (await fetch(served.url('/_room/status'), { headers: auth })).json()
      expect(status.estimatedTotalActiveUsers).toBe(3)
      await expect.poll(async () => (await drawn(page, '#chart-active', 'activeUsers')).points.map((p) => p.v)).toEqual([3])
      await context.close()
    } finally {
      await served.close()
    }
  })
})
