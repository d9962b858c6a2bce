/**
 * @module
 * The example's app: `/api/*` behind a waiting room. Split from the Edge entry so a test can build the
 * same app with its own coordinator and clock.
 */
import { Hono } from 'hono'
import { waitingRoom, type WaitingRoomEnv, type WaitingRoomOptions } from 'hono-waiting-room'

/** The room's settings; `options` adds the coordinator and overrides any of them. */
export function createApp(options: WaitingRoomOptions) {
  const app = new Hono<WaitingRoomEnv>().basePath('/api')
  app.use(
    '*',
    waitingRoom({
      roomId: 'shop',
      totalActiveUsers: 500,
      newUsersPerMinute: 100,
      jsonResponseEnabled: true,
      // location: the default reads the edge region from `x-vercel-id` (Vercel sets VERCEL=1 at runtime).
      ...options,
    }),
  )
  app.get('/', (c) => c.json({ message: 'Welcome to the shop', waitingRoom: c.get('waitingRoom') }))
  return app
}
