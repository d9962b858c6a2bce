/**
 * The dashboard page as served (issue 18, item 3), without a browser: public at the admin root, self-contained
 * (no URL to another origin, no external script, style or font: it works air-gapped), a strict CSP whose nonce
 * is the script's and changes per response, a form field for every setting `PATCH /settings` takes, and a
 * script that parses. The browser half is test/browser/dashboard.test.ts.
 */
import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { waitingRoomAdmin } from '../src/admin/admin.ts'
import { settingsPatchSchema } from '../src/admission/settings.ts'
import { LANGUAGES } from '../src/page/messages.ts'
import { waitingRoom } from '../src/room/middleware.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

function app() {
  const room = waitingRoom({ secret: TEST_SECRET, clock: () => START, roomId: 'shop.1' })
  const a = new Hono()
  a.route('/ops', waitingRoomAdmin(room, { token: 'dashboard-page-token-0123456789' }))
  return a
}

describe('GET / of the admin API: the dashboard page', () => {
  it('is served without the token, never cached, framed by nobody, with a fresh nonce that is its script\'s', async () => {
    const a = app()
    const first = await a.request('/ops')
    const second = await a.request('/ops')
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toMatch(/^text\/html/)
    expect(first.headers.get('cache-control')).toBe('no-store')
    const csp = first.headers.get('content-security-policy')!
    expect(csp).toMatch(/default-src 'none'/)
    expect(csp).toMatch(/connect-src 'self'/)
    expect(csp).toMatch(/frame-ancestors 'none'/)
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!
    expect(nonce).not.toBe(/'nonce-([^']+)'/.exec(second.headers.get('content-security-policy')!)![1])
    const html = await first.text()
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)]
    expect(scripts).toHaveLength(1)
    expect(scripts[0]![1]).toBe(` nonce="${nonce}"`)
    expect(() => new Function(scripts[0]![2]!)).not.toThrow() // it parses
    expect(html).toContain('<title>Waiting room shop.1 · dashboard</title>')
  })

  it('is self-contained: nothing is loaded from anywhere (no src, href, @import or url())', async () => {
    const html = await (await app().request('/ops')).text()
    expect(html).not.toMatch(/\ssrc=|\shref=|@import|url\(|<link/i)
    expect(html).not.toMatch(/https?:\/\/(?!json-schema)/)
  })

  it('has a form field for every setting PATCH /settings takes, and every language to preview', async () => {
    const html = await (await app().request('/ops')).text()
    const keys = Object.keys((z.toJSONSchema(settingsPatchSchema, { io: 'input' }) as { properties: object }).properties)
    expect(keys.length).toBeGreaterThanOrEqual(8)
    for (const key of keys) {
      expect(html, key).toContain(`name="${key}"`)
      expect(html, key).toContain(`data-error-for="${key}"`)
    }
    expect(html).toMatch(/name="sessionDurationMinutes" data-type="integer" inputmode="numeric" min="1" max="30"/)
    expect(html).toMatch(/name="queueingMethod" data-type="string"><option value="">\(option default\)<\/option><option>fifo<\/option>/)
    expect(html).toMatch(/name="queueingStatusCode" data-type="number-enum">/)
    for (const language of LANGUAGES) expect(html).toContain(`<option>${language}</option>`)
  })

  it('keeps the token out of cookies: the script stores it in sessionStorage and sends it as a bearer header', async () => {
    const html = await (await app().request('/ops')).text()
    expect(html).toContain('sessionStorage.setItem(KEY, state.token)')
    expect(html).not.toMatch(/document\.cookie|localStorage/)
    expect(html).toContain("credentials: 'omit'")
  })
})
