// Latency of a new user's decision through miniflare (workerd, Durable Objects, the example's app) next
// to a bare Worker request through the same dispatchFetch path; then (issue #16) decisions per second from
// a Worker to its location object against a bare object doing the same storage write. Prints figures and
// one BENCH_RESULT line (bench/README.md); asserts nothing.
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
  const { runBench, runObjectBench } = await import(pathToFileURL(outFile).href)
  console.log(`${requests} requests per case, one at a time, Node ${process.version}`)
  const requestFigures = await runBench(requests)
  console.table(requestFigures)
  const callsPerBatch = Math.max(50, requests)
  console.log(`\nDurable Object decisions vs a bare object doing the same write, ${callsPerBatch} calls per batch, 7 rounds`)
  const objectFigures = await runObjectBench(callsPerBatch, 7)
  console.table(objectFigures)
  console.log(`BENCH_RESULT ${JSON.stringify(benchResult(requestFigures, objectFigures))}`)
} finally {
  await rm(outDir, { recursive: true, force: true })
}

/** Counter calls (takeSlot, increment) per request from a cell like "1.00 takeSlot, 1.00 increment". */
function counterCalls(cell) {
  let sum = 0
  for (const [, n, method] of String(cell).matchAll(/([\d.]+)\s+(\w+)/g)) if (method === 'takeSlot' || method === 'increment') sum += Number(n)
  return sum
}

/** The figures in bench/README.md's shape: object rows against the bare object, request rows against a bare Worker request. */
function benchResult(requestFigures, objectFigures) {
  const ms = (text) => Number.parseFloat(text)
  const bareRequest = requestFigures.find((row) => /bare/.test(row.case))
  const newUsers = requestFigures.filter((row) => /new user/.test(row.case))
  const rows = [
    ...objectFigures.map((row) => ({
      client: `takeSlot RPC from a Worker, ${row.case.replace(/^.*, /, '')}`,
      decisionsPerSecond: row['decisions/s'],
      bareOp: 'Durable Object RPC doing the same INSERT',
      barePerSecond: row['bare INSERT/s'],
      ratio: row['decision / bare'],
      roundTripsPerDecision: 1,
    })),
    ...newUsers.map((row) => ({
      client: `${row.case} (whole requests, sequential)`,
      decisionsPerSecond: Math.round(1000 / ms(row.median)),
      bareOp: 'bare Worker request (dispatchFetch)',
      barePerSecond: Math.round(1000 / ms(bareRequest.median)),
      ratio: Math.round((ms(bareRequest.median) / ms(row.median)) * 1000) / 1000,
      roundTripsPerDecision: counterCalls(row['object calls / request']),
      p50Ms: ms(row.median),
      p99Ms: ms(row.p99),
    })),
  ]
  return {
    adapter: 'cloudflare',
    runtime: `miniflare (workerd), Node ${process.version}`,
    rows,
    roundTripsPerDecision: Math.max(...rows.map((row) => row.roundTripsPerDecision)),
  }
}
