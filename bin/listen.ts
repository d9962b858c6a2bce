/// <reference types="node" />
/**
 * @module
 * Serves a fetch handler with @hono/node-server and resolves once it listens, or rejects with a readable
 * error (port in use, address not available) instead of an unhandled 'error' event.
 */
import { serve, type ServerType } from '@hono/node-server'
import type { AddressInfo } from 'node:net'

export interface Listening {
  /** The port actually bound (useful with port 0). */
  port: number
  /** `http://host:port` for the address bound. */
  url: string
  /** Stops accepting connections, ends idle keep-alive ones, and resolves when the server is closed. */
  close(): Promise<void>
}

type FetchHandler = (request: Request, env: never) => Response | Promise<Response>

export function listen(fetch: FetchHandler, port: number, host: string): Promise<Listening> {
  return new Promise((resolve, reject) => {
    let server: ServerType
    const onError = (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'the port is in use' : error.code === 'EADDRNOTAVAIL' ? 'the address is not on this host' : error.message
      reject(new Error(`cannot listen on ${host}:${port}: ${reason}`, { cause: error }))
    }
    server = serve({ fetch: fetch as never, port, hostname: host }, (info: AddressInfo) => {
      server.off('error', onError)
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
          }),
      })
    })
    server.once('error', onError)
  })
}
