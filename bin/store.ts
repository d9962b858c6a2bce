/**
 * @module
 * `--store <path>`: the SQLite coordinator, so several proxy processes on one host share one room.
 * Loaded lazily: the in-memory default needs no native module. Its errors are reworded for the CLI: they
 * name `--store` and the file rather than the adapter's internal name (`bun-sqlite:`), and a missing
 * better-sqlite3 is one line with the install command instead of Node's require stack, one built for another
 * Node.js one line saying to rebuild it, and a file that cannot be used refuses the start.
 */
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { importFunction, isMissingPackage, MissingModuleError, missingPackageError } from './lazy-import.ts'

/** Where `sqliteStoreCoordinator(path)` lives, relative to this file (rewritten to .js by the build). */
export const SQLITE_STORE_MODULE = '../adapters/bun-sqlite/node.ts'

/** The coordinator over the SQLite file at `path`; throws MissingModuleError if the adapter is not built. */
export async function loadStoreCoordinator(path: string, specifier: string = SQLITE_STORE_MODULE): Promise<Coordinator> {
  const create = await importFunction<(path: string, options: { requireUsableFile: boolean }) => Coordinator>(
    specifier,
    'sqliteStoreCoordinator',
    '--store (the SQLite coordinator)',
    'Run without --store to keep the room in memory, or build adapters/bun-sqlite/node.ts (npm run build).',
  )
  try {
    // A file that cannot be used refuses the start: the library's default (log it, follow failMode until it
    // is fixed) would leave a proxy running that queues everyone.
    return create(path, { requireUsableFile: true })
  } catch (error) {
    throw storeError(path, error)
  }
}

/** One line naming `--store`, and the file only when the file is the problem. */
export function storeError(path: string, error: unknown): Error {
  if (isMissingPackage(error, 'better-sqlite3')) return missingPackageError('--store', 'better-sqlite3', error)
  const reason = (error instanceof Error ? error.message : String(error))
    .replace(/^\[hono-waiting-room\] /, '')
    .replace(/^bun-sqlite: /, '')
    .replace(/\s*\n\s*/g, ' ')
  // The package, not the file: built for another Node.js, say.
  if (reason.startsWith('better-sqlite3 ')) return new MissingModuleError(`--store: ${reason}`, { cause: error })
  if (codesOf(error).some((code) => code.startsWith('SQLITE_NOTADB'))) {
    return new Error(`--store ${path} (SQLite): the file is not a SQLite database: give --store a new file, or one the proxy created`, { cause: error })
  }
  return new Error(`--store ${path} (SQLite): ${reason}`, { cause: error })
}

/** The `code` of `error` and of the errors it was caused by. */
function codesOf(error: unknown): string[] {
  const codes: string[] = []
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') codes.push(code)
  }
  return codes
}
