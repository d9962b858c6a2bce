/**
 * @module
 * Bundles our TypeScript for the runtimes the tests start: a script for `edge-runtime` (everything
 * inlined, browser platform: a `node:` import or a Node global in src/ or the adapter fails there), and
 * an ES module for Node child processes (our files inlined, packages imported from node_modules by
 * absolute path so the output runs from a temp dir). Plain JS, so `bench.mjs` can use it as well.
 */
import { build } from 'rolldown'
import { fileURLToPath } from 'node:url'

export const root = fileURLToPath(new URL('../../../', import.meta.url))

/** The package's own names, as the examples import them, mapped to the sources. */
export const packageAliases = {
  'hono-waiting-room/upstash': `${root}adapters/upstash/index.ts`,
  'hono-waiting-room/memory': `${root}adapters/memory/index.ts`,
  'hono-waiting-room': `${root}src/index.ts`,
}

const resolveAlias = { alias: packageAliases }

/**
 * A classic script (IIFE) with every dependency inlined, for `new EdgeRuntime({ initialCode })`. An
 * import the browser platform cannot resolve (`node:crypto`, say) fails the build instead of becoming
 * a guessed global.
 */
export async function bundleEdgeScript(entry, outFile) {
  const result = await build({
    input: entry,
    platform: 'browser',
    onLog(level, log, handler) {
      if (log.code === 'UNRESOLVED_IMPORT' || log.code === 'MISSING_GLOBAL_NAME') {
        throw new Error(`not runnable on the edge: ${log.message}`)
      }
      handler(level, log)
    },
    resolve: { ...resolveAlias, conditionNames: ['edge-light', 'worker', 'browser', 'import', 'default'] },
    output: { file: outFile, format: 'iife' },
    logLevel: 'warn',
  })
  return result.output[0].code
}

/** An ES module for Node: our sources inlined, npm packages left as imports by absolute path. */
export async function bundleNodeModule(entry, outFile) {
  const externalPackages = {
    name: 'external-packages-by-path',
    async resolveId(source, importer) {
      if (source.startsWith('node:') || source.startsWith('.') || source.startsWith('/') || source in packageAliases) return null
      const resolved = await this.resolve(source, importer, { skipSelf: true })
      return resolved ? { id: resolved.id, external: 'absolute' } : null
    },
  }
  await build({
    input: entry,
    platform: 'node',
    resolve: resolveAlias,
    plugins: [externalPackages],
    output: { file: outFile, format: 'esm' },
    logLevel: 'warn',
  })
  return outFile
}
