/**
 * @module
 * `--store <path>`: the SQLite coordinator, so several proxy processes on one host share one room.
 * Loaded lazily: the in-memory default needs no native module. Its errors are reworded for the CLI: they
 * name `--store` and the file rather than the adapter's internal name (`bun-sqlite:`), and a missing
 * better-sqlite3 is one line with the install command instead of Node's require stack.
 */
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { importFunction, isMissingPackage, missingPackageError } from './lazy-import.ts'

/** Where `sqliteStoreCoordinator(path)` lives, relative to this file (rewritten to .js by the build). */
export const SQLITE_STORE_MODULE = '../adapters/bun-sqlite/node.ts'

/** The coordinator over the SQLite file at `path`; throws MissingModuleError if the adapter is not built. */
export async function loadStoreCoordinator(path: string, specifier: string = SQLITE_STORE_MODULE): Promise<Coordinator> {
  const create = await importFunction<(path: string) => Coordinator>(
    specifier,
    'sqliteStoreCoordinator',
    '--store (the SQLite coordinator)',
    'Run without --store to keep the room in memory, or build adapters/bun-sqlite/node.ts (npm run build).',
  )
  try {
    return create(path)
  } catch (error) {
    if (isMissingPackage(error, 'better-sqlite3')) throw missingPackageError('--store', 'better-sqlite3', error)
    const reason = error instanceof Error ? error.message.replace(/^\[hono-waiting-room\] /, '').replace(/^bun-sqlite: /, '') : String(error)
    throw new Error(`--store ${path} (SQLite): ${reason}`, { cause: error })
  }
}
