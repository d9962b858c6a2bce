/// <reference types="node" />
/**
 * The packed package in a new app, as a user gets it: `npm init -y` (npm 11 writes "type": "commonjs"), then
 * `npm install <tarball>`. The app imports it as ES modules and requires it as CommonJS on Node 20 and 22, on
 * Bun, and on Deno (npm: specifiers, and a checkout linked by local path); TypeScript compiles it under
 * every module resolution in the strictest settings, reading the package's and its dependencies' types
 * (`skipLibCheck: false`), and so does every TypeScript block of the README, pasted as it is; and its command
 * line runs.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { BIN, freePort, npm, ok, packed, ROOT, run, startServer } from './support.ts'
import { readmeSnippets, uncompiledCode } from './readme-snippets.ts'

const FIXTURES = join(ROOT, 'test/package/fixtures')
const SECRET = 'package-test-secret-0123456789abcdef'
const SMOKE = { visits: ['welcome', 'queued'], entries: ['function', 'function', 'function', 'function', 'function', 'function'] }

let app: string

beforeAll(async () => {
  const { tarball, work } = packed()
  app = join(work, 'app')
  mkdirSync(join(app, 'ts'), { recursive: true })
  await npm(['init', '-y'], app)
  // @types/node: the README's snippet reads process.env. hono is not named: npm installs the peer dependency.
  await npm(['install', tarball, '@types/node@20'], app)
  copyFileSync(join(FIXTURES, 'app/esm.mjs'), join(app, 'esm.mjs'))
  copyFileSync(join(FIXTURES, 'app/require.cjs'), join(app, 'index.js'))
  copyFileSync(join(FIXTURES, 'app/deno.ts'), join(app, 'deno.ts'))
  for (const name of ['app.ts', 'app.mts', 'app.cts']) copyFileSync(join(FIXTURES, 'app/app.mts'), join(app, 'ts', name))
  // Every TypeScript block of the README, pasted as it is, in each kind of file.
  readmeSnippets(ROOT).forEach(({ where, source }, i) => {
    for (const extension of ['ts', 'mts', 'cts']) writeFileSync(join(app, 'ts', `readme-${i}.${extension}`), `// ${where}\n${source}`)
  })
})

/** The README's blocks as written by beforeAll, with this extension. */
const readmeFiles = (extension: string): string[] => readmeSnippets(ROOT).map((_, i) => `readme-${i}.${extension}`)

describe('npm install <tarball> in an app made by npm init -y', () => {
  it('is a CommonJS app, and gets hono as a peer (one copy) and nothing only the CLI or the tests need', () => {
    expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).type).toBe('commonjs')
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/.package-lock.json'), 'utf8')).packages as Record<string, unknown>
    const names = Object.keys(installed).map((path) => path.replace(/^.*node_modules\//, ''))
    expect(names.filter((name) => name === 'hono')).toHaveLength(1)
    for (const name of ['@hono/node-server', 'unstorage', 'better-sqlite3', 'redis', 'typescript', 'bun', 'deno', 'miniflare']) expect(names).not.toContain(name)
  })

  it.each([
    ['Node 20', 'import', BIN.node20, 'esm.mjs'],
    ['Node 20', 'require', BIN.node20, 'index.js'],
    ['Node 22', 'import', BIN.node22, 'esm.mjs'],
    ['Node 22', 'require', BIN.node22, 'index.js'],
    ['Bun', 'import', BIN.bun, 'esm.mjs'],
    ['Bun', 'require', BIN.bun, 'index.js'],
  ])('%s: %s of every entry point runs, and the room admits then queues', async (_runtime, _how, runtime, file) => {
    const { stdout } = await ok(runtime, [file], { cwd: app })
    expect(JSON.parse(stdout)).toEqual(SMOKE)
  })

  it('Deno, npm: specifiers: type-checks and runs', async () => {
    const env = { NO_COLOR: '1', WAITING_ROOM_SECRET: SECRET }
    await ok(BIN.deno, ['check', '--unstable-kv', 'deno.ts'], { cwd: app, env })
    const { stdout } = await ok(BIN.deno, ['run', '-A', '--unstable-kv', 'deno.ts'], { cwd: app, env })
    expect(JSON.parse(stdout)).toEqual({ visits: ['welcome', 'queued'] })
  })
})

