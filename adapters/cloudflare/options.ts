/**
 * @module
 * Options of `durableObjectCoordinator()`, their defaults, and the build-time checks that name the fix.
 */
import { WaitingRoomError } from '../../src/errors.ts'
import { DRIVER_NAME, type DurableObjectNamespaceLike, type ObjectRoute } from './protocol.ts'
import type { CacheLike } from './snapshot-cache.ts'

export interface DurableObjectCoordinatorOptions {
  /** The `WaitingRoomCounter` namespace binding, e.g. `env.WR_COUNTER`. Required. */
  counters: DurableObjectNamespaceLike
  /** The `WaitingRoomGlobal` namespace binding, e.g. `env.WR_GLOBAL`. Required (checked here; the counter objects call it). */
  global: DurableObjectNamespaceLike
  /**
   * The names of those two bindings in wrangler.jsonc: the objects find each other in their env by name
   * (a stub cannot be passed over RPC). Default `{ counters: 'WR_COUNTER', global: 'WR_GLOBAL' }`.
   */
  bindingNames?: { counters?: string | undefined; global?: string | undefined } | undefined
  /** Shortest interval between a location object's exchanges with the global object, in ms. Default 1000. */
  exchangeIntervalMs?: number | undefined
  /** Exchanges per second the global object should get from all locations together; more colos → each exchanges less often. Default 50. */
  globalExchangesPerSecond?: number | undefined
  /** Where the workers of a colo share the last answer; `false` turns sharing off. Default `caches.default` when the runtime has it. */
  cache?: CacheLike | false | undefined
  /** Oldest shared answer a worker with nothing to report uses instead of calling its location object, in ms. Default 1000. */
  cacheMaxAgeMs?: number | undefined
  /** Tries per call for errors Cloudflare marks `retryable` (never `overloaded` ones). Default 3. */
  attempts?: number | undefined
  /** Delay before the first retry, doubled for each further one (±50% jitter), in ms. Default 25. */
  retryDelayMs?: number | undefined
}

export interface ResolvedCloudflareOptions {
  counters: DurableObjectNamespaceLike
  global: DurableObjectNamespaceLike
  route: ObjectRoute
  cache: CacheLike | undefined
  cacheMaxAgeMs: number
}

const isNamespace = (value: unknown): value is DurableObjectNamespaceLike =>
  typeof (value as DurableObjectNamespaceLike | undefined)?.idFromName === 'function' &&
  typeof (value as DurableObjectNamespaceLike).get === 'function'

function fail(field: string, message: string): never {
  throw new WaitingRoomError('ERR_WR_OPTIONS', `${DRIVER_NAME}: invalid option ${field}: ${message}`)
}

function count(field: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value < min || value > max) fail(field, `expected a number from ${min} to ${max}, got ${value}`)
  return value
}

export function resolveCloudflareOptions(options: DurableObjectCoordinatorOptions, defaultCache: CacheLike | undefined): ResolvedCloudflareOptions {
  const counters = options?.counters
  const global = options?.global
  if (!isNamespace(counters)) {
    fail('counters', 'expected a Durable Object namespace binding such as env.WR_COUNTER — bind class WaitingRoomCounter under durable_objects.bindings in wrangler.jsonc')
  }
  if (!isNamespace(global)) {
    fail('global', 'expected a Durable Object namespace binding such as env.WR_GLOBAL — bind class WaitingRoomGlobal under durable_objects.bindings in wrangler.jsonc')
  }
  const names = { counters: options.bindingNames?.counters ?? 'WR_COUNTER', global: options.bindingNames?.global ?? 'WR_GLOBAL' }
  for (const [field, name] of Object.entries(names)) {
    if (typeof name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) fail(`bindingNames.${field}`, 'expected a binding name (letters, digits, _)')
  }
  return {
    counters,
    global,
    route: {
      ...names,
      exchangeIntervalMs: count('exchangeIntervalMs', options.exchangeIntervalMs, 1000, 0, 60_000),
      globalExchangesPerSecond: count('globalExchangesPerSecond', options.globalExchangesPerSecond, 50, 1, 10_000),
      attempts: Math.floor(count('attempts', options.attempts, 3, 1, 10)),
      retryDelayMs: count('retryDelayMs', options.retryDelayMs, 25, 0, 10_000),
    },
    cache: options.cache === false ? undefined : (options.cache ?? defaultCache),
    cacheMaxAgeMs: count('cacheMaxAgeMs', options.cacheMaxAgeMs, 1000, 0, 60_000),
  }
}

/** True when two option objects would build the same coordinator (per-request construction passes new objects). */
export function sameOptions(a: DurableObjectCoordinatorOptions, b: DurableObjectCoordinatorOptions): boolean {
  return (
    a.counters === b.counters &&
    a.global === b.global &&
    a.bindingNames?.counters === b.bindingNames?.counters &&
    a.bindingNames?.global === b.bindingNames?.global &&
    a.exchangeIntervalMs === b.exchangeIntervalMs &&
    a.globalExchangesPerSecond === b.globalExchangesPerSecond &&
    a.cache === b.cache &&
    a.cacheMaxAgeMs === b.cacheMaxAgeMs &&
    a.attempts === b.attempts &&
    a.retryDelayMs === b.retryDelayMs
  )
}
