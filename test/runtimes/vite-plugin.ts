/// <reference types="node" />
/**
 * @module
 * Lets the tests import what test/runtimes/ installs (miniflare, playwright-core, edge-runtime,
 * better-sqlite3) by name, as if it were in the root node_modules. Those packages are kept out of the root
 * install so the quick start stays small (see package.json here); `npm test` installs them first.
 *
 * - Under vitest, an import of one of them, from any file, resolves as if it were written in
 *   test/runtimes/package.json — then from the root as before (a checkout installed the old way).
 * - Child processes (test workers, Node processes a test spawns, the CLI with `--store`) find
 *   better-sqlite3 through NODE_PATH, which `require()` honours (`createRequire` in the SQLite adapter).
 *   ESM `import` does not: a child loading better-sqlite3 must use `createRequire(import.meta.url)`.
 *
 * In vitest.config.ts: `plugins: [testRuntimes()]`.
 */
import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'

/** The packages test/runtimes/ provides to modules (the binaries — bun, deno, node — are found by path). */
export const RUNTIME_PACKAGES = ['miniflare', 'playwright-core', 'edge-runtime', 'better-sqlite3'] as const

export const RUNTIMES_DIR = fileURLToPath(new URL('.', import.meta.url))
export const RUNTIMES_NODE_MODULES = join(RUNTIMES_DIR, 'node_modules')

/** `miniflare` of `miniflare/dist/x`, `@scope/name` of `@scope/name/x`. */
const packageOf = (id: string): string => id.split('/').slice(0, id.startsWith('@') ? 2 : 1).join('/')

/** NODE_PATH with test/runtimes/node_modules first, for processes started after this call. */
export function nodePathWithRuntimes(current = process.env.NODE_PATH): string {
  const entries = (current ?? '').split(delimiter).filter((entry) => entry && entry !== RUNTIMES_NODE_MODULES)
  return [RUNTIMES_NODE_MODULES, ...entries].join(delimiter)
}

export function testRuntimes(): Plugin {
  // The workers vitest forks, and every process they start, inherit this environment.
  process.env.NODE_PATH = nodePathWithRuntimes()
  const anchor = join(RUNTIMES_DIR, 'package.json')
  const installed = existsSync(RUNTIMES_NODE_MODULES)
  return {
    name: 'hono-waiting-room:test-runtimes',
    enforce: 'pre',
    async resolveId(id, importer, options) {
      if (!(RUNTIME_PACKAGES as readonly string[]).includes(packageOf(id))) return null
      if (importer?.startsWith(RUNTIMES_DIR)) return null
      const fromRuntimes = installed ? await this.resolve(id, anchor, { ...options, skipSelf: true }) : null
      if (fromRuntimes) return fromRuntimes
      const fromRoot = await this.resolve(id, importer, { ...options, skipSelf: true })
      if (fromRoot) return fromRoot
      this.error(`${id} is not installed: it comes from test/runtimes/ — run \`npm run test:runtimes\` (\`npm test\` does it first)`)
    },
  }
}
