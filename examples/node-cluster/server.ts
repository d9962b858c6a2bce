/**
 * @module
 * Several Node processes, one waiting room: node:cluster forks a worker per CPU, every worker serves
 * the app, and all of them share the room through one Redis over TCP. Each new user's decision is one
 * script call to Redis; admitted users carry a ticket any worker can open.
 *
 * Run (Node 22.18+/23.6+ runs TypeScript as is; else `npx tsx server.ts`):
 *   REDIS_URL=redis://127.0.0.1:6379 WAITING_ROOM_SECRET=$(openssl rand -base64 32) node server.ts
 */
import cluster from 'node:cluster'
import { randomBytes } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { createClient } from 'redis'
import { waitingRoom, type WaitingRoomEnv } from 'hono-waiting-room'
import { fromNodeRedis, redisCoordinator } from 'hono-waiting-room/upstash'

const env = process.env
const port = Number(env.PORT ?? 3000)
const workers = Number(env.WORKERS ?? availableParallelism())

if (cluster.isPrimary) {
  // Every worker must open the tickets every other worker sealed, so all share one secret. Without
  // WAITING_ROOM_SECRET the primary makes one for this run (tickets then end with the run).
  const secret = env.WAITING_ROOM_SECRET ?? randomBytes(32).toString('base64url')
  let stopping = false
  const fork = () => cluster.fork({ WAITING_ROOM_SECRET: secret })
  for (let i = 0; i < workers; i++) fork()
  cluster.on('exit', (worker, code) => {
    if (stopping) return
    console.error(`worker ${worker.process.pid} exited (${code}); starting another`)
    fork()
  })
  const stop = () => {
    stopping = true
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM')
    process.exit(0)
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
} else {
  const redis = createClient({ url: env.REDIS_URL ?? 'redis://127.0.0.1:6379' })
  redis.on('error', (error: Error) => console.error(`redis: ${error.message}`)) // it reconnects by itself
  await redis.connect()

  const app = new Hono<WaitingRoomEnv>()
  // Which process answered, queue pages included: a way to watch the cluster share one room.
  app.use('*', async (c, next) => {
    await next()
    c.header('x-served-by', String(process.pid))
  })
  app.use(
    '*',
    waitingRoom({
      coordinator: redisCoordinator(fromNodeRedis(redis), { prefix: env.WAITING_ROOM_PREFIX || undefined }),
      secret: env.WAITING_ROOM_SECRET,
      totalActiveUsers: Number(env.TOTAL_ACTIVE_USERS ?? 1000),
      newUsersPerMinute: Number(env.NEW_USERS_PER_MINUTE ?? 200),
      jsonResponseEnabled: true,
      // All processes of one host are one location. Several hosts would each name theirs (a region).
      location: () => env.LOCATION ?? 'local',
    }),
  )
  app.get('/', (c) => c.json({ waitingRoom: c.get('waitingRoom') }))

  // Workers listening on one port share it: the primary accepts and hands connections round-robin.
  serve({ fetch: app.fetch, port }, (info) => console.log(`worker ${process.pid} listening on http://localhost:${info.port}`))
}
