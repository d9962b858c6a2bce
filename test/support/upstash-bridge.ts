/// <reference types="node" />
/**
 * @module
 * A small Upstash-REST-compatible server for tests, in front of a real redis-server: `@upstash/redis`
 * talks to it exactly as to Upstash, so the REST path runs for real without a network beyond loopback.
 *
 * What it speaks (Upstash's REST API, the parts `@upstash/redis` uses):
 * - `POST /` with a JSON command array → `{ result }`, or HTTP 400 `{ error }` for a Redis error.
 * - `POST /pipeline` with an array of command arrays → an array of `{ result }` / `{ error }`.
 * - `Authorization: Bearer <token>`, else 401 `{ error: 'Unauthorized' }`.
 * - `Upstash-Encoding: base64` (the client's default): every string in a result is base64 UTF-8.
 *
 * For fault tests it can drop a connection after a command ran, before the reply (a lost reply).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createClient } from 'redis'

export interface UpstashBridgeOptions {
  /** Redis to forward to. Default `redis://127.0.0.1:6379`. */
  redisUrl?: string
  /** Database number: tests keep to their own. Default 0. */
  database?: number
  /** Bearer token clients must send. Default `bridge-token`. */
  token?: string
}

export interface UpstashBridge {
  /** Base URL for `new Redis({ url, token })`. */
  url: string
  token: string
  /** HTTP requests answered or dropped: the round trips clients made. */
  readonly requests: number
  /** Commands run on Redis (each command of a pipeline counts). */
  readonly executed: number
  /** Runs the next `count` commands that `match` (default: any) and drops their replies: a lost reply. */
  dropReplies(count: number, match?: (command: string[]) => boolean): void
  close(): Promise<void>
}

type Reply = string | number | null | Reply[]

const encode = (value: Reply): Reply =>
  typeof value === 'string' ? Buffer.from(value, 'utf8').toString('base64') : Array.isArray(value) ? value.map(encode) : value

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

export async function startUpstashBridge(options: UpstashBridgeOptions = {}): Promise<UpstashBridge> {
  const token = options.token ?? 'bridge-token'
  // RESP2: replies are plain strings, numbers, arrays and null, as Upstash's JSON has them.
  const redis = createClient({
    url: options.redisUrl ?? 'redis://127.0.0.1:6379',
    database: options.database ?? 0,
    RESP: 2,
    socket: { connectTimeout: 2000, reconnectStrategy: false },
  })
  redis.on('error', () => {}) // a lost connection surfaces as failed commands, answered as `{ error }`
  await redis.connect()
  let requests = 0
  let executed = 0
  let drops: { count: number; match: ((command: string[]) => boolean) | undefined } = { count: 0, match: undefined }

  const run = async (command: unknown): Promise<{ result?: Reply; error?: string; drop: boolean }> => {
    if (!Array.isArray(command) || command.length === 0) return { error: 'ERR invalid command', drop: false }
    const args = command.map(String)
    const drop = drops.count > 0 && (drops.match === undefined || drops.match(args))
    if (drop) drops.count--
    executed++
    try {
      return { result: (await redis.sendCommand(args)) as Reply, drop }
    } catch (error) {
      return { error: (error as Error).message, drop }
    }
  }

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    requests++
    const send = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    }
    if (request.method !== 'POST') return send(405, { error: 'ERR only POST is supported' })
    if (request.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'Unauthorized' })
    const base64 = String(request.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64'
    const answer = (outcome: { result?: Reply; error?: string }) =>
      outcome.error !== undefined ? { error: outcome.error } : { result: base64 ? encode(outcome.result ?? null) : (outcome.result ?? null) }
    let body: unknown
    try {
      body = await readJson(request)
    } catch {
      return send(400, { error: 'ERR failed to parse the JSON body' })
    }
    const path = (request.url ?? '/').split('?')[0]
    if (path === '/pipeline' || path === '/multi-exec') {
      if (!Array.isArray(body)) return send(400, { error: 'ERR a pipeline is an array of commands' })
      const outcomes = []
      for (const command of body) outcomes.push(await run(command))
      if (outcomes.some((outcome) => outcome.drop)) return void request.socket.destroy()
      return send(200, outcomes.map(answer))
    }
    const outcome = await run(body)
    if (outcome.drop) return void request.socket.destroy() // the command ran; its reply is lost
    send(outcome.error !== undefined ? 400 : 200, answer(outcome))
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(JSON.stringify({ error: String(error) }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    get requests() {
      return requests
    },
    get executed() {
      return executed
    },
    dropReplies(count, match) {
      drops = { count, match }
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await redis.close()
    },
  }
}
