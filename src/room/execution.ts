/**
 * @module
 * Background work that must outlive the response (reports, settings reloads) is handed to the runtime's
 * `waitUntil` where it has one (Workers, Vercel Edge); elsewhere the promise simply runs on.
 */
import type { Context } from 'hono'

/**
 * @hono/node-server's mark on an answer its handler already wrote to the socket (its RESPONSE_ALREADY_SENT
 * carries this header and no body): the room adds nothing to such an answer, and the proxy's Node transport
 * returns one.
 */
export const ALREADY_SENT_HEADER = 'x-hono-already-sent'

/** The request's `waitUntil`, or undefined on runtimes without an execution context. */
export function waitUntilOf(c: Context): ((promise: Promise<unknown>) => void) | undefined {
  // @hono/node-server has no execution context, and asking Hono for one throws: an Error with its stack
  // on every background report (4–8% of a new user's CPU under node-server, bench/results/latest.md).
  if (noExecutionContext || (c.env as { incoming?: unknown } | undefined)?.incoming) return undefined
  try {
    const ctx = c.executionCtx
    return ctx.waitUntil.bind(ctx)
  } catch {
    // Not on a runtime with an execution context (Bun, Deno, Node): Hono throws an Error with its stack each
    // time it is asked, so the answer is remembered for the process.
    noExecutionContext = true
    return undefined
  }
}

/** Set once a request showed that this runtime has no execution context (a runtime does not change). */
let noExecutionContext = false

/**
 * Hands `promise` to the request's `waitUntil` when there is one. The execution context is looked up only
 * when background work actually starts, not on every request.
 */
export const deferTo =
  (c: Context) =>
  (promise: Promise<unknown>): void =>
    waitUntilOf(c)?.(promise)
