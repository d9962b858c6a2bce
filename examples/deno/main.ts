/**
 * A Hono app behind a waiting room on Deno KV. The same file runs locally and on Deno Deploy:
 *
 *   deno run -A --unstable-kv examples/deno/main.ts      # locally (the repo's deno.json enables KV too)
 *
 * Environment: DENO_REGION (set by Deno Deploy), WAITING_ROOM_SECRET (32+ characters, shared by all
 * isolates), KV_PATH (local database file; unset on Deploy, which opens the project's KV), PORT (local
 * only), TOTAL_ACTIVE_USERS and NEW_USERS_PER_MINUTE (to try the queue with small limits).
 */
import { openDenoKv } from '../../adapters/deno-kv/index.ts'
import { createApp } from './app.ts'

const env = (name: string): string | undefined => Deno.env.get(name) || undefined
const numberEnv = (name: string): number | undefined => (env(name) ? Number(env(name)) : undefined)

const kv = await openDenoKv(env('KV_PATH'))
const app = createApp(kv, {
  region: env('DENO_REGION') ?? 'local',
  secret: env('WAITING_ROOM_SECRET'),
  totalActiveUsers: numberEnv('TOTAL_ACTIVE_USERS'),
  newUsersPerMinute: numberEnv('NEW_USERS_PER_MINUTE'),
})

Deno.serve(
  {
    port: numberEnv('PORT') ?? 8000,
    onListen: ({ hostname, port }) => console.log(`waiting room example on http://${hostname}:${port}/`),
  },
  app.fetch,
)
