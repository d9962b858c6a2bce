/// <reference types="node" />
/**
 * @module
 * Serves a fetch handler with @hono/node-server and resolves once it listens, or rejects with a readable
 * error (port in use, address not available) instead of an unhandled 'error' event.
 */
import type { ServerType } from '@hono/node-server'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadNodeServer } from './lazy-import.ts'
import { createServer } from 'node:http'
import { proxyUpgrades } from '../src/proxy/node.ts'
import { fastListener, type FastListenerOptions } from '../src/proxy/node-fast.ts'
import type { ProxyFastPath } from '../src/proxy/proxy.ts'

export interface Listening {
  /** The port actually bound (useful with port 0). */
  port: number
  /** `http://host:port` for the address bound. */
  url: string
  /** Stops accepting connections, ends idle keep-alive ones, and resolves when the server is closed. */
  close(): Promise<void>
}

type FetchHandler = (request: Request, env: never) => Response | Promise<Response>

export interface ListenOptions {
  /** Answer upgrade requests (WebSocket) through `fetch` too, as the proxy app does (src/proxy/node-upgrade.ts). Default false. */
  upgrades?: boolean
  /** The proxy app's fast path (`createProxyApp(...).fastPath`), run in the request listener before node-server and the app. Default: none. */
  fastPath?: ProxyFastPath | undefined
  /** Paths the fast path leaves to the app (the admin path). */
  isReserved?: FastListenerOptions['isReserved']
}

export async function listen(fetch: FetchHandler, port: number, host: string, options: ListenOptions = {}): Promise<Listening> {
  const { serve } = await loadNodeServer()
  return new Promise((resolve, reject) => {
    let server: ServerType
    const onError = (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'the port is in use' : error.code === 'EADDRNOTAVAIL' ? 'the address is not on this host' : error.message
      reject(new Error(`cannot listen on ${host}:${port}: ${reason}`, { cause: error }))
    }
    const { fastPath, isReserved } = options
    const createFastServer = fastPath && ((serverOptions: object, listener: never) => createServer(serverOptions, fastListener(fastPath, listener, { isReserved })))
    server = serve({ fetch: fetch as never, port, hostname: host, ...(createFastServer ? { createServer: createFastServer as never } : {}) }, (info: AddressInfo) => {
      server.off('error', onError)
      const tunnels = options.upgrades ? proxyUpgrades(server as Server, fetch as never) : undefined
      const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address
      resolve({
        port: info.port,
        url: `http://${shownHost}:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            const http = server as import('node:http').Server
            http.close(() => done())
            // Keep-alive sockets would hold close() open until they time out.
            http.closeIdleConnections?.()
            // Tunnels are no longer HTTP connections: close() would wait for them to end by themselves.
            tunnels?.closeAll()
          }),
      })
    })
    server.once('error', onError)
  })
}
