/**
 * The few `cloudflare:workers` types this adapter uses, for the project's own typecheck (DOM lib, no
 * `@cloudflare/workers-types`). In a Worker project the real types from `@cloudflare/workers-types`
 * apply instead; everything used here has the same shape there. Not emitted to `dist`.
 */
declare module 'cloudflare:workers' {
  interface SqlCursor {
    toArray(): Record<string, ArrayBuffer | string | number | null>[]
  }

  interface ObjectStorage {
    /** SQLite-backed objects only (`new_sqlite_classes`). Synchronous. */
    readonly sql: { exec(query: string, ...bindings: unknown[]): SqlCursor }
    /** The synchronous key-value API of SQLite-backed objects. */
    readonly kv: {
      get<T = unknown>(key: string): T | undefined
      put<T>(key: string, value: T): void
      delete(key: string): boolean
      list<T = unknown>(options?: { prefix?: string; start?: string; end?: string }): Iterable<[string, T]>
    }
    setAlarm(scheduledTime: number | Date): Promise<void>
    getAlarm(): Promise<number | null>
    /** Deletes every key and SQL table (tests use it to lose a room's state). */
    deleteAll(): Promise<void>
  }

  interface ObjectState {
    readonly storage: ObjectStorage
    abort(reason?: string): void
  }

  export abstract class DurableObject<Env = unknown> {
    protected ctx: ObjectState
    protected env: Env
    constructor(ctx: ObjectState, env: Env)
  }
}
