/**
 * The example's app, apart from serving it so a test can drive it with `app.request`: a page behind a
 * waiting room whose counters and state live in Deno KV, shared by every isolate and region.
 */
import { Hono } from 'hono'
import { waitingRoom, type WaitingRoomEnv } from '../../src/index.ts'
import { denoKvCoordinator, type KvLike } from '../../adapters/deno-kv/index.ts'

export interface ExampleSettings {
  /** Where this isolate runs: Deno Deploy's `DENO_REGION`, else `local`. */
  region: string
  /** Ticket key (32+ characters). Every isolate must share it, or tickets only work where they were issued. */
  secret?: string
  totalActiveUsers?: number
  newUsersPerMinute?: number
  /** The clock, for tests. */
  clock?: () => number
}

export function createApp(kv: KvLike, settings: ExampleSettings): Hono<WaitingRoomEnv> {
  const app = new Hono<WaitingRoomEnv>()
  app.use(
    '/*',
    waitingRoom({
      roomId: 'deno-example',
      totalActiveUsers: settings.totalActiveUsers ?? 100,
      newUsersPerMinute: settings.newUsersPerMinute ?? 50,
      coordinator: denoKvCoordinator(kv),
      location: () => settings.region,
      ...(settings.secret ? { secret: settings.secret } : {}),
      ...(settings.clock ? { clock: settings.clock } : {}),
    }),
  )
  app.get('/', (c) => {
    const decision = c.get('waitingRoom')
    return c.html(`<!doctype html><title>Welcome</title><h1>Welcome in</h1><p>Admitted (${decision.reason}) in region ${settings.region}.</p>`)
  })
  return app
}
