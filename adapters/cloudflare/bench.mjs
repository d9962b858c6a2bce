// Latency of a new user's decision through miniflare (workerd, Durable Objects, the example's app) next
// to a bare Worker request through the same dispatchFetch path. Prints figures; asserts nothing.
//
//   node adapters/cloudflare/bench.mjs [requests per case, default 500]
//
// The runner is TypeScript (adapters/cloudflare/test/bench-run.ts); this file only bundles it for Node
// with rolldown — our sources inlined, packages imported from node_modules by absolute path, and each
// module's `import.meta.url` kept as its source's (the helpers find the repository from it).
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'rolldown'

const requests = Number(process.argv[2] ?? 500)
const entry = fileURLToPath(new URL('./test/bench-run.ts', import.meta.url))
const outDir = await mkdtemp(join(tmpdir(), 'wr-cloudflare-bench-runner-'))
const outFile = join(outDir, 'bench-run.mjs')
try {
  await build({
    input: entry,
    platform: 'node',
    plugins: [
      {
        name: 'source-module-urls',
        transform(code, id) {
          return code.includes('import.meta.url') ? code.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(id).href)) : null
        },
      },
      {
        name: 'packages-by-path',
        async resolveId(source, importer) {
          if (source.startsWith('node:') || source.startsWith('.') || source.startsWith('/')) return null
          const resolved = await this.resolve(source, importer, { skipSelf: true })
          return resolved ? { id: resolved.id, external: 'absolute' } : null
        },
      },
    ],
    output: { file: outFile, format: 'esm' },
    logLevel: 'warn',
  })
  const { runBench } = await import(pathToFileURL(outFile).href)
  console.log(`${requests} requests per case, one at a time, Node ${process.version}`)
  console.table(await runBench(requests))
} finally {
  await rm(outDir, { recursive: true, force: true })
}
