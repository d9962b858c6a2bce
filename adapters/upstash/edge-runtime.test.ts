/// <reference types="node" />
/**
 * The middleware and the adapter inside Vercel's edge-runtime: bundled for the browser platform with
 * everything inlined and evaluated in an isolate that has Web APIs only (no `require`, no `Buffer`, and
 * of `process` just the `env` Vercel Edge gives). A Node API anywhere in src/ or the adapter fails here.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EdgeRuntime } from 'edge-runtime'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleEdgeScript, root } from './test/bundle.mjs'
import { openRedisFixture, ticketsWithSlots, type RedisFixture } from './test/fixture.ts'

const MINUTE = 29_405_520 // 2026-11-30 12:00 UTC
const SECRET = 'edge-runtime-test-secret-0123456789abcdef'

let fixture: RedisFixture
let outDir: string

const bundles = new Map<string, Promise<string>>()

/** A fresh edge isolate (a cold start) running `entry`, with Vercel's environment pointing at the bridge. */
async function edgeRuntime(entry: string, env: Record<string, string> = {}) {
  let bundle = bundles.get(entry)
  if (!bundle) {
    bundle = bundleEdgeScript(`${root}adapters/upstash/test/${entry}`, join(outDir, entry.replace(/\.ts$/, '.js')))
    bundles.set(entry, bundle)
  }
  const code = await bundle
  const runtime = new EdgeRuntime({
    initialCode: code,
    extend: (context) =>
      Object.assign(context, {
        process: {
          env: {
            UPSTASH_REDIS_REST_URL: fixture.bridge.url,
            UPSTASH_REDIS_REST_TOKEN: fixture.bridge.token,
            WAITING_ROOM_PREFIX: fixture.prefix,
            WAITING_ROOM_SECRET: SECRET,
            UPSTASH_DISABLE_TELEMETRY: '1',
            ...env,
          },
        },
      }),
  })
  return { code, runtime }
}

const cookieOf = (response: Response): string => response.headers.get('set-cookie')!.split(';')[0]!

beforeAll(async () => {
  fixture = await openRedisFixture('edge')
  outDir = await mkdtemp(join(tmpdir(), 'wr-upstash-edge-'))
})

afterAll(async () => {
  await fixture.close()
  await rm(outDir, { recursive: true, force: true })
})

describe('upstash adapter in edge-runtime (Vercel Edge)', () => {
  it('the bundle has no Node imports or require calls', async () => {
    const { code } = await edgeRuntime('edge-function-entry.js', { VERCEL: '1' })
    expect(code).not.toMatch(/\bfrom\s*["']node:|\brequire\(\s*["']/)
  })

  it('serves the Vercel example: admits, keeps the session, and takes the location from x-vercel-id', async () => {
    const { runtime } = await edgeRuntime('edge-function-entry.js', { VERCEL: '1', VERCEL_REGION: 'iad1' })
    const first = await runtime.dispatchFetch('https://shop.example/api', { headers: { 'x-vercel-id': 'cdg1::iad1::abc' } })
    expect(first.status).toBe(200)
    const body = (await first.json()) as { waitingRoom: { outcome: string; reason: string } }
    expect(body.waitingRoom).toMatchObject({ outcome: 'admitted', reason: 'slot' })

    const again = await runtime.dispatchFetch('https://shop.example/api', {
      headers: { 'x-vercel-id': 'cdg1::iad1::def', cookie: cookieOf(first) },
    })
    expect(((await again.json()) as { waitingRoom: { reason: string } }).waitingRoom.reason).toBe('session')

    // Another isolate, without the header: the region comes from VERCEL_REGION. A cold isolate syncs
    // before its first decision, which registers its location in Redis.
    const other = await edgeRuntime('edge-function-entry.js', { VERCEL: '1', VERCEL_REGION: 'iad1' })
    await other.runtime.dispatchFetch('https://shop.example/api')
    const locations = await fixture.tcp.zRange(`${fixture.prefix}:{shop}:locations`, 0, -1)
    expect(locations.sort()).toEqual(['cdg1', 'iad1'])
  })

  it('queues new users past the limit, with exact counts under a fixed clock', async () => {
    const { runtime } = await edgeRuntime('edge-room-entry.js', { WAITING_ROOM_PREFIX: `${fixture.prefix}:fixed-clock` })
    Object.assign(runtime.context, { testClock: { now: MINUTE * 60_000 + 5_000 } })
    const outcomes: string[] = []
    for (let i = 0; i < 5; i++) {
      const response = await runtime.dispatchFetch('https://shop.example/api', { headers: { accept: 'application/json' } })
      const body = (await response.json()) as { waitingRoom: { outcome?: string; inWaitingRoom?: boolean } }
      outcomes.push(body.waitingRoom.outcome ?? (body.waitingRoom.inWaitingRoom ? 'queued' : 'unknown'))
    }
    expect(outcomes).toEqual(['admitted', 'admitted', 'admitted', 'queued', 'queued'])
    expect(await ticketsWithSlots(fixture.tcp, `${fixture.prefix}:fixed-clock`, 'shop', MINUTE)).toBe(3)
  })

  it('passes the coordinator conformance suite inside the isolate', async () => {
    const { runtime } = await edgeRuntime('edge-conformance-entry.ts')
    const response = await runtime.dispatchFetch('https://conformance.test/')
    const results = (await response.json()) as { name: string; error?: string }[]
    expect(results.length).toBeGreaterThanOrEqual(9)
    expect(results.filter((result) => result.error)).toEqual([])
  }, 60_000)
})
