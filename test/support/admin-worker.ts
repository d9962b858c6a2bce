/**
 * @module
 * One worker for admin API tests: a room with `waitingRoomAdmin` mounted before it, a fake clock, and helpers
 * to call the admin API and to send a user's request with extra headers.
 */
import { Hono } from 'hono'
import { waitingRoomAdmin } from '../../src/admin/admin.ts'
import { waitingRoom, type WaitingRoomEnv } from '../../src/room/middleware.ts'
import type { WaitingRoomOptions } from '../../src/room/options.ts'
import { settle, TEST_SECRET } from './room-harness.ts'

export const ADMIN_TOKEN = 'admin-token-0123456789abcdef'

export function adminWorker(clock: { now: number }, options: WaitingRoomOptions) {
  const middleware = waitingRoom({ secret: TEST_SECRET, clock: () => clock.now, random: () => 0.5, ...options })
  const app = new Hono<WaitingRoomEnv>()
  app.route('/_room', waitingRoomAdmin(middleware, { token: ADMIN_TOKEN }))
  app.use('*', middleware)
  app.all('*', (c) => c.text(`origin ${c.get('waitingRoom').reason}`))

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await app.request(`/_room${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    await settle()
    let json: any
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, text, json }
  }

  /** A user's request: the reason the origin saw, or `queued`. */
  async function reasonFor(path = '/', init: RequestInit = {}, env?: unknown): Promise<string> {
    const response = await app.request(path, init, env as never)
    const body = await response.text()
    await settle()
    return body.startsWith('origin ') ? body.slice('origin '.length) : 'queued'
  }

  return { app, room: middleware.room, call, reasonFor }
}
