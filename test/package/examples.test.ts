/// <reference types="node" />
/**
 * Every example installed and run the way its README says, from the repository:
 * - node-cluster, vercel-edge, cloudflare-workers depend on the checkout (`"hono-waiting-room": "file:../.."`,
 *   installed as a copy: their .npmrc says install-links). Here the checkout is the packed package
 *   extracted — the same files `npm install` takes from a built checkout — with the examples beside it, so
 *   the repository's own node_modules cannot stand in for anything. Each runs `npm install`, type-checks
 *   with its own tsconfig.json, then: node-cluster starts (Node 22 runs server.ts as is) and admits then
 *   queues over HTTP with Redis; the Cloudflare Worker is bundled by `wrangler deploy --dry-run` and that
 *   bundle serves in workerd; the Vercel Edge Function is bundled for the edge and serves in edge-runtime.
 * - bun and deno run from the checkout itself (`bun examples/bun/launch.ts`, `deno run … examples/deno/main.ts`)
 *   and admit then queue over HTTP.
 */
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { EdgeRuntime } from 'edge-runtime'
import { createClient } from 'redis'
import { build } from 'rolldown'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWorkerd } from '../../adapters/cloudflare/test/workerd.ts'
import { startUpstashBridge, type UpstashBridge } from '../support/upstash-bridge.ts'
import { BIN, freePort, newUsers, npm, ok, packed, ROOT, run, startServer, type Outcome } from './support.ts'

const SECRET = 'package-test-secret-0123456789abcdef'
const PREFIX = `wr-package-test-${process.pid}`
/** Two users may be in at once: of five new users, the first two get in and three wait. */
const LIMITS = { TOTAL_ACTIVE_USERS: '2', NEW_USERS_PER_MINUTE: '2', WAITING_ROOM_SECRET: SECRET }
const EXPECTED: Outcome[] = ['admitted', 'admitted', 'queued', 'queued', 'queued']

let repo: string
/** Each example's `npm install`, started together (they share npm's cache) and awaited where needed. */
const installs = new Map<string, Promise<string>>()
const installed = (name: string): Promise<string> => installs.get(name)!

beforeAll(async () => {
  const { tarball, work } = packed()
  repo = join(work, 'repo')
  mkdirSync(join(repo, 'examples'), { recursive: true })
  await ok('tar', ['-xzf', tarball, '-C', repo, '--strip-components=1'], { cwd: work })
  for (const name of ['node-cluster', 'vercel-edge', 'cloudflare-workers']) {
    const dir = join(repo, 'examples', name)
    cpSync(join(ROOT, 'examples', name), dir, { recursive: true, filter: (path) => !/(^|\/)(node_modules|\.wrangler|dist)(\/|$)/.test(path) })
    const install = npm(['install'], dir).then(() => dir)
    install.catch(() => {}) // awaited (and reported) by the example's own tests
    installs.set(name, install)
  }
})

afterAll(async () => {
  await Promise.allSettled(installs.values())
  // The node-cluster example's room lives in the shared Redis under this run's prefix.
  const redis = createClient({ url: 'redis://127.0.0.1:6379' })
  await redis.connect()
  for await (const keys of redis.scanIterator({ MATCH: `${PREFIX}*`, COUNT: 500 })) if (keys.length > 0) await redis.del(keys)
  await redis.quit()
})

/** The example's own tsconfig.json, the package as installed: zero errors. */
async function typecheck(dir: string): Promise<void> {
  const result = await run(BIN.node20, [BIN.tsc, '-p', '.'], { cwd: dir })
  expect(result.stdout).toBe('')
  expect(result.code).toBe(0)
}

describe('examples/node-cluster (npm install, node server.ts)', () => {
  it('type-checks', async () => typecheck(await installed('node-cluster')))

  it('starts two workers on one port; one Redis room across them admits two users and queues the rest', async () => {
    const dir = await installed('node-cluster')
    const port = await freePort()
    const env = { ...LIMITS, PORT: String(port), WORKERS: '2', REDIS_URL: 'redis://127.0.0.1:6379', WAITING_ROOM_PREFIX: PREFIX }
    const server = await startServer(BIN.node22, ['server.ts'], { cwd: dir, env, ready: /listening[\s\S]*listening/ })
    try {
      expect(await newUsers(`http://127.0.0.1:${port}/`, 5, { headers: { accept: 'application/json' } })).toEqual(EXPECTED)
    } finally {
      await server.stop()
    }
  })
})

