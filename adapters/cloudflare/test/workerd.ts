/**
 * @module
 * Runs test Workers in workerd through miniflare: bundles a TypeScript entry with rolldown (vite's
 * bundler) into a temp directory, and starts miniflare with the Durable Object bindings and migrations
 * read from the example's wrangler.jsonc — so the tests run the configuration users deploy.
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Miniflare } from 'miniflare'
import { rolldown } from 'rolldown'

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
export const WRANGLER_CONFIG = join(ROOT, 'examples/cloudflare-workers/wrangler.jsonc')

interface WranglerConfig {
  compatibility_date: string
  durable_objects: { bindings: { name: string; class_name: string }[] }
  migrations: { tag: string; new_sqlite_classes?: string[]; new_classes?: string[] }[]
}

/** JSON with comments: drops `//` and `/* *\/` comments outside strings, and trailing commas. */
export function parseJsonc(text: string): unknown {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (char === '"') {
      const end = text.indexOf('"', i + 1)
      let close = end
      while (text[close - 1] === '\\') close = text.indexOf('"', close + 1)
      out += text.slice(i, close + 1)
      i = close
    } else if (char === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i) - 1
      if (i < 0) break
    } else if (char === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i) + 1
    } else out += char
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'))
}

export const wranglerConfig = (): WranglerConfig => parseJsonc(readFileSync(WRANGLER_CONFIG, 'utf8')) as WranglerConfig

/** A temp directory, removed by the returned function. */
export async function tempDir(label: string): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `wr-cloudflare-${label}-`))
  return { path, remove: () => rm(path, { recursive: true, force: true }) }
}

/** Bundles `entry` (a path from the repository root) for workerd; returns the bundle's path. */
export async function bundleWorker(entry: string, outDir: string): Promise<string> {
  const bundle = await rolldown({
    input: join(ROOT, entry),
    platform: 'browser',
    external: [/^cloudflare:/],
    logLevel: 'warn',
    resolve: {
      // What the example imports by package name; the sources stand in for the published package.
      alias: {
        'hono-waiting-room/cloudflare': join(ROOT, 'adapters/cloudflare/index.ts'),
        'hono-waiting-room': join(ROOT, 'src/index.ts'),
      },
      conditionNames: ['workerd', 'worker', 'browser', 'import', 'default'],
    },
  })
  try {
    await bundle.write({ dir: outDir, format: 'esm', codeSplitting: false, entryFileNames: 'worker.js' })
  } finally {
    await bundle.close()
  }
  return join(outDir, 'worker.js')
}

export interface WorkerdOptions {
  scriptPath: string
  /** Durable Object storage directory: a new Miniflare over the same directory is a restart of every object. */
  persistDir?: string
  bindings?: Record<string, string>
  /** More SQLite-backed Durable Object classes the script exports, by binding name (the benchmark's bare object). */
  extraObjects?: Record<string, string>
}

/** Miniflare with the bindings, classes and compatibility date of the example's wrangler.jsonc. */
export async function startWorkerd(options: WorkerdOptions): Promise<Miniflare> {
  const config = wranglerConfig()
  const sqlite = new Set(config.migrations.flatMap((migration) => migration.new_sqlite_classes ?? []))
  const durableObjects = Object.fromEntries([
    ...config.durable_objects.bindings.map((binding) => [binding.name, { className: binding.class_name, useSQLite: sqlite.has(binding.class_name) }]),
    ...Object.entries(options.extraObjects ?? {}).map(([name, className]) => [name, { className, useSQLite: true }]),
  ])
  const mf = new Miniflare({
    modules: true,
    scriptPath: options.scriptPath,
    // Module names are paths relative to this root; the default (cwd) cannot reach a bundle in /tmp.
    modulesRoot: dirname(options.scriptPath),
    compatibilityDate: config.compatibility_date,
    durableObjects,
    durableObjectsPersist: options.persistDir ?? false,
    bindings: options.bindings ?? {},
  })
  await mf.ready
  return mf
}
