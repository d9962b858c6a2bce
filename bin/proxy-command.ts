/// <reference types="node" />
/**
 * @module
 * `hono-waiting-room [proxy]`: the reverse proxy with the waiting room in front, on Node.
 */
import { getConnInfo } from '@hono/node-server/conninfo'
import { createProxyApp } from '../src/proxy.ts'
import type { Coordinator } from '../src/coordinator.ts'
import { WaitingRoomError } from '../src/errors.ts'
import { resolveOptions } from '../src/options.ts'
import { flagHelp, UsageError, type ProxyConfig } from './flags.ts'
import { listen, type Listening } from './listen.ts'
import { loadStoreCoordinator } from './store.ts'

export const PROXY_USAGE = `Usage: hono-waiting-room [proxy] --origin <url> [flags]

Runs a reverse proxy on Node that puts a virtual waiting room in front of any site.
Every flag can also be set by its environment variable; a flag wins over the variable.

Flags:
${flagHelp()}`

/** Starts the proxy described by `config`; the caller prints and stops it. */
export async function startProxy(config: ProxyConfig): Promise<Listening> {
  if (!config.origin) throw new UsageError('missing --origin (or WR_ORIGIN): the base URL of the site behind the room, e.g. http://127.0.0.1:8080')
  let coordinator: Coordinator | undefined
  if (config.store) coordinator = await loadStoreCoordinator(config.store)
  // A store holds a database open: close it with the server (the SQLite adapter checkpoints its WAL then).
  const closeStore = (): void => (coordinator as { close?: () => void } | undefined)?.close?.()
  let app
  try {
    app = createProxyApp({
      origin: config.origin,
      room: coordinator ? { ...config.room, coordinator } : config.room,
      clientAddress: (c) => {
        try {
          return getConnInfo(c).remote.address
        } catch {
          return undefined // not a node:http request (e.g. app.request in a test)
        }
      },
    })
  } catch (error) {
    closeStore()
    // The proxy's own option errors name `origin`; say which flag that is.
    if (error instanceof WaitingRoomError && error.code === 'ERR_WR_OPTIONS') {
      throw new UsageError(`${error.message.replace(/^\[hono-waiting-room\] /, '')} (--origin or WR_ORIGIN)`)
    }
    throw error
  }
  let server: Listening
  try {
    server = await listen(app.fetch, config.port, config.host)
  } catch (error) {
    closeStore()
    throw error
  }
  return {
    ...server,
    close: async () => {
      await server.close()
      closeStore()
    },
  }
}

/** One line with the limits in force, defaults included. */
export function describeRoom(config: ProxyConfig): string {
  const room = resolveOptions(config.room)
  return (
    `room ${room.roomId}: totalActiveUsers ${room.totalActiveUsers}, newUsersPerMinute ${room.newUsersPerMinute}, ` +
    `session ${room.sessionDurationMinutes} min, ${room.queueingMethod} queue, refresh ${room.refreshIntervalSeconds} s, ` +
    `state ${config.store ? `in ${config.store}` : 'in memory'}`
  )
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
  console.log(`hono-waiting-room proxy listening on ${server.url}, origin ${config.origin}`)
  console.log(`  ${describeRoom(config)}`)
  if (config.store && !config.room.secret) {
    console.warn(
      '  warning: --store without --secret (or WR_SECRET): each process seals tickets with its own random key, ' +
        'so a user who reaches another process loses their place. Give every process the same secret.',
    )
  }
  return serveUntilSignal(server)
}
