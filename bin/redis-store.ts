/// <reference types="node" />
/**
 * @module
 * `--redis <url>`: the Redis coordinator over a node-redis TCP client, so proxy processes on any number of
 * hosts share one room. Loaded lazily: neither the adapter nor the `redis` package is needed without it.
 * The client must answer at start (a wrong URL is a message, not a room that fails every request); once
 * up, a lost connection is retried in the background while the room's `failMode` decides for new users.
 *
 * A Redis Cluster is given as `redis-cluster://[user:password@]host:port,host:port…[?replicas=N]` (or
 * `rediss-cluster://` for TLS): the listed nodes are seeds, the rest is discovered. `replicas=N` makes every
 * admission wait for N replicas' acknowledgement (fromNodeRedis `replicas`), so a failover loses none.
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

/** The parts of a node-redis client or cluster used here (`createClient()` and `createCluster()` have them all). */
interface NodeRedisClient {
  connect(): Promise<unknown>
  on(event: 'error', listener: (error: Error) => void): unknown
  sendCommand(...args: never[]): Promise<unknown>
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>
  close?(): Promise<unknown>
  quit?(): Promise<unknown>
  destroy?(): void
}

type CreateClient = (options: Record<string, unknown>) => NodeRedisClient

interface RedisClientModule {
  createClient: CreateClient
  createCluster?: CreateClient
}

/** What `--redis` names: one Redis, or a cluster by its seed nodes. */
export interface RedisTarget {
  cluster: boolean
  /** The Redis URL, or one `redis://` / `rediss://` URL per seed node (credentials kept). */
  urls: string[]
  username?: string
  password?: string
  tls: boolean
  /** Replicas that must acknowledge each admission (`?replicas=N`; clusters only). Default 0. */
  replicas: number
}

const CLUSTER_URL = /^(rediss?)-cluster:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#@]+)\/?(?:\?(.*))?$/
const CLUSTER_NODE = /^(?:\[[0-9a-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/i

/**
 * Parses a `--redis` value: `redis://` or `rediss://` (one Redis), `redis-cluster://` or `rediss-cluster://`
 * (a cluster: comma-separated seed nodes, `?replicas=N`). Throws an Error saying what was expected.
 */
export function parseRedisUrl(raw: string): RedisTarget {
  const cluster = CLUSTER_URL.exec(raw)
  if (cluster) {
    const [, scheme, username, password, hostList, query] = cluster
    const nodes = hostList!.split(',').map((node) => node.trim())
    const bad = nodes.find((node) => !CLUSTER_NODE.test(node))
    if (bad !== undefined) throw new Error(`a cluster node must be host:port, got ${JSON.stringify(bad)}`)
    const params = new URLSearchParams(query ?? '')
    for (const key of params.keys()) if (key !== 'replicas') throw new Error(`unknown cluster URL parameter ${JSON.stringify(key)} (allowed: replicas)`)
    const replicas = params.has('replicas') ? Number(params.get('replicas')) : 0
    if (!(Number.isInteger(replicas) && replicas >= 0 && replicas <= 16)) throw new Error('replicas must be an integer from 0 to 16')
    const credentials = username || password ? `${encodeURIComponent(decodeURIComponent(username ?? ''))}:${encodeURIComponent(decodeURIComponent(password ?? ''))}@` : ''
    return {
      cluster: true,
      urls: nodes.map((node) => `${scheme}://${credentials}${node}`),
      ...(username ? { username: decodeURIComponent(username) } : {}),
      ...(password ? { password: decodeURIComponent(password) } : {}),
      tls: scheme === 'rediss',
      replicas,
    }
  }
  let protocol: string | undefined
  try {
    protocol = new URL(raw).protocol
  } catch {
    protocol = undefined
  }
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw new Error('expected a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379), or a cluster as redis-cluster://host:port,host:port')
  }
  return { cluster: false, urls: [raw], tls: protocol === 'rediss:', replicas: 0 }
}

export interface RedisStore {
  coordinator: Coordinator
  /** Closes the client (pending commands finish first). */
  close(): Promise<void>
}

/** The URL with any user name and password replaced by `***`, for messages and logs. */
export function redactUrl(url: string): string {
  const cluster = /^([a-z]+-cluster:\/\/)[^@/]*@(.*)$/i.exec(url)
  if (cluster) return `${cluster[1]}***@${cluster[2]}`
  if (/^[a-z]+-cluster:\/\//i.test(url)) return url
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

async function loadClientModule(specifier: string): Promise<RedisClientModule> {
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
  return module as unknown as RedisClientModule
}

/** Commands fail at once while disconnected (the room's failMode answers), rather than piling up in memory. */
function connectionOptions(isReady: () => boolean): Record<string, unknown> {
  return {
    // Names the connection in CLIENT LIST, so an operator can tell the proxies apart.
    name: `hono-waiting-room:${process.pid}`,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // The first connection is not retried: an unreachable Redis at start is a mistake to report.
      reconnectStrategy: (retries: number) => (isReady() ? Math.min(MAX_RECONNECT_DELAY_MS, (retries + 1) * 100) : false),
    },
  }
}

/** A client for one Redis, or a cluster client over the seed nodes (credentials and TLS for every node). */
function createRedisClient(module: RedisClientModule, target: RedisTarget, isReady: () => boolean): NodeRedisClient {
  if (!target.cluster) return module.createClient({ url: target.urls[0], ...connectionOptions(isReady) })
  if (typeof module.createCluster !== 'function') {
    throw new MissingModuleError('--redis redis-cluster:// needs createCluster() from the node-redis client: install redis v5 or v6 (npm install redis)')
  }
  const defaults = connectionOptions(isReady)
  return module.createCluster({
    rootNodes: target.urls.map((url) => ({ url })),
    defaults: {
      ...defaults,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      socket: { ...(defaults.socket as object), ...(target.tls ? { tls: true } : {}) },
    },
    // Looks for the new topology a second after a node stops answering (node-redis waits 5 s by default):
    // a failover then costs the cluster's promotion time plus about a second (README: Redis Cluster).
    topologyRefreshOnReconnectionAttemptStrategy: 1000,
  })
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
  const fromNodeRedis = await importFunction<(client: NodeRedisClient, options?: { replicas?: number }) => unknown>(adapter, 'fromNodeRedis', what, hint)
  const module = await loadClientModule(modules.client ?? REDIS_CLIENT_MODULE)

  const shown = redactUrl(url)
  const target = parseRedisUrl(url)
  let ready = false
  let lastLogged = Number.NEGATIVE_INFINITY
  const client = createRedisClient(module, target, () => ready)
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
    // PING through sendCommand: a client's takes (args), a cluster's (firstKey, isReadonly, args).
    await (target.cluster ? client.sendCommand(undefined as never, true as never, ['PING'] as never) : client.sendCommand(['PING'] as never))
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
    coordinator = redisCoordinator(fromNodeRedis(client, { replicas: target.replicas }))
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
