/// <reference types="node" />
/**
 * The node-cluster example as it runs: a primary forking two workers that share one port and one
 * Redis. New users across both processes get exactly the minute's slots; an admitted user's ticket
 * opens on either worker.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleNodeModule, root } from './test/bundle.mjs'
import { openRedisFixture, type RedisFixture } from './test/fixture.ts'
import { REDIS_URL, TEST_DATABASE } from './test/redis.ts'

const LIMIT = 10

interface Answer {
  status: number
  worker: string | undefined
  cookie: string | undefined
  body: { waitingRoom: { outcome?: string; reason?: string; inWaitingRoom?: boolean } }
}

let fixture: RedisFixture
let outDir: string
let primary: ChildProcess
let port: number

/** One request on its own connection, so the cluster's round-robin picks a worker for each. */
function get(cookie?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json', ...(cookie ? { cookie } : {}) }
    const call = request({ host: '127.0.0.1', port, path: '/', agent: false, headers }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          worker: response.headers['x-served-by'] as string | undefined,
          cookie: response.headers['set-cookie']?.[0]?.split(';')[0],
          body: JSON.parse(text),
        }),
      )
    })
    call.on('error', reject).end()
  })
}

beforeAll(async () => {
  fixture = await openRedisFixture('cluster')
  outDir = await mkdtemp(join(tmpdir(), 'wr-upstash-cluster-'))
  const server = await bundleNodeModule(`${root}examples/node-cluster/server.ts`, join(outDir, 'server.mjs'))
  primary = spawn(process.execPath, [server], {
    env: {
      ...process.env,
      PORT: '0', // cluster workers listening on port 0 share one random port
      WORKERS: '2',
      REDIS_URL: `${REDIS_URL}/${TEST_DATABASE}`,
      WAITING_ROOM_PREFIX: fixture.prefix,
      TOTAL_ACTIVE_USERS: String(LIMIT),
      NEW_USERS_PER_MINUTE: String(LIMIT),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  port = await new Promise<number>((resolve, reject) => {
    let listening = 0
    let output = ''
    const timer = setTimeout(() => reject(new Error(`workers did not start: ${output}`)), 30_000)
    primary.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      const ports = [...output.matchAll(/listening on http:\/\/localhost:(\d+)/g)].map((match) => Number(match[1]))
      if (ports.length > listening && (listening = ports.length) === 2) {
        clearTimeout(timer)
        resolve(ports[0]!)
      }
    })
    primary.once('exit', (code) => reject(new Error(`the primary exited (${code}): ${output}`)))
  })
}, 60_000)

afterAll(async () => {
  primary?.kill('SIGTERM') // the example's primary stops its workers on SIGTERM
  await fixture.close()
  await rm(outDir, { recursive: true, force: true })
})

describe('examples/node-cluster: two workers, one Redis', () => {
  let admittedCookie: string

  it(`admits exactly ${LIMIT} of 40 new users across both workers`, async () => {
    const minuteBefore = Math.floor(Date.now() / 60_000)
    const answers = await Promise.all(Array.from({ length: 40 }, () => get()))
    const minuteAfter = Math.floor(Date.now() / 60_000)
    const admitted = answers.filter((answer) => answer.body.waitingRoom.outcome === 'admitted')
    const queued = answers.filter((answer) => answer.body.waitingRoom.inWaitingRoom === true)
    expect(admitted.length + queued.length).toBe(40)
    // Slots are per minute: a burst that straddles a minute boundary may get the next minute's too.
    if (minuteBefore === minuteAfter) expect(admitted.length).toBe(LIMIT)
    else expect(admitted.length).toBeLessThanOrEqual(2 * LIMIT)
    expect(answers.every((answer) => answer.worker !== undefined)).toBe(true)
    expect(new Set(answers.map((answer) => answer.worker)).size).toBe(2) // both processes decided
    admittedCookie = admitted[0]!.cookie!
  })

  it('an admitted ticket opens on either worker', async () => {
    const answers = []
    for (let i = 0; i < 6; i++) answers.push(await get(admittedCookie))
    expect(answers.map((answer) => answer.body.waitingRoom.reason)).toEqual(Array(6).fill('session'))
    expect(new Set(answers.map((answer) => answer.worker)).size).toBe(2)
  })
})
