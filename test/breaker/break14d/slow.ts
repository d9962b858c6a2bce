/**
 * break14d support: an in-process fleet of workers (public `waitingRoom()` middleware) over one coordinator whose
 * calls are SLOW (never failing): every sync / grant answers `delayMs` real ms late. Fake clock for minutes.
 */
import { Hono } from 'hono'
import { waitingRoom, type Coordinator, type WaitingRoomEnv, type WaitingRoomOptions } from '../../../src/index.ts'

export const MINUTE = 60_000
export const SECRET = 'break14d-secret-0123456789-abcdefghijklmn'
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export interface Slowness { syncMs: number; grantMs: number }

export function slowCoordinator(inner: Coordinator, slow: Slowness): Coordinator {
  return {
    name: 'slow',
    increment: async (r) => { if (slow.grantMs) await sleep(slow.grantMs); return inner.increment(r) },
    takeSlot: async (r) => { if (slow.grantMs) await sleep(slow.grantMs); return inner.takeSlot!(r) },
    sync: async (r) => { if (slow.syncMs) await sleep(slow.syncMs); return inner.sync(r) },
  }
}

export function worker(coordinator: Coordinator, clock: { now: number }, roomId: string, options: WaitingRoomOptions) {
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', waitingRoom({ secret: SECRET, roomId, clock: () => clock.now, coordinator, ...options }))
  app.all('*', (c) => c.text(`${c.get('waitingRoom').reason} ${c.get('waitingRoom').ticketId ?? ''}`))
  return async (cookie: string | undefined) => {
    const response = await app.request('/', { headers: cookie ? { cookie: `__wroom=${cookie}` } : {} })
    const [reason, ticketId] = (await response.text()).split(' ')
    const set = response.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    const fresh = set ? set.slice(8, set.indexOf(';')) || undefined : undefined
    return { admitted: reason === 'slot' || reason === 'session', reason, ticketId: ticketId ?? '', fresh }
  }
}
