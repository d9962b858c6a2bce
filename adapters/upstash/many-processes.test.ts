/// <reference types="node" />
/**
 * 2,000 new users at once from 4 processes (2 over TCP, 2 over the REST bridge) at a limit of 200:
 * exactly 200 admitted, each once, one round trip each. Once on one shared location counter, once
 * spread over four locations plus the Anywhere pool.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SlotRequest } from '../../src/coordination/coordinator.ts'
import { fromNodeRedis, upstashCoordinator } from './index.ts'
import { bundleNodeModule, root } from './test/bundle.mjs'
import { counterValue, openRedisFixture, type RedisFixture } from './test/fixture.ts'
import { REDIS_URL, TEST_DATABASE } from './test/redis.ts'

const MINUTE = 29_405_520
const USERS_PER_PROCESS = 500

interface ChildResult {
  admitted: { token: string; via: 'location' | 'anywhere' }[]
  roundTrips: number[]
}

let fixture: RedisFixture
let outDir: string
let adapterUrl: string
let children: ChildProcess[] = []

beforeAll(async () => {
  fixture = await openRedisFixture('procs')
  outDir = await mkdtemp(join(tmpdir(), 'wr-upstash-procs-'))
  adapterUrl = pathToFileURL(await bundleNodeModule(`${root}adapters/upstash/index.ts`, join(outDir, 'adapter.mjs'))).href
  // Load the scripts first, so every decision below is the steady state: one EVALSHA.
  await upstashCoordinator(fromNodeRedis(fixture.tcp), { prefix: fixture.prefix }).takeSlot({
    roomId: 'warm-up', location: 'x', minute: MINUTE, localLimit: 1, anywhereLimit: 1, token: 'w',
  })
  await startProcesses()
}, 60_000)

afterAll(async () => {
  await Promise.all(
    children.map((child) => (child.connected ? new Promise((resolve) => child.once('exit', resolve).send('exit')) : undefined)),
  )
  await fixture.close()
  await rm(outDir, { recursive: true, force: true })
})

function nextMessage(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`a child exited (${code}) before answering`))
    child.once('exit', exited)
    child.once('message', (message) => {
      child.off('exit', exited)
      resolve(message)
    })
  })
}

/** Four processes, two on TCP and two on the REST bridge, connected and waiting. */
async function startProcesses(): Promise<void> {
  children = Array.from({ length: 4 }, (_, i) =>
    fork(`${root}adapters/upstash/test/new-users-child.mjs`, [
      JSON.stringify({
        adapterUrl,
        transport: i % 2 === 0 ? 'tcp' : 'rest',
        redisUrl: REDIS_URL,
        database: TEST_DATABASE,
        bridgeUrl: fixture.bridge.url,
        token: fixture.bridge.token,
        prefix: fixture.prefix,
        name: `p${i}`,
        users: USERS_PER_PROCESS,
      }),
    ]),
  )
  await Promise.all(children.map(nextMessage))
}

/** Releases every process at once, process i with `slots[i]`; collects what each admitted. */
async function runProcesses(slots: Omit<SlotRequest, 'token'>[]): Promise<ChildResult[]> {
  const results = children.map(nextMessage)
  children.forEach((child, i) => child.send({ slot: slots[i] }))
  return (await Promise.all(results)) as ChildResult[]
}

function check(results: ChildResult[]) {
  const admitted = results.flatMap((result) => result.admitted)
  expect(admitted.length).toBe(200)
  expect(new Set(admitted.map((entry) => entry.token)).size).toBe(200)
  expect(results.flatMap((result) => result.roundTrips).every((trips) => trips === 1)).toBe(true)
  return admitted
}

describe('upstash: 2,000 concurrent new users from 4 processes, limit 200', () => {
  it('one location counter shared by all processes admits exactly 200', async () => {
    const slot = { roomId: 'shared', location: 'local', minute: MINUTE, localLimit: 200, anywhereLimit: 0 }
    check(await runProcesses([slot, slot, slot, slot]))
    expect(await counterValue(fixture.tcp, fixture.prefix, 'shared', 'local', MINUTE)).toBe(200)
  })

  it('four locations of 20 plus an Anywhere pool of 120 admit exactly 200', async () => {
    const slots = ['SJC', 'LHR', 'NRT', 'GRU'].map((location) => ({ roomId: 'split', location, minute: MINUTE, localLimit: 20, anywhereLimit: 120 }))
    const admitted = check(await runProcesses(slots))
    expect(admitted.filter((entry) => entry.via === 'location').length).toBe(80)
    expect(admitted.filter((entry) => entry.via === 'anywhere').length).toBe(120)
    for (const location of ['SJC', 'LHR', 'NRT', 'GRU']) {
      expect(await counterValue(fixture.tcp, fixture.prefix, 'split', location, MINUTE)).toBe(20)
    }
    expect(await counterValue(fixture.tcp, fixture.prefix, 'split', '*', MINUTE)).toBe(120)
  })
})
