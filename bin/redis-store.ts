/// <reference types="node" />
/**
 * @module
 * `--redis <url>`: the Redis coordinator over a node-redis TCP client, so proxy processes on any number of
 * hosts share one room. Loaded lazily: neither the adapter nor the `redis` package is needed without it.
 * The client must answer at start (a wrong URL is a message, not a room that fails every request); once
 * up, a lost connection is retried in the background while the room's `failMode` decides for new users.
 */
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { importFunction, MissingModuleError } from './lazy-import.ts'

/** Where `redisCoordinator` and `fromNodeRedis` live, relative to this file (rewritten to .js by the build). */
export const REDIS_ADAPTER_MODULE = '../adapters/upstash/index.ts'
/** The node-redis package (v5 or v6). */
export const REDIS_CLIENT_MODULE = 'redis'

/** Longest wait for the first connection (TCP, TLS and the handshake). */
const CONNECT_TIMEOUT_MS = 5000
/** Reconnection back-off after a lost connection: 100 ms more per attempt, at most this. */
const MAX_RECONNECT_DELAY_MS = 2000
/** Connection errors are logged at most this often while Redis is away. */
const ERROR_LOG_INTERVAL_MS = 60_000

/** The parts of a node-redis client used here (a `createClient()` client has them all). */
interface NodeRedisClient {
  connect(): Promise<unknown>
  on(event: 'error', listener: (error: Error) => void): unknown
  ping(): Promise<unknown>
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  close?(): Promise<unknown>
  quit?(): Promise<unknown>
  destroy?(): void
}

type CreateClient = (options: Record<string, unknown>) => NodeRedisClient

export interface RedisStore {
  coordinator: Coordinator
  /** Closes the client (pending commands finish first). */
  close(): Promise<void>
}

/** The URL with any user name and password replaced by `***`, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (!parsed.username && !parsed.password) return url
    parsed.username = '***'
    parsed.password = ''
    return parsed.toString()
  } catch {
    return '(an unparsable URL)'
  }
}

async function loadCreateClient(specifier: string): Promise<CreateClient> {
  let module: Record<string, unknown>
  try {
    module = (await import(specifier)) as Record<string, unknown>
  } catch (error) {
    throw new MissingModuleError(
      `--redis needs the node-redis client, which could not be loaded (${error instanceof Error ? error.message : String(error)}). ` +
        'Install it next to hono-waiting-room: npm install redis',
      { cause: error },
    )
  }
  if (typeof module.createClient !== 'function') {
    throw new MissingModuleError(`--redis needs the node-redis client: ${specifier} does not export createClient(). Install redis v5 or v6: npm install redis`)
  }
  return module.createClient as CreateClient
}

/**
 * Connects to the Redis at `url` and returns the room's coordinator over it. Rejects with a message naming
 * the (redacted) URL if Redis cannot be reached, and with MissingModuleError if a module is missing.
 */
export async function loadRedisCoordinator(
  url: string,
  modules: { adapter?: string; client?: string } = {},
): Promise<RedisStore> {
  const hint = 'Run without --redis to keep the room in memory, or build adapters/upstash (npm run build).'
  const what = '--redis (the Redis coordinator)'
  const adapter = modules.adapter ?? REDIS_ADAPTER_MODULE
  const redisCoordinator = await importFunction<(client: unknown) => Coordinator>(adapter, 'redisCoordinator', what, hint)
  const fromNodeRedis = await importFunction<(client: NodeRedisClient) => unknown>(adapter, 'fromNodeRedis', what, hint)
  const createClient = await loadCreateClient(modules.client ?? REDIS_CLIENT_MODULE)

  const shown = redactUrl(url)
  let ready = false
  let lastLogged = Number.NEGATIVE_INFINITY
  const client = createClient({
    url,
    // Names the connection in CLIENT LIST, so an operator can tell the proxies apart.
    name: `hono-waiting-room:${process.pid}`,
    // Commands fail at once while disconnected (the room's failMode answers), rather than piling up in memory.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // The first connection is not retried: an unreachable Redis at start is a mistake to report.
      reconnectStrategy: (retries: number) => (ready ? Math.min(MAX_RECONNECT_DELAY_MS, (retries + 1) * 100) : false),
    },
  })
  // node-redis emits 'error' for every failed (re)connection; an unhandled one would end the process.
  client.on('error', (error: Error) => {
    if (!ready) return // the connect() below rejects with it
    const now = Date.now()
    if (now - lastLogged < ERROR_LOG_INTERVAL_MS) return
    lastLogged = now
    console.warn(`[hono-waiting-room] redis at ${shown}: ${error.message} (reconnecting; logged at most once a minute)`)
  })
  try {
    await client.connect()
    await client.ping()
  } catch (error) {
    try {
      client.destroy?.()
    } catch {
      // already closed
    }
    const reason = error instanceof AggregateError && error.errors.length > 0 ? error.errors.map((e: Error) => e.message).join('; ') : error instanceof Error ? error.message : String(error)
    throw new Error(`cannot reach Redis at ${shown}: ${reason || 'connection failed'}. Check --redis (or WR_REDIS_URL) and that the server is up.`, { cause: error })
  }
  ready = true

  let coordinator: Coordinator
  try {
    coordinator = redisCoordinator(fromNodeRedis(client))
  } catch (error) {
    client.destroy?.()
    throw error
  }
  let closing: Promise<void> | undefined
  return {
    coordinator,
    close: () =>
      (closing ??= (async () => {
        ready = false // no reconnection from here on
        try {
          if (client.close) await client.close()
          else await client.quit?.()
        } catch {
          client.destroy?.()
        }
      })()),
  }
}
