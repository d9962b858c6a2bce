/**
 * @module
 * The few Deno KV methods the adapter uses, typed structurally: `Deno.Kv` satisfies them, and the adapter
 * still typechecks under Node's tsc (no Deno types there) and works with any KV-compatible client. Also
 * what every KV call goes through: retries while a shared file is locked, errors that say what to fix.
 */
import { WaitingRoomError } from '../../src/errors.ts'

/** As Deno's: `symbol` is only for `kv.commitVersionstamp()`, which this adapter does not use. */
export type KvKeyPart = Uint8Array | string | number | bigint | boolean | symbol
export type KvKey = readonly KvKeyPart[]
export type KvConsistency = 'strong' | 'eventual'

export interface KvEntryMaybe {
  key: KvKey
  value: unknown
  versionstamp: string | null
}

export interface KvAtomic {
  check(...checks: { key: KvKey; versionstamp: string | null }[]): KvAtomic
  set(key: KvKey, value: unknown, options?: { expireIn?: number }): KvAtomic
  /** Adds a u64, wrapping around at 2^64 (Deno KV docs, `KvMutation` "sum"). */
  sum(key: KvKey, n: bigint): KvAtomic
  max(key: KvKey, n: bigint): KvAtomic
  delete(key: KvKey): KvAtomic
  commit(): Promise<{ ok: boolean }>
}

/** What `denoKvCoordinator` needs of a `Deno.Kv`. */
export interface KvLike {
  getMany(keys: readonly KvKey[], options?: { consistency?: KvConsistency }): Promise<readonly KvEntryMaybe[]>
  list(
    selector: { prefix: KvKey },
    options?: { consistency?: KvConsistency; batchSize?: number },
  ): AsyncIterable<{ key: KvKey; value: unknown }>
  atomic(): KvAtomic
}

/** Deno KV's limits (docs: "Limits"): getMany reads at most 10 keys, an atomic holds at most 1000 mutations and 100 checks. */
export const MAX_GET_MANY = 10
export const MAX_MUTATIONS = 1000
export const MAX_CHECKS = 100
/** The largest `batchSize` a list accepts. */
export const MAX_LIST_BATCH = 500

export const DRIVER_NAME = 'deno-kv'

/** True when `kv` has the methods the adapter calls (a `Deno.Kv`, not a path or a promise of one). */
export function isKvLike(kv: unknown): kv is KvLike {
  const candidate = kv as Partial<Record<keyof KvLike, unknown>> | null | undefined
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.getMany === 'function' &&
    typeof candidate.list === 'function' &&
    typeof candidate.atomic === 'function'
  )
}

/** Upper bound of the jittered pause between attempts, in ms: a conflict means someone else just wrote. */
const MAX_BACKOFF_MS = 40

/** A jittered pause that grows with the attempt, so racing writers spread out instead of colliding again. */
export const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** attempt)))

/**
 * KV on a local SQLite file opened by several processes answers "database is locked" while another
 * connection writes: a transient conflict like a failed check, not a fault.
 */
export function isBusy(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message)
}

/** Runs a KV call, again after a pause while the database is busy; other failures become a WaitingRoomError. */
export async function retryBusy<T>(what: string, attempts: number, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run()
    } catch (cause) {
      if (!isBusy(cause) || attempt >= attempts) throw kvError(what, cause)
      await backoff(attempt)
    }
  }
}

/** Wraps a KV failure in a WaitingRoomError that says what to check. */
export function kvError(what: string, cause: unknown): WaitingRoomError {
  const reason = cause instanceof Error ? cause.message : String(cause)
  const hint = /closed|BadResource|resource/i.test(reason)
    ? ' The Deno.Kv handle was closed: keep it open for as long as the app serves requests.'
    : isBusy(cause)
      ? ' Other processes kept the database file locked: raise the maxAttempts option, or give each process its own file.'
      : ''
  return new WaitingRoomError('ERR_WR_COORDINATOR', `${DRIVER_NAME}: ${what} failed: ${reason}.${hint}`, { cause })
}

/**
 * Opens Deno KV with an error that says how to fix the environment when KV is not there.
 * On Deno Deploy, call it without a path.
 */
export async function openDenoKv(path?: string): Promise<KvLike & { close(): void }> {
  const deno = (globalThis as { Deno?: { openKv?: (path?: string) => Promise<KvLike & { close(): void }> } }).Deno
  if (typeof deno?.openKv !== 'function') {
    throw new WaitingRoomError(
      'ERR_WR_OPTIONS',
      deno
        ? `${DRIVER_NAME}: Deno.openKv is not available — are you running Deno with --unstable-kv (or "unstable": ["kv"] in deno.json)?`
        : `${DRIVER_NAME}: Deno KV needs the Deno runtime (or Deno Deploy); on other runtimes pick another adapter.`,
    )
  }
  try {
    return await deno.openKv(path)
  } catch (cause) {
    throw kvError(`opening ${path ?? 'the default database'}`, cause)
  }
}
