/// <reference types="node" />
/**
 * @module
 * `hono-waiting-room [proxy]`: the reverse proxy with the waiting room in front, on Node.
 */
import { createProxyApp } from '../src/proxy/proxy.ts'
import { nodeTransport } from '../src/proxy/node.ts'
import { describeTrust, parseTrustProxy } from '../src/proxy/trust.ts'
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { WaitingRoomError } from '../src/errors.ts'
import { resolveOptions } from '../src/room/options.ts'
import { flagHelp, UsageError, type ProxyConfig } from './flags.ts'
import { listen, type Listening } from './listen.ts'
import { isMissingPackage, loadNodeServer, missingPackageError } from './lazy-import.ts'
import { loadRedisCoordinator, redactUrl } from './redis-store.ts'
import { loadStoreCoordinator } from './store.ts'
import { underAdminPath, withAdmin } from './admin-mount.ts'

export const PROXY_USAGE = `Usage: hono-waiting-room [proxy] --origin <url> [flags]

Runs a reverse proxy on Node that puts a virtual waiting room in front of any site.
Every flag can also be set by its environment variable; a flag wins over the variable.

Flags:
${flagHelp()}`

/** The room's shared state, if any: a coordinator and what closes it with the server. */
interface Backend {
  coordinator: Coordinator | undefined
  close(): Promise<void>
}

/** Opens `--store` or `--redis` (parseFlags lets through one at most); nothing for the in-memory default. */
async function openBackend(config: ProxyConfig): Promise<Backend> {
  if (config.store && config.redis) throw new UsageError('--store and --redis cannot be used together: pick one')
  if (config.redis) {
    return loadRedisCoordinator(config.redis).catch((error: unknown) => {
      throw isMissingPackage(error, 'redis') ? missingPackageError('--redis', 'redis', error) : error
    })
  }
  if (config.store) {
    const coordinator = await loadStoreCoordinator(config.store)
    // A store holds a database open: close it with the server (the SQLite adapter checkpoints its WAL then).
    return { coordinator, close: async () => (coordinator as { close?: () => void }).close?.() }
  }
  return { coordinator: undefined, close: async () => {} }
}

/** How the proxy serves, beyond its flags (tests). */
export interface StartOptions {
  /** Run admitted users' requests through the fast path (src/proxy/fast.ts). Default true; the differential test turns it off. */
  fastPath?: boolean | undefined
  /** Told of each request the app itself runs (not taken by the fast path below it): tests see which way a request went. */
  onAppRequest?: (() => void) | undefined
}

/** Starts the proxy described by `config`; the caller prints and stops it. */
export async function startProxy(config: ProxyConfig, options: StartOptions = {}): Promise<Listening> {
  if (!config.origin) throw new UsageError('missing --origin (or WR_ORIGIN): the base URL of the site behind the room, e.g. http://127.0.0.1:8080')
  const { getConnInfo } = await loadNodeServer()
  const backend = await openBackend(config)
  const { coordinator } = backend
  let app
  try {
    app = createProxyApp({
      origin: config.origin,
      room: coordinator ? { ...config.room, coordinator } : config.room,
      // node:http rather than fetch: the origin gets the client's headers and bytes exactly.
      transport: nodeTransport(),
      fastPath: options.fastPath,
      trustProxy: config.trustProxy,
      publicHosts: config.publicHosts,
      clientAddress: (c) => {
        try {
          return getConnInfo(c).remote.address
        } catch {
          return undefined // not a node:http request (e.g. app.request in a test)
        }
      },
    })
  } catch (error) {
    await backend.close()
    // The proxy's own option errors name `origin` (the flags checked the others); say which flag that is.
    if (error instanceof WaitingRoomError && error.code === 'ERR_WR_OPTIONS') {
      throw new UsageError(`${error.message.replace(/^\[hono-waiting-room\] /, '')} (--origin or WR_ORIGIN)`)
    }
    throw error
  }
  // The admin API answers first at its path: never queued by the room, never forwarded to the origin.
  const { fastPath } = app
  const admin = config.admin
  if (admin) app = withAdmin(app, admin, config.publicHosts) as typeof app
  let server: Listening
  try {
    // The fast path never takes a path that may read as the admin's: the admin app answers those.
    const isReserved = admin && ((path: string) => underAdminPath(path, admin.path))
    const { onAppRequest } = options
    const served = app
    const fetch: typeof app.fetch = onAppRequest ? (request, env, ctx) => (onAppRequest(), served.fetch(request, env, ctx)) : app.fetch
    server = await listen(fetch, config.port, config.host, { upgrades: true, fastPath, isReserved })
  } catch (error) {
    await backend.close()
    throw error
  }
  return {
    ...server,
    close: async () => {
      await server.close()
      // The counts of this process's last decisions go to the shared store before it closes.
      await app.room.flush().catch(() => {})
      await backend.close()
    },
  }
}

/** One line with the limits in force, defaults included. */
export function describeRoom(config: ProxyConfig): string {
  const room = resolveOptions(config.room)
  return (
    `room ${room.roomId}: totalActiveUsers ${room.totalActiveUsers}, newUsersPerMinute ${room.newUsersPerMinute}, ` +
    `session ${room.sessionDurationMinutes} min, ${room.queueingMethod} queue, refresh ${room.refreshIntervalSeconds} s, ` +
    `${room.enabledOriginCommands.length > 0 ? `origin commands ${room.enabledOriginCommands.join(', ')}, ` : ''}` +
    `${room.challenge ? `challenge ${room.challenge.name} (${room.challenge.when}, on fail ${room.challenge.onFail}), ` : ''}` +
    `state ${config.store ? `in ${config.store}` : config.redis ? `in Redis at ${redactUrl(config.redis)}` : 'in memory'}`
  )
}

/** One line with what the proxy answers for and believes. */
export function describeForwarding(config: ProxyConfig): string {
  return `hosts ${config.publicHosts ? config.publicHosts.join(', ') : 'any'}; ${describeTrust(parseTrustProxy(config.trustProxy))}`
}

/** Runs until SIGINT or SIGTERM, then closes the server; resolves with the exit status. */
export async function serveUntilSignal(server: Listening): Promise<number> {
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  await server.close()
  return 0
}

export async function runProxy(config: ProxyConfig): Promise<number> {
  const server = await startProxy(config)
  // One write, so whoever waits for the first line (a test, a supervisor) sees the whole banner.
  console.log(
    `hono-waiting-room proxy listening on ${server.url}, origin ${config.origin}\n  ${describeRoom(config)}\n  ${describeForwarding(config)}` +
      (config.admin ? `\n  admin API and dashboard at ${server.url}${config.admin.path} (bearer token from --admin-token)` : ''),
  )
  if (!config.publicHosts && !isLoopback(config.host)) {
    console.warn(
      `  warning: listening on ${config.host} for any Host: pin the site's name with --public-host (or WR_PUBLIC_HOSTS), ` +
        'or anyone can choose the host your origin builds links and redirects from.',
    )
  }
  if ((config.store || config.redis) && !config.room.secret) {
    console.warn(
      `  warning: ${config.store ? '--store' : '--redis'} without --secret (or WR_SECRET): each process seals tickets with its own random key, ` +
        'so a user who reaches another process loses their place. Give every process the same secret.',
    )
  }
  return serveUntilSignal(server)
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}
