/**
 * @module
 * The colo-wide copy of a location object's last answer, in the Workers Cache API (seed 001: workers
 * read the state from cache rather than calling the data-center object, and every call's answer is
 * written back). A worker with nothing to report reads it instead of calling the object, so a new
 * isolate decides from a warm view without a Durable Object call. The cache is an optimisation: any
 * failure reads as a miss. (On `workers.dev` the Cache API stores nothing; every read is then a miss.)
 */
import type { RoomState } from '../../src/coordination/state.ts'

/** The part of a Cache (`caches.default`) used here. */
export interface CacheLike {
  match(key: string): Promise<Response | undefined>
  put(key: string, response: Response): Promise<void>
}

interface Entry {
  /** Worker clock (the middleware's) when the answer was received. */
  at: number
  state: RoomState
}

/** Cache keys are URLs; this host is never fetched. */
const KEY_PREFIX = 'https://hono-waiting-room.internal/state/'

/** `caches.default` where the runtime has it (Workers), else undefined. */
export function defaultCache(): CacheLike | undefined {
  return (globalThis as { caches?: { default?: CacheLike } }).caches?.default
}

export class SnapshotCache {
  readonly cache: CacheLike
  readonly maxAgeMs: number

  constructor(cache: CacheLike, maxAgeMs: number) {
    this.cache = cache
    this.maxAgeMs = maxAgeMs
  }

  /** The cached answer for (room, location) if it is at most `maxAgeMs` old at `now`. */
  async read(roomId: string, location: string, now: number): Promise<RoomState | undefined> {
    try {
      const response = await this.cache.match(this.#key(roomId, location))
      if (!response) return undefined
      const entry = (await response.json()) as Entry
      return now - entry.at <= this.maxAgeMs && entry.at <= now + this.maxAgeMs ? entry.state : undefined
    } catch {
      return undefined
    }
  }

  async write(roomId: string, location: string, state: RoomState, now: number): Promise<void> {
    const entry: Entry = { at: now, state }
    // The Cache API needs a max-age; freshness is checked against the worker clock on read.
    const maxAge = Math.max(1, Math.ceil(this.maxAgeMs / 1000))
    const response = new Response(JSON.stringify(entry), {
      headers: { 'content-type': 'application/json', 'cache-control': `max-age=${maxAge}` },
    })
    try {
      await this.cache.put(this.#key(roomId, location), response)
    } catch {
      // a colo without cache still works: every worker reads through its location object
    }
  }

  #key(roomId: string, location: string): string {
    return `${KEY_PREFIX}${encodeURIComponent(roomId)}/${encodeURIComponent(location)}`
  }
}
