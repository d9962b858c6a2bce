// Bundled for edge-runtime: the Vercel example's app with small limits and the test's clock
// (`globalThis.testClock.now`, set through the runtime's context), so limits are exact. Plain JS for
// the same reason as edge-function-entry.js.
import { Redis } from '@upstash/redis'
import { upstashCoordinator } from 'hono-waiting-room/upstash'
import { createApp } from '../../../examples/vercel-edge/app.ts'
import { edgeEnv, serveFetch } from './edge-globals.ts'

const redis = new Redis({ url: edgeEnv('UPSTASH_REDIS_REST_URL'), token: edgeEnv('UPSTASH_REDIS_REST_TOKEN') })
const app = createApp({
  coordinator: upstashCoordinator(redis, { prefix: edgeEnv('WAITING_ROOM_PREFIX') }),
  totalActiveUsers: 3,
  newUsersPerMinute: 3,
  clock: () => globalThis.testClock.now,
})

serveFetch((request) => app.fetch(request))
