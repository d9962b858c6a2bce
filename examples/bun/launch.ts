/**
 * Starts N copies of ./server.ts on one port (`reusePort`) and one SQLite file, restarts a copy that
 * dies, and stops them all on Ctrl-C. Bun has no `cluster` module; this is the whole of it.
 *
 *   bun examples/bun/launch.ts [processes]        (default: one per CPU core)
 */
import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'

const count = Number(process.argv[2] ?? availableParallelism())
const server = fileURLToPath(new URL('./server.ts', import.meta.url))
// A key shared by all processes, so a ticket sealed by one is opened by the others.
const secret = process.env.WAITING_ROOM_SECRET ?? crypto.getRandomValues(new Uint8Array(32)).toHex()
const env = { ...process.env, WAITING_ROOM_SECRET: secret }

/** A process that dies sooner than this after its start is not restarted: it would only die again. */
const CRASH_LOOP_MS = 2000

let stopping = false
const stop = async (signal: NodeJS.Signals, exitCode: number): Promise<void> => {
  stopping = true
  for (const child of children) child.kill(signal)
  await Promise.all(children.map((child) => child.exited))
  process.exit(exitCode)
}

const start = (): Bun.Subprocess => {
  const startedAt = Date.now()
  return Bun.spawn([process.execPath, server], {
    env,
    stdout: 'inherit',
    stderr: 'inherit',
    onExit(child, code, signal) {
      if (stopping) return
      if (Date.now() - startedAt < CRASH_LOOP_MS) {
        console.error(`process ${child.pid} exited (${signal ?? code}) right after starting; stopping all`)
        void stop('SIGTERM', 1)
        return
      }
      // The others keep serving meanwhile; the room's state is in the file, so nothing is lost.
      console.error(`process ${child.pid} exited (${signal ?? code}); starting another`)
      children[children.indexOf(child)] = start()
    },
  })
}
const children = Array.from({ length: count }, start)

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop(signal, 0))
