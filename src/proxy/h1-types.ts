/**
 * @module
 * The fast path's HTTP/1.1 client's parts (./h1-pool.ts): the socket a dialer gives, the answer's callbacks,
 * the flow control handed back, and the mark of a transport the client may stand in for.
 */
import type { H1Head } from './h1.ts'

/** A connected socket, as the pool uses it. */
export interface H1Socket {
  write(data: string | Uint8Array): void
  pause(): void
  resume(): void
  destroy(): void
}

/** What a dialer reports about a socket. `close` comes once, with the error if there was one. */
export interface H1SocketEvents {
  data(bytes: Uint8Array): void
  close(error?: unknown): void
}

export type H1Dial = (host: string, port: number, events: H1SocketEvents) => Promise<H1Socket>

/** The answer's side: the head once, then its body's bytes and its end, or an error at any point. */
export interface H1Answer {
  head(head: H1Head): void
  data(bytes: Uint8Array): void
  end(): void
  error(error: unknown): void
}

/** Pauses and resumes an answer's body (the client is slower than the origin), or drops it. */
export interface H1Flow {
  pause(): void
  resume(): void
  abort(): void
}

/** Marks a transport whose requests reach the origin exactly (node:http): the fast path's client may stand in for it. */
export const EXACT_TRANSPORT: unique symbol = Symbol('hono-waiting-room.exact-transport')

/** What an exact transport tells the fast path: its idle time, and a socket to use instead of the runtime's (tests: node:net). */
export interface ExactTransport {
  keepAliveMs: number
  dial?: H1Dial | undefined
}