describe('examples/cloudflare-workers (npm install, wrangler deploy --dry-run)', () => {
  it('type-checks', async () => typecheck(await installed('cloudflare-workers')))

  it("wrangler bundles the Worker, and the bundle serves in workerd with the example's bindings", async () => {
    const dir = await installed('cloudflare-workers')
    const out = join(dir, 'dist')
    const env = { WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' }
    const deploy = await ok(join(dir, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--outdir', out], { cwd: dir, env })
    expect(deploy.stdout).toMatch(/WR_COUNTER \(WaitingRoomCounter\)[\s\S]*WR_GLOBAL \(WaitingRoomGlobal\)/)
    const scriptPath = join(out, 'index.js')
    const mf = await startWorkerd({ scriptPath, bindings: { WAITING_ROOM_SECRET: SECRET } })
    try {
      const response = await mf.dispatchFetch('https://shop.example/api/me', { cf: { colo: 'AMS' } } as never)
      expect(response.status).toBe(200)
      expect(((await response.json()) as { waitingRoom: { outcome: string } }).waitingRoom.outcome).toBe('admitted')
    } finally {
      await mf.dispose()
    }
  })
})

describe('examples/vercel-edge (npm install, bundled for the edge)', () => {
  let bridge: UpstashBridge
  beforeAll(async () => {
    bridge = await startUpstashBridge()
  })
  afterAll(async () => bridge?.close())

  it('type-checks', async () => typecheck(await installed('vercel-edge')))

  it("bundles for Vercel's edge runtime with no Node imports, and serves there", async () => {
    const dir = await installed('vercel-edge')
    // How an Edge Function is invoked: a fetch event handed to the module's default export.
    writeFileSync(join(dir, 'edge-entry.js'), "import handler from './api/index.ts'\naddEventListener('fetch', (event) => event.respondWith(handler(event.request)))\n")
    const bundle = await build({
      input: join(dir, 'edge-entry.js'),
      cwd: dir,
      platform: 'browser',
      resolve: { conditionNames: ['edge-light', 'worker', 'browser', 'import', 'default'] },
      onLog(level, log, handler) {
        if (log.code === 'UNRESOLVED_IMPORT' || log.code === 'MISSING_GLOBAL_NAME') throw new Error(`not runnable on the edge: ${log.message}`)
        handler(level, log)
      },
      output: { format: 'iife' },
      write: false,
      logLevel: 'warn',
    })
    const code = bundle.output[0].code
    expect(code).not.toMatch(/\bfrom\s*["']node:|\brequire\(\s*["']/)
    const env = { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: bridge.token, WAITING_ROOM_PREFIX: PREFIX, WAITING_ROOM_SECRET: SECRET, UPSTASH_DISABLE_TELEMETRY: '1' }
    const runtime = new EdgeRuntime({ initialCode: code, extend: (context) => Object.assign(context, { process: { env } }) })
    const response = await runtime.dispatchFetch('https://shop.example/api', { headers: { accept: 'application/json' } })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { waitingRoom: { outcome: string } }).waitingRoom.outcome).toBe('admitted')
  })
})

describe('examples/bun, from the checkout (bun examples/bun/launch.ts 2)', () => {
  it('starts two processes on one port and one SQLite file; the room admits two users and queues the rest', async () => {
    const port = await freePort()
    const env = { ...LIMITS, PORT: String(port), ROOM_DB: join(packed().work, 'bun-room.db') }
    const server = await startServer(BIN.bun, ['examples/bun/launch.ts', '2'], { cwd: ROOT, env, ready: /listening[\s\S]*listening/ })
    try {
      expect(await newUsers(`http://127.0.0.1:${port}/`, 5)).toEqual(EXPECTED)
    } finally {
      await server.stop()
    }
  })
})

describe('examples/deno, from the checkout (deno run -A --unstable-kv examples/deno/main.ts)', () => {
  it('serves from a KV file; the room admits two users and queues the rest', async () => {
    const port = await freePort()
    const env = { ...LIMITS, PORT: String(port), KV_PATH: join(packed().work, 'deno-room.db'), NO_COLOR: '1' }
    const server = await startServer(BIN.deno, ['run', '-A', '--unstable-kv', 'examples/deno/main.ts'], { cwd: ROOT, env, ready: /listening on|http:\/\// })
    try {
      expect(await newUsers(`http://127.0.0.1:${port}/`, 5)).toEqual(EXPECTED)
    } finally {
      await server.stop()
    }
  })
})

it('covers every example there is', () => {
  expect(readdirSync(join(ROOT, 'examples')).sort()).toEqual(['bun', 'cloudflare-workers', 'deno', 'node-cluster', 'vercel-edge'])
})
