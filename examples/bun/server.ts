/**
 * One process of the example: a Hono app behind the waiting room, its state in a SQLite file shared
 * with every other process on the host. `reusePort` lets several processes listen on one port; the
 * kernel spreads connections across them (./launch.ts starts them).
 *
 *   ROOM_DB=./room.db PORT=3000 WAITING_ROOM_SECRET=… bun examples/bun/server.ts
 */
import { Database } from 'bun:sqlite'
import { Hono } from 'hono'
// In your app: 'hono-waiting-room' and 'hono-waiting-room/bun-sqlite'.
import { waitingRoom, type WaitingRoomEnv } from '../../src/index.ts'
import { sqliteCoordinator } from '../../adapters/bun-sqlite/index.ts'

const env = process.env
const port = Number(env.PORT ?? 3000)

const app = new Hono<WaitingRoomEnv>()
// Which process answered, to watch the kernel spread users across processes.
app.use('*', async (c, next) => {
  await next()
  c.header('x-served-by', String(process.pid))
})
app.use(
  '*',
  waitingRoom({
    totalActiveUsers: Number(env.TOTAL_ACTIVE_USERS ?? 200),
    newUsersPerMinute: Number(env.NEW_USERS_PER_MINUTE ?? 200),
    // Every process must seal tickets with the same key: the launcher passes WAITING_ROOM_SECRET on.
    secret: env.WAITING_ROOM_SECRET,
    // One connection per process; all of them on one file.
    coordinator: sqliteCoordinator(new Database(env.ROOM_DB ?? './room.db')),
  }),
)
app.get('/', (c) => c.text(`Welcome in (process ${process.pid}, ${c.get('waitingRoom').outcome}).\n`))

const server = Bun.serve({ port, reusePort: true, fetch: app.fetch })
console.log(`process ${process.pid} listening on http://localhost:${server.port}`)
