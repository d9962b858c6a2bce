/**
 * @module
 * The example's app as the tests run it in workerd: rooms on their own hostnames (`drain.test` and
 * `calls.test` with small limits, `bench.test` that admits everyone, `bare.test` with no middleware at
 * all), a fake clock set through `/__test/clock?ms=`, and the Durable Object classes wrapped to count
 * the calls they receive. The bindings are the example's wrangler.jsonc.
 */
import { objectTestRoute } from '../../../adapters/cloudflare/test/counting-objects.ts'
import { createApp, type Bindings } from '../src/app.ts'

export { CountingCounter as WaitingRoomCounter, CountingGlobal as WaitingRoomGlobal } from '../../../adapters/cloudflare/test/counting-objects.ts'

let now = 0
const clock = (): number => now

const rooms: Record<string, ReturnType<typeof createApp>> = {
  // Four users at once, sessions of one minute: queues at the fifth user and drains as sessions end.
  drain: createApp({ roomId: 'drain', totalActiveUsers: 4, newUsersPerMinute: 4, sessionDurationMinutes: 1, refreshIntervalSeconds: 5, clock }),
  // Room to spare: every new user is admitted, so each decision's object calls can be counted.
  calls: createApp({ roomId: 'calls', totalActiveUsers: 10, newUsersPerMinute: 10, sessionDurationMinutes: 5, clock }),
  // The benchmark's room: limits far above its load, so every new user is a full decision that admits.
  bench: createApp({ roomId: 'bench', totalActiveUsers: 10_000_000, newUsersPerMinute: 10_000_000, clock }),
}

interface Context {
  waitUntil(promise: Promise<unknown>): void
  passThroughOnException(): void
}

export default {
  async fetch(request: Request, env: Bindings, ctx: Context): Promise<Response> {
    const url = new URL(request.url)
    if (url.pathname === '/__test/clock') {
      now = Number(url.searchParams.get('ms'))
      return new Response(String(now))
    }
    const testRoute = await objectTestRoute(request, env as never)
    if (testRoute) return testRoute
    const host = url.hostname.split('.')[0]!
    if (host === 'bare') return new Response('ok') // the floor: a Worker request with nothing in it
    const app = rooms[host]
    return app ? app.fetch(request, env, ctx as never) : new Response('no such room', { status: 404 })
  },
}
