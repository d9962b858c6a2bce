/**
 * "Applied by every worker within one settings refresh": a worker idle past the refresh interval judges its
 * first request on the rules and settings stored now, not on the copy it had before going idle — and a storage
 * that does not answer delays that request by at most the timeout (the last known rules then apply).
 */
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { describe, expect, it } from 'vitest'
import { waitingRoom, waitingRoomAdmin, type WaitingRoomEnv } from '../src/index.ts'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import type { SettingsStorage } from '../src/admission/settings.ts'

const TOKEN = 'idle-refresh-token-0123456789abcdef'
const START = Date.UTC(2026, 10, 30, 12, 0, 0)
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }

function worker(storage: SettingsStorage, roomId: string, clock: { now: number }, coordinator = memoryCoordinator(), coordinatorTimeoutMs = 1000) {
  const room = waitingRoom({ secret: 'idle-refresh-secret-0123456789-abcdefgh', clock: () => clock.now, coordinator, storage, roomId, totalActiveUsers: 1, newUsersPerMinute: 1, coordinatorTimeoutMs })
  const app = new Hono<WaitingRoomEnv>()
  app.route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
  app.use('/*', room)
  app.all('*', (c) => c.text('origin'))
  return app
}
const text = async (res: Response | Promise<Response>) => (await res).text()

describe('a worker back from idle', () => {
  for (const idleMs of [5_000, 6_000, 60_000, 3_600_000]) {
    it(`applies a rule and a settings change made elsewhere on its first request after ${idleMs} ms idle`, async () => {
      const storage = createStorage()
      const roomId = `idle-${idleMs}-${Math.random()}`
      const clock = { now: START }
      const coordinator = memoryCoordinator()
      const a = worker(storage, roomId, clock, coordinator)
      const b = worker(storage, roomId, clock, coordinator)
      expect(await text(b.request('/'))).toBe('origin') // b loads (no rules) and admits the one place
      expect(await text(b.request('/free'))).not.toBe('origin') // room full: queued
      clock.now += 1000
      expect((await a.request('/_room/rules', { method: 'POST', headers: auth, body: JSON.stringify({ id: 'free', when: { path: { startsWith: '/free' } } }) })).status).toBe(201)
      clock.now += idleMs
      expect(await text(b.request('/free'))).toBe('origin')
      // the same for settings: suspended on a, in force on b's next request after a refresh
      expect((await a.request('/_room/settings', { method: 'PATCH', headers: auth, body: '{"suspended":true}' })).status).toBe(200)
      clock.now += 5_000
      const res = await b.request('/x')
      expect(res.headers.get('set-cookie') ?? '').not.toMatch(/__wroom=/) // suspended: no ticket issued
      expect(await res.text()).toBe('origin')
    })
  }

  it('a storage that hangs delays the first request by at most the timeout; the last known rules apply', async () => {
    let hang = false
    const inner = createStorage()
    const storage: SettingsStorage = {
      getItem: (key) => (hang ? new Promise(() => {}) : inner.getItem(key)),
      setItem: (key, value) => inner.setItem(key, value as never),
    }
    const clock = { now: START }
    const b = worker(storage, `hang-${Math.random()}`, clock, memoryCoordinator(), 50)
    expect(await text(b.request('/'))).toBe('origin')
    hang = true
    clock.now += 10_000
    const t0 = performance.now()
    const res = await b.request('/next')
    await res.text()
    expect(res.status).toBeLessThan(500)
    expect(performance.now() - t0).toBeLessThan(600)
  })
})
