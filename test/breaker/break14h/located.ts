/** break14h support: a worker (public `waitingRoom()` middleware, fake clock) whose location is the request's `x-loc` header. */
import { Hono } from 'hono'
import { waitingRoom, type Coordinator, type WaitingRoomEnv, type WaitingRoomOptions } from '../../../src/index.ts'
import { SECRET } from '../break14d/slow.ts'

export function locatedWorker(coordinator: Coordinator, clock: { now: number }, roomId: string, options: WaitingRoomOptions) {
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', waitingRoom({ secret: SECRET, roomId, clock: () => clock.now, coordinator, location: (c) => c.req.header('x-loc') ?? 'none', ...options }))
  app.all('*', (c) => c.text(`${c.get('waitingRoom').reason} ${c.get('waitingRoom').ticketId ?? ''}`))
  return async (location: string, cookie?: string) => {
    const headers: Record<string, string> = { 'x-loc': location }
    if (cookie) headers.cookie = `__wroom=${cookie}`
    const response = await app.request('/', { headers })
    const [reason, ticketId] = (await response.text()).split(' ')
    const set = response.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    const fresh = set ? set.slice(8, set.indexOf(';')) || undefined : undefined
    return { admitted: reason === 'slot' || reason === 'session', reason, ticketId: ticketId ?? '', fresh }
  }
}

/** A seeded generator in [0, 1). */
export function rng(seed: number) {
  let x = seed * 2654435761 + 1
  return () => ((x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}

/** `count` location names with Pareto(α) weights, and a picker drawing one by weight. */
export function paretoLocations(random: () => number, count: number, alpha = 1.2) {
  const names = Array.from({ length: count }, (_, i) => `P${i}`)
  const weights = names.map(() => 1 / Math.pow(1 - random(), 1 / alpha))
  const total = weights.reduce((a, b) => a + b, 0)
  return {
    names,
    pick: () => {
      let r = random() * total
      for (let i = 0; i < count; i++) if ((r -= weights[i]!) <= 0) return names[i]!
      return names[count - 1]!
    },
  }
}
