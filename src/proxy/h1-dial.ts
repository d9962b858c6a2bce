/**
 * @module
 * Sockets for the fast path's HTTP/1.1 client (./h1-pool.ts), found at run time: Bun's `Bun.connect`
 * (its node:http client, the alternative, costs several times the rest of the proxy's work per request).
 * Undefined elsewhere; Node has its own in ./node-dial.ts, and other runtimes keep their transport.
 */
import type { H1Dial, H1Socket } from './h1-pool.ts'

interface BunSocket {
  write(data: string | Uint8Array): number
  pause(): void
  resume(): void
  end(): void
  terminate(): void
  setNoDelay?(on: boolean): void
}

type BunConnect = (options: {
  hostname: string
  port: number
  socket: {
    data(socket: BunSocket, bytes: Uint8Array): void
    drain(socket: BunSocket): void
    close(socket: BunSocket, error?: Error): void
    error(socket: BunSocket, error: Error): void
  }
}) => Promise<BunSocket>

/** Bun.connect as an {@link H1Dial}, or undefined when this is not Bun. */
export function bunDial(): H1Dial | undefined {
  const connect = (globalThis as { Bun?: { connect?: BunConnect } }).Bun?.connect
  if (typeof connect !== 'function') return undefined
  return async (hostname, port, events) => {
    // What a write could not take yet (Bun's write returns the bytes taken), sent on `drain`.
    let pending: Uint8Array | undefined
    let closed = false
    const close = (error?: unknown): void => {
      if (closed) return
      closed = true
      events.close(error)
    }
    const flush = (socket: BunSocket, bytes: Uint8Array): void => {
      const written = socket.write(bytes)
      pending = written < bytes.length ? bytes.subarray(Math.max(0, written)) : undefined
    }
    const socket = await connect({
      hostname,
      port,
      socket: {
        data: (_socket, bytes) => events.data(bytes),
        drain: (s) => pending && flush(s, pending),
        close: (_socket, error) => close(error),
        error: (_socket, error) => close(error),
      },
    })
    const own: H1Socket = {
      write(data) {
        if (pending) {
          const text = typeof data === 'string' ? new TextEncoder().encode(data) : data
          const joined = new Uint8Array(pending.length + text.length)
          joined.set(pending)
          joined.set(text, pending.length)
          pending = joined
          return
        }
        if (typeof data === 'string') {
          const written = socket.write(data)
          if (written < data.length) pending = new TextEncoder().encode(data.slice(Math.max(0, written)))
        } else flush(socket, data)
      },
      pause: () => socket.pause(),
      resume: () => socket.resume(),
      destroy: () => {
        socket.terminate()
        close()
      },
    }
    return own
  }
}