// Concurrent: each compile is one single-threaded tsc process.
describe.concurrent('TypeScript: zero errors with strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, skipLibCheck: false', () => {
  it('the app and every TypeScript block of the README are compiled; the README has no code in another language', ({ expect }) => {
    expect(readmeSnippets(ROOT).length).toBeGreaterThanOrEqual(4)
    expect(uncompiledCode(ROOT)).toEqual([])
  })
  const settings = [
    { name: 'bundler', module: 'preserve', moduleResolution: 'bundler', files: ['app.ts', ...readmeFiles('ts')] },
    { name: 'node16 (ES module and CommonJS)', module: 'node16', moduleResolution: 'node16', files: ['app.mts', 'app.cts', ...readmeFiles('mts'), ...readmeFiles('cts')] },
    { name: 'nodenext (ES module and CommonJS)', module: 'nodenext', moduleResolution: 'nodenext', files: ['app.mts', 'app.cts', ...readmeFiles('mts'), ...readmeFiles('cts')] },
  ]
  it.for(settings)('moduleResolution $name', async ({ module, moduleResolution, files }, { expect }) => {
    const config = join(app, 'ts', `tsconfig.${module}.json`)
    const compilerOptions = {
      target: 'ES2022',
      module,
      moduleResolution,
      lib: ['ES2023'],
      types: ['node'],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: false,
      noEmit: true,
    }
    writeFileSync(config, JSON.stringify({ compilerOptions, files }, null, 2))
    const result = await run(BIN.node20, [BIN.tsc, '-p', config], { cwd: app })
    expect(result.stdout).toBe('')
    expect(result.code).toBe(0)
  })
})

describe('Deno, the package from a checkout by local path', () => {
  it('deno.json `links` to the checkout: its own import map resolves the dependencies; type-checks and runs', async () => {
    const dir = join(packed().work, 'deno-link')
    mkdirSync(dir, { recursive: true })
    copyFileSync(join(FIXTURES, 'deno-link/main.ts'), join(dir, 'main.ts'))
    const config = {
      links: [relative(dir, ROOT) || '.'],
      imports: {
        hono: 'npm:hono@^4.11.2',
        'hono-waiting-room': 'jsr:@hono-waiting-room/hono-waiting-room@^0.1.0',
        'hono-waiting-room/': 'jsr:/@hono-waiting-room/hono-waiting-room@^0.1.0/',
      },
    }
    writeFileSync(join(dir, 'deno.json'), JSON.stringify(config, null, 2))
    const env = { NO_COLOR: '1', WAITING_ROOM_SECRET: SECRET }
    await ok(BIN.deno, ['check', '--unstable-kv', 'main.ts'], { cwd: dir, env })
    const { stdout } = await ok(BIN.deno, ['run', '-A', '--unstable-kv', 'main.ts'], { cwd: dir, env })
    expect(JSON.parse(stdout)).toEqual({ visits: ['welcome', 'queued'] })
  })
})

describe('the command line, from the tarball', () => {
  const cli = () => join(app, 'node_modules/.bin/hono-waiting-room')

  it('prints its help without @hono/node-server, and names the package to install when it would serve', async () => {
    expect(existsSync(join(app, 'node_modules/@hono/node-server'))).toBe(false)
    const help = await ok(cli(), ['--help'], { cwd: app })
    expect(help.stdout).toMatch(/--origin/)
    const serve = await run(cli(), ['--origin', 'http://127.0.0.1:9', '--port', '0'], { cwd: app, timeoutMs: 20_000 })
    expect(serve.code).toBe(1)
    expect(serve.stderr).toMatch(/npm install @hono\/node-server/)
  })

  it('with @hono/node-server installed: proxies to the origin, the room in front', async () => {
    await npm(['install', '@hono/node-server@^2.1.9'], app)
    const originPort = await freePort()
    const origin = await startServer(BIN.node20, ['-e', `require('node:http').createServer((q, s) => s.end('origin says hi')).listen(${originPort}, '127.0.0.1', () => console.log('origin up'))`], { cwd: app, ready: /origin up/ })
    const port = await freePort()
    const proxy = await startServer(cli(), ['--origin', `http://127.0.0.1:${originPort}`, '--port', String(port), '--host', '127.0.0.1', '--total-active-users', '1', '--new-users-per-minute', '1', '--secret', SECRET], { cwd: app, ready: /listening|http:\/\//i })
    try {
      const first = await fetch(`http://127.0.0.1:${port}/`)
      expect(await first.text()).toBe('origin says hi')
      const second = await fetch(`http://127.0.0.1:${port}/`)
      await second.text()
      expect(second.headers.has('refresh')).toBe(true)
    } finally {
      await proxy.stop()
      await origin.stop()
    }
  })
})
