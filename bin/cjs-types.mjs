// Run by `npm run build` after tsc: copies the package's declarations (dist/src, dist/adapters) to
// dist/cjs-types/, under a package.json saying "type": "commonjs". The exports' `require` condition points
// there. Why: the package is ESM only, and Node >= 20.19 can require() it, but TypeScript reads a .d.ts in a
// "type": "module" package as ESM and, under `module: node16`, refuses to let a CommonJS file import it
// (TS1479). The same declarations read as CommonJS describe what require() returns here — a namespace of
// named exports (the package has no default export) — so CommonJS projects type-check under every setting.
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const dist = process.argv[2] ?? 'dist'
const target = join(dist, 'cjs-types')
rmSync(target, { recursive: true, force: true })
for (const part of ['src', 'adapters']) {
  const from = join(dist, part)
  if (!existsSync(from)) throw new Error(`cjs-types: ${from} is missing; run tsc -p tsconfig.build.json first`)
  cpSync(from, join(target, part), { recursive: true, filter: (path) => !/\.(js|map)$/.test(path) })
}
writeFileSync(join(target, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`)
