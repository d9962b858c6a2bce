// Loads the adapter and a database opener in whichever runtime runs this file: bun:sqlite under Bun,
// better-sqlite3 under Node (whose .ts imports go through ./ts-hooks.mjs). Used by test workers and the bench.
export const runtime = typeof globalThis.Bun === 'undefined' ? 'node' : 'bun'

if (runtime === 'node') {
  const { register } = await import('node:module')
  register('./ts-hooks.mjs', import.meta.url)
}

/**
 * The adapter of this checkout, or of another one (`BENCH_ADAPTER=/other/checkout/adapters/bun-sqlite/index.ts`:
 * the bench measures that version the same way, for a before/after on one machine).
 * @type {typeof import('../index.ts')}
 */
export const adapter = await import(process.env.BENCH_ADAPTER ? (await import('node:url')).pathToFileURL(process.env.BENCH_ADAPTER).href : '../index.ts')

const Database =
  // require(), not import(): better-sqlite3 is installed in test/runtimes/ and found through NODE_PATH.
  runtime === 'bun' ? (await import('bun:sqlite')).Database : (await import('node:module')).createRequire(import.meta.url)('better-sqlite3')

/** A new connection to the SQLite file at `path`. */
export const openDatabase = (path) => new Database(path)
