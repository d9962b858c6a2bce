/// <reference types="node" />
/**
 * The peer range the package declares for hono, tried at its floor: an app that pins the oldest hono the
 * range allows runs the package and type-checks against it. (The newest in range is what the other package
 * tests install.) The floor is set by @hono/zod-validator, which the admin API uses: it needs hono >= 4.11.2.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, expect, it } from 'vitest'
import { BIN, npm, ok, packed, ROOT, run } from './support.ts'

const FIXTURES = join(ROOT, 'test/package/fixtures')
let app: string
let floor: string

beforeAll(async () => {
  const range = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).peerDependencies.hono as string
  floor = range.replace(/^\^/, '')
  const { tarball, work } = packed()
  app = join(work, 'hono-floor')
  mkdirSync(app, { recursive: true })
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'hono-floor', private: true, type: 'module' }))
  await npm(['install', `hono@${floor}`, tarball, '@types/node@20', '--save-exact'], app)
  copyFileSync(join(FIXTURES, 'app/esm.mjs'), join(app, 'esm.mjs'))
  copyFileSync(join(FIXTURES, 'app/app.mts'), join(app, 'app.ts'))
})

it('the lowest hono in the peer range is the one installed, once', () => {
  const installed = JSON.parse(readFileSync(join(app, 'node_modules/.package-lock.json'), 'utf8')).packages as Record<string, { version: string }>
  const copies = Object.entries(installed).filter(([path]) => path.endsWith('node_modules/hono'))
  expect(copies.map(([, entry]) => entry.version)).toEqual([floor])
})

it('runs on it: the room admits then queues', async () => {
  const { stdout } = await ok(BIN.node20, ['esm.mjs'], { cwd: app })
  expect(JSON.parse(stdout).visits).toEqual(['welcome', 'queued'])
})

it('type-checks against it (bundler, strict, skipLibCheck: false)', async () => {
  // The DOM library: hono's own declarations at the floor name DOM types (RequestInfo) that @types/node lacks.
  const compilerOptions = { target: 'ES2022', module: 'preserve', moduleResolution: 'bundler', lib: ['ES2023', 'DOM'], types: ['node'], strict: true, exactOptionalPropertyTypes: true, skipLibCheck: false, noEmit: true }
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['app.ts'] }))
  const result = await run(BIN.node20, [BIN.tsc, '-p', 'tsconfig.json'], { cwd: app })
  expect(result.stdout).toBe('')
  expect(result.code).toBe(0)
})
