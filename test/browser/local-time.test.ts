/// <reference types="node" />
/**
 * Times on the queue page in the visitor's own time zone and clock style (issue 19, item 8): the server
 * writes `lastUpdated` in UTC, and the page's inline script rewrites it in the browser with
 * `Intl.DateTimeFormat` — the zone and the 12/24-hour clock of the browser, the words of the page's
 * language. Without JavaScript, the server's text stays. Chromium contexts with other time zones and
 * locales (playwright-core's `newContext({ timezoneId, locale })`) stand in for visitors elsewhere.
 */
import type { Browser, BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { artifact, launchChromium, START, startRoom, type RoomServer } from './support.ts'

let browser: Browser
let room: RoomServer
const contexts: BrowserContext[] = []
/** The queued users' check-in: 12:00:05 UTC. */
const QUEUED_AT = new Date(START + 5_000)

beforeAll(async () => {
  browser = await launchChromium()
  room = await startRoom({ totalActiveUsers: 1, newUsersPerMinute: 1, refreshIntervalSeconds: 30 })
  await (await fetch(room.url('/'))).text() // the only slot
  room.clock.now = QUEUED_AT.getTime()
}, 30_000)
afterAll(async () => {
  for (const context of contexts) await context.close()
  await browser?.close()
  await room?.close()
})

/** Spaces as one kind: ICU puts a narrow no-break space before "PM", and versions differ in where. */
const spaces = (text: string) => text.replace(/[\s\u202f]+/gu, ' ').trim()

/** What the page's script should write: the page's language, the visitor's zone and clock. */
function expected(pageLang: string, locale: string, timeZone: string): string {
  const hourCycle = new Intl.DateTimeFormat(locale, { hour: 'numeric' }).resolvedOptions().hourCycle
  return new Intl.DateTimeFormat(pageLang, { timeStyle: 'medium', hourCycle, timeZone }).format(QUEUED_AT)
}

async function visit(options: { locale: string; timezoneId: string; javaScriptEnabled?: boolean }, screenshot?: string) {
  const context = await browser.newContext({ ...options, viewport: { width: 800, height: 600 } })
  contexts.push(context)
  const page = await context.newPage()
  const response = await page.goto(room.url('/'))
  const served = await response!.text()
  const time = page.locator('time')
  if (screenshot) await page.screenshot({ path: artifact(screenshot), fullPage: true })
  return {
    lang: await page.locator('html').getAttribute('lang'),
    datetime: await time.getAttribute('datetime'),
    text: spaces((await time.textContent()) ?? ''),
    served,
  }
}

describe('times on the queue page', () => {
  it('are rewritten in the visitor’s time zone and clock style, in the page’s language', { timeout: 30_000 }, async () => {
    const tokyo = await visit({ locale: 'en-US', timezoneId: 'Asia/Tokyo' })
    expect(tokyo.lang).toBe('en')
    expect(tokyo.datetime).toBe(QUEUED_AT.toISOString())
    expect(tokyo.text).toBe('9:00:05 PM') // 12:00:05 UTC is 21:00:05 in Tokyo, on a 12-hour clock
    expect(tokyo.served).toMatch(/<time datetime="2026-11-30T12:00:05.000Z">12:00:05\s?PM UTC<\/time>/u)

    // The same language, another clock style: the British visitor reads 24 hours.
    const london = await visit({ locale: 'en-GB', timezoneId: 'Asia/Tokyo' })
    expect(london.lang).toBe('en')
    expect(london.text).toBe('21:00:05')

    const newYork = await visit({ locale: 'de-DE', timezoneId: 'America/New_York' })
    expect(newYork.lang).toBe('de')
    expect(newYork.text).toBe('07:00:05')

    // One of Cloudflare's added languages, right to left and with its own digits.
    const tehran = await visit({ locale: 'fa-IR', timezoneId: 'Asia/Tehran' }, 'queue-page-fa.png')
    expect(tehran.lang).toBe('fa')
    expect(tehran.text).toBe(spaces(expected('fa', 'fa-IR', 'Asia/Tehran')))
    expect(tehran.text).toMatch(/^[۰-۹]{2}:[۰-۹]{2}:[۰-۹]{2}$/u) // 15:30:05 in Persian digits
  })

  it('keep the server’s UTC text without JavaScript', { timeout: 30_000 }, async () => {
    const noScript = await visit({ locale: 'en-US', timezoneId: 'Asia/Tokyo', javaScriptEnabled: false })
    expect(noScript.lang).toBe('en')
    expect(noScript.text).toBe('12:00:05 PM UTC')
  })
})
