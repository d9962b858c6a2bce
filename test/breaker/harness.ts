/** Black-box probes from a breaker run (issue #14): each once found a hole; now each guards the fix. */
/** Black-box harness: only the public API (src/index.ts, adapters/memory). */
import { Hono } from 'hono'
import { waitingRoom, waitingRoomAdmin, type Coordinator, type WaitingRoomEnv, type WaitingRoomOptions } from '../../src/index.ts'
import { memoryCoordinator } from '../../adapters/memory/index.ts'
export { memoryCoordinator, waitingRoom, waitingRoomAdmin }
export type { Coordinator }

export const START = Date.UTC(2026, 10, 30, 12, 0, 0)
export const MINUTE = 60_000
export const SECRET = 'breaker-secret-0123456789-abcdefghijklmnop'
export const settle = () => new Promise((r) => setImmediate(r))

export interface Res { status: number; admitted: boolean; reason: string | null; cookie: string | undefined; body: string; res: Response }

/** One worker (one waitingRoom instance) with an origin that echoes the decision and obeys x-command. */
export function worker(coordinator: Coordinator, clock: { now: number }, options: WaitingRoomOptions = {}) {
  const app = new Hono<WaitingRoomEnv>()
  const room = waitingRoom({ secret: SECRET, clock: () => clock.now, coordinator, totalActiveUsers: 3, newUsersPerMinute: 100, ...options })
  app.route('/_admin', waitingRoomAdmin(room, { token: 'admin-token-0123456789abcdefghijkl' }))
  app.use('*', room)
  app.all('*', (c) => {
    const command = c.req.header('x-command')
    if (command) c.header('Waiting-Room-Command', command)
    c.header('x-origin', c.get('waitingRoom').reason)
    return c.text('origin')
  })
  const request = async (cookie?: string, init: { path?: string; method?: string; headers?: Record<string, string>; noSettle?: boolean } = {}): Promise<Res> => {
    const headers: Record<string, string> = { ...init.headers }
    if (cookie) headers.cookie = `__wroom=${cookie}`
    const res = await app.request(init.path ?? '/', { method: init.method ?? 'GET', headers })
    const body = await res.text()
    if (!init.noSettle) await settle()
    const set = res.headers.get('set-cookie')
    const fresh = set?.startsWith('__wroom=') ? set.slice(8, set.indexOf(';')) : undefined
    const reason = res.headers.get('x-origin')
    return { status: res.status, admitted: reason !== null, reason, cookie: fresh === '' ? undefined : (fresh ?? cookie), body, res }
  }
  const status = async () => {
    const res = await app.request('/_admin/status', { headers: { authorization: 'Bearer admin-token-0123456789abcdefghijkl' } })
    return (await res.json()) as any
  }
  return { app, room, request, status }
}

/** A coordinator whose backing store can be swapped for an empty one. */
export { losableMemory as losable } from '../support/losable.ts'
