/**
 * @module
 * A room behind a tiny Hono app, with a fake clock and cookie helpers, for tests that drive the
 * middleware through `app.request()` (no server).
 */
import { Hono } from 'hono'
import { waitingRoom, type WaitingRoomEnv, type WaitingRoomOptions } from '../../src/index.ts'
import { memoryCoordinator } from '../../adapters/memory/index.ts'
import type { Coordinator } from '../../src/coordination/coordinator.ts'
import { cookieNameOf } from '../../src/room/route-options.ts'

/** 2026-11-30 12:00:00 UTC, the start of a minute. */
export const START = Date.UTC(2026, 10, 30, 12, 0, 0)
export const TEST_SECRET = 'test-secret-0123456789-abcdefghijklmnop'

export interface Visit {
  status: number
  /** `admitted` when the origin answered, `queued` for the queue page. */
  outcome: 'admitted' | 'queued' | 'other'
  /** The ticket cookie to send next time (the new one if set, else the one sent). */
  cookie: string | undefined
  response: Response
  body: string
}

/** Background reports to an in-process coordinator settle within one macrotask turn. */
export const settle = () => new Promise((resolve) => (globalThis.setImmediate ?? setTimeout)(resolve))

/** Counts coordinator calls by method. */
export function countingCoordinator(inner: Coordinator): Coordinator & { calls: Record<string, number> } {
  const calls: Record<string, number> = { increment: 0, sync: 0 }
  return {
    name: inner.name,
    preferredSyncIntervalMs: inner.preferredSyncIntervalMs,
    calls,
    increment(request) {
      calls.increment!++
      return inner.increment(request)
    },
    sync(report) {
      calls.sync!++
      return inner.sync(report)
    },
    // History passes through uncounted (the analytics routes read it).
    ...(inner.recordHistory && { recordHistory: inner.recordHistory.bind(inner) }),
    ...(inner.readHistory && { readHistory: inner.readHistory.bind(inner) }),
  }
}

export function roomHarness(options: WaitingRoomOptions = {}) {
  const clock = { now: START }
  const coordinator = countingCoordinator((options.coordinator as Coordinator | undefined) ?? memoryCoordinator())
  const app = new Hono<WaitingRoomEnv>()
  const middleware = waitingRoom({ secret: TEST_SECRET, clock: () => clock.now, ...options, coordinator })
  app.use('*', middleware)
  app.all('*', (c) => {
    c.header('x-origin', c.get('waitingRoom').reason)
    // Lets a test make the origin answer with a waiting-room command.
    const command = c.req.header('x-command')
    if (command) c.header('Waiting-Room-Command', command)
    return c.text(`origin ${c.get('waitingRoom').reason}`)
  })
  const cookieName = cookieNameOf(options)

  async function visit(cookie?: string, init: { path?: string; method?: string; headers?: Record<string, string> } = {}): Promise<Visit> {
    const headers: Record<string, string> = { ...init.headers }
    if (cookie) headers.cookie = `${cookieName}=${cookie}`
    const response = await app.request(init.path ?? '/', { headers, method: init.method ?? 'GET' })
    const body = await response.text()
    await settle()
    await middleware.room.flush().catch(() => {}) // a networked coordinator answers later than one macrotask turn
    const set = response.headers.get('set-cookie')
    const fresh = set?.startsWith(`${cookieName}=`) ? set.slice(cookieName.length + 1, set.indexOf(';')) : undefined
    const origin = response.headers.get('x-origin')
    const outcome = origin === 'session' || origin === 'slot' || origin === 'passthrough' || origin === 'fail-open' ? 'admitted' : response.headers.has('refresh') || body.includes('<!doctype html>') ? 'queued' : 'other'
    return { status: response.status, outcome, cookie: fresh ?? cookie, response, body }
  }

  return {
    app,
    room: middleware.room,
    clock,
    coordinator,
    visit,
    advance(ms: number) {
      clock.now += ms
    },
  }
}
