/// <reference types="node" />
/**
 * What `npm pack` puts in the tarball: the built JavaScript that runs and its types, the README and the
 * licence — no sources, tests, benchmarks, shell scripts or source maps — and a package.json with no
 * install-time scripts, hono as a peer, and every export and bin pointing at a file that is there.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ok, packed } from './support.ts'

/** Every path the tarball may hold; anything else is a packaging mistake. */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^dist\/(src|adapters)\/.+\.(js|d\.ts)$/,
  /^dist\/bin\/[^/]+\.js$/,
  /^dist\/cjs-types\/(src|adapters)\/.+\.d\.ts$/,
  /^dist\/cjs-types\/package\.json$/,
]

let files: string[]
let dir: string
let manifest: {
  scripts?: Record<string, string>
  exports: Record<string, unknown>
  bin: Record<string, string>
  main: string
  types: string
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
}

beforeAll(async () => {
  const { tarball, work } = packed()
  dir = join(work, 'tarball')
  mkdirSync(dir, { recursive: true })
  const listing = await ok('tar', ['-tzf', tarball], { cwd: work })
  files = listing.stdout.trim().split('\n').map((line) => line.replace(/^package\//, ''))
  await ok('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1'], { cwd: work })
  manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
})

/** Every string leaf of an exports map: the files its conditions point at. */
const targets = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(targets) : []

/**
 * Relative specifiers in a built file: static and dynamic imports, and the paths the CLI hands its lazy loader
 * (`'./simulate.ts'`: tsc rewrites a computed `import()` specifier's .ts to .js when it runs).
 */
const relativeImports = (code: string): string[] => [...code.matchAll(/['"](\.\.?\/[^'"]+)\.[jt]s['"]/g)].map((match) => `${match[1]}.js`)

/** A module tsc emitted for a file of types only: nothing runs in it, but its declarations need a sibling. */
const typesOnly = (code: string): boolean => code.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').trim() === 'export {};'

describe('the tarball', () => {
  it('holds only the built code, its declarations, the README and the licence', () => {
    const unexpected = files.filter((file) => !ALLOWED.some((pattern) => pattern.test(file)))
    expect(unexpected).toEqual([])
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']))
  })

  it('has every file an export condition, main, types or bin names', () => {
    const named = [...targets(manifest.exports), ...Object.values(manifest.bin), manifest.main, manifest.types]
    const missing = named.map((target) => normalize(target)).filter((target) => target !== 'package.json' && !files.includes(target))
    expect(missing).toEqual([])
  })

  it('has no JavaScript that nothing imports: every module is reached from an export or the bin, or holds types only', () => {
    const entries = [...targets(manifest.exports), ...Object.values(manifest.bin)].filter((target) => target.endsWith('.js'))
    const reached = new Set<string>()
    const queue = entries.map((target) => normalize(target))
    while (queue.length > 0) {
      const file = queue.pop()!
      if (reached.has(file)) continue
      reached.add(file)
      const code = readFileSync(join(dir, file), 'utf8')
      // Only files that are there: a path in a comment may name a source; the runtime tests catch a missing import.
      for (const specifier of relativeImports(code)) queue.push(...[normalize(join(dirname(file), specifier))].filter((path) => files.includes(path)))
    }
    const unreached = files.filter((file) => file.endsWith('.js') && !reached.has(file) && !typesOnly(readFileSync(join(dir, file), 'utf8')))
    expect(unreached).toEqual([])
  })

  it('has CommonJS declarations mirroring the ES module ones, one for one', () => {
    const esm = files.filter((file) => /^dist\/(src|adapters)\/.+\.d\.ts$/.test(file)).sort()
    const cjs = files.filter((file) => file.startsWith('dist/cjs-types/') && file.endsWith('.d.ts')).map((file) => file.replace('cjs-types/', '')).sort()
    expect(cjs).toEqual(esm)
    expect(JSON.parse(readFileSync(join(dir, 'dist/cjs-types/package.json'), 'utf8'))).toEqual({ type: 'commonjs' })
  })
})

describe("the tarball's package.json", () => {
  it('runs nothing when installed: no preinstall, install, postinstall or prepare script', () => {
    const scripts = Object.keys(manifest.scripts ?? {})
    expect(scripts.filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([])
  })

  it('takes hono from the app (a peer) and installs nothing only the CLI needs', () => {
    expect(manifest.peerDependencies.hono).toMatch(/^\^4\./)
    for (const name of ['hono', '@hono/node-server', 'unstorage', 'better-sqlite3', 'redis']) expect(manifest.dependencies).not.toHaveProperty(name)
  })

  it('gives every export types, import, require and default conditions', () => {
    for (const [subpath, conditions] of Object.entries(manifest.exports)) {
      if (subpath === './package.json') continue
      expect(Object.keys(conditions as object), subpath).toEqual(['import', 'require', 'default'])
      for (const condition of Object.values(conditions as Record<string, object>)) expect(Object.keys(condition), subpath).toEqual(['types', 'default'])
    }
  })
})
