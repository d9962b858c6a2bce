/**
 * @module
 * Stubs per object name, and calls with Cloudflare's error rules for Durable Objects: retry only errors
 * marked `retryable` and never `overloaded` ones (retrying an overloaded object adds to its load), back
 * off between attempts, and replace the stub after any exception (a stub can be left broken).
 *
 * A stub is an I/O object: a Worker may only use it within the request that made it ("Cannot perform
 * I/O on behalf of a different request"), so a Worker keeps only the ids (hashing a name is the costly
 * part) and makes a stub per call; a Durable Object is one long-lived context and keeps its stubs.
 * Every call the adapter makes is idempotent (counter tokens, report ids), so a retry never counts twice.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { DRIVER_NAME, type DurableObjectIdLike, type DurableObjectNamespaceLike } from './protocol.ts'

export interface RetryPolicy {
  /** Tries per call, the first included. */
  attempts: number
  /** Delay before the first retry, doubled per retry, ±50% jitter. */
  retryDelayMs: number
}

/** True for errors the platform marks as safe to retry (network blips, object resets), except overload. */
export function isRetryable(error: unknown): boolean {
  const flags = error as { retryable?: unknown; overloaded?: unknown } | null | undefined
  return flags?.retryable === true && flags.overloaded !== true
}

export const backoffMs = (retry: number, policy: RetryPolicy, random: number = Math.random()): number =>
  policy.retryDelayMs * 2 ** (retry - 1) * (0.5 + random)

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export interface StubPoolOptions {
  /** Keep stubs between calls: only inside a Durable Object. Default false (a stub per call). */
  reuseStubs?: boolean
  /** Replaces the backoff sleep in tests. */
  wait?: (ms: number) => Promise<void>
}

/** Ids above this are forgotten (oldest first): a worker sees a few rooms × locations, not thousands. */
const MAX_IDS = 1000

/** Ids and stubs of one namespace. */
export class StubPool<Stub> {
  readonly namespace: DurableObjectNamespaceLike
  /** Names the namespace in errors. */
  readonly binding: string
  #ids = new Map<string, DurableObjectIdLike>()
  #stubs: Map<string, Stub> | undefined
  #wait: (ms: number) => Promise<void>

  constructor(namespace: DurableObjectNamespaceLike, binding: string, options: StubPoolOptions = {}) {
    this.namespace = namespace
    this.binding = binding
    this.#stubs = options.reuseStubs ? new Map() : undefined
    this.#wait = options.wait ?? sleep
  }

  stub(name: string): Stub {
    let stub = this.#stubs?.get(name)
    if (stub) return stub
    let id = this.#ids.get(name)
    if (!id) {
      if (this.#ids.size >= MAX_IDS) this.#ids.delete(this.#ids.keys().next().value!)
      this.#ids.set(name, (id = this.namespace.idFromName(name)))
    }
    stub = this.namespace.get(id) as Stub
    this.#stubs?.set(name, stub)
    return stub
  }

  /** Calls `method` on object `name`, retrying per `policy`; failures become a coordinator error. */
  async call<T>(name: string, method: string, invoke: (stub: Stub) => Promise<T>, policy: RetryPolicy): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const stub = this.stub(name)
      try {
        return await invoke(stub)
      } catch (error) {
        if (this.#stubs?.get(name) === stub) this.#stubs.delete(name)
        if (attempt >= policy.attempts || !isRetryable(error)) throw this.#failure(name, method, attempt, error)
        await this.#wait(backoffMs(attempt, policy))
      }
    }
  }

  #failure(name: string, method: string, attempts: number, error: unknown): WaitingRoomError {
    // An error thrown by our own object arrives with our prefix already: keep one.
    const message = ((error as Error | undefined)?.message ?? String(error)).replace(/^\[hono-waiting-room\] /, '')
    const tries = attempts > 1 ? ` after ${attempts} attempts` : ''
    return new WaitingRoomError(
      'ERR_WR_COORDINATOR',
      `${DRIVER_NAME}: ${method} on Durable Object "${name}" (${this.binding}) failed${tries}: ${message}. ` +
        'If this persists, check the Durable Object bindings and migrations in wrangler.jsonc.',
      { cause: error },
    )
  }
}
