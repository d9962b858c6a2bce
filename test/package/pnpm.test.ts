/// <reference types="node" />
/**
 * The packed package installed with pnpm, as the README's Install section says (`pnpm add hono-waiting-room
 * hono`). pnpm's layout is strict — a package sees only what it declares, through symlinks into
 * `node_modules/.pnpm` — so it catches what npm's flat tree hides: an import of a dependency the package does
 * not declare (at run time, or in its published types), a peer resolved to a second copy of Hono, an install
 * script pnpm would refuse to run. pnpm itself is installed into this run's scratch folder at a pinned version
 * (it is not one of the test runtimes: only this file uses it).
 */
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { BIN, npm, ok, packed, ROOT, run } from './support.ts'

/** pnpm 10, the major most projects are on; its JavaScript entry runs on Node 20. */
const PNPM_VERSION = '10.34.9'
const FIXTURES = join(ROOT, 'test/package/fixtures')
const SMOKE = { visits: ['welcome', 'queued'], entries: ['function', 'function', 'function', 'function', 'function', 'function'] }

let app: string
let pnpm: (args: string[]) => ReturnType<typeof ok>
let added: Awaited<ReturnType<typeof ok>>

beforeAll(async () => {
  const { tarball, work } = packed()
  const tool = join(work, 'pnpm-tool')
  mkdirSync(tool, { recursive: true })
  await npm(['install', '--prefix', tool, `pnpm@${PNPM_VERSION}`], tool)
  const entry = join(tool, 'node_modules/pnpm/bin/pnpm.cjs')
  // Its own store and cache in the scratch folder: nothing of the machine's pnpm setup is read or written.
  const env = { npm_config_store_dir: join(work, 'pnpm-store'), npm_config_cache_dir: join(work, 'pnpm-cache'), CI: '1' }
  pnpm = (args) => ok(BIN.node20, [entry, ...args], { cwd: app, env, timeoutMs: 240_000 })
  app = join(work, 'pnpm-app')
  mkdirSync(join(app, 'ts'), { recursive: true })
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'pnpm-app', version: '1.0.0', private: true }, null, 2))
  added = await pnpm(['add', tarball, 'hono', '@types/node@20'])
  copyFileSync(join(FIXTURES, 'app/esm.mjs'), join(app, 'esm.mjs'))
  copyFileSync(join(FIXTURES, 'app/require.cjs'), join(app, 'index.js'))
  copyFileSync(join(FIXTURES, 'app/app.mts'), join(app, 'ts/app.mts'))
}, 300_000)

describe('pnpm add <tarball> hono', () => {
  it('installs one copy of Hono, which the package uses as its peer, and runs no install script', () => {
    const store = readdirSync(join(app, 'node_modules/.pnpm'))
    expect(store.filter((name) => /^hono@\d/.test(name))).toHaveLength(1)
    // The package's folder name carries the peer it was linked against: `hono-waiting-room@…_hono@4…`.
    const linked = store.filter((name) => name.startsWith('hono-waiting-room@'))
    expect(linked).toHaveLength(1)
    expect(linked[0]).toMatch(/_hono@\d/)
    expect(added.output).not.toMatch(/Ignored build scripts|WARN.*peer/i)
  })

  it.each([
    ['import', 'esm.mjs'],
    ['require', 'index.js'],
  ])('Node 20, %s of every entry point through pnpm\'s strict layout: runs, and the room admits then queues', async (_how, file) => {
    const { stdout } = await ok(BIN.node20, [file], { cwd: app })
    expect(JSON.parse(stdout)).toEqual(SMOKE)
  })

  it('TypeScript nodenext, strict, skipLibCheck: false: the published types name only what the package declares', async () => {
    const compilerOptions = {
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      lib: ['ES2023'],
      types: ['node'],
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      noEmit: true,
    }
    const config = join(app, 'ts/tsconfig.json')
    writeFileSync(config, JSON.stringify({ compilerOptions, files: ['app.mts'] }, null, 2))
    const result = await run(BIN.node20, [BIN.tsc, '-p', config], { cwd: app })
    expect(result.stdout).toBe('')
    expect(result.code).toBe(0)
  })
})
