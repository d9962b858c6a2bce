/**
 * @module
 * The example's app: a shop behind a waiting room whose counters and state live in Durable Objects.
 * Split from the Worker entry so a test can build the same app with small limits and a fake clock.
 */
import { Hono } from 'hono'
import { waitingRoom, type WaitingRoomEnv, type WaitingRoomOptions } from 'hono-waiting-room'
import { durableObjectCoordinator, type DurableObjectNamespaceLike } from 'hono-waiting-room/cloudflare'

/** The bindings declared in wrangler.jsonc (the secret is set with `wrangler secret put`). */
export interface Bindings {
  WR_COUNTER: DurableObjectNamespaceLike
  WR_GLOBAL: DurableObjectNamespaceLike
  /** Seals the tickets: 32+ characters, the same for every isolate. Read by the middleware itself. */
  WAITING_ROOM_SECRET: string
}

export type AppEnv = { Bindings: Bindings } & WaitingRoomEnv

/** The room's settings; `options` overrides any of them. */
export function createApp(options: WaitingRoomOptions<AppEnv> = {}) {
  const app = new Hono<AppEnv>()
  app.use(
    '*',
    waitingRoom<AppEnv>({
      roomId: 'shop',
      totalActiveUsers: 500,
      newUsersPerMinute: 100,
      jsonResponseEnabled: true,
      // Bindings only exist per request; the adapter builds its coordinator once per binding and reuses it.
      coordinator: (c) => durableObjectCoordinator({ counters: c.env.WR_COUNTER, global: c.env.WR_GLOBAL }),
      // location: the default is the colo the request landed in (`request.cf.colo`).
      ...options,
    }),
  )
  app.get('/', (c) => c.html(`<h1>Welcome to the shop</h1><p>You are ${c.get('waitingRoom').outcome}.</p>`))
  app.get('/api/me', (c) => c.json({ waitingRoom: c.get('waitingRoom') }))
  return app
}
