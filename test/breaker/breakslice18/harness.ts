/**
 * breakslice18 harness: black-box workers over the public API (waitingRoom(), adapters), a fake clock, and the
 * cookie's own attributes (Max-Age / Expires) so probes can compare what the browser is told with what the room does.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono } from 'hono'
import { waitingRoom, type Coordinator, type WaitingRoomEnv, type WaitingRoomOptions } from '../../../src/index.ts'
import { memoryCoordinator } from '../../../adapters/memory/index.ts'
import { sqliteStoreCoordinator } from '../../../adapters/bun-sqlite/node.ts'
import { fromNodeRedis, redisCoordinator } from '../../../adapters/upstash/index.ts'
import { connectTestRedis, deleteKeys, testPrefix, type TestRedis } from '../../../adapters/upstash/test/redis.ts'

export const MINUTE = 60_000
export const SECRET = 'breakslice18-secret-0123456789-abcdefghij'
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
export const settle = () => new Promise((r) => setImmediate(r))

export type Backend = 'memory' | 'sqlite' | 'redis'
let redis: TestRedis | undefined
const prefixes: string[] = []

/** A fresh store; for Redis and SQLite `another()` gives a second client on the same store (a second process). */
export async function backendFor(backend: Backend): Promise<{ coordinator: Coordinator; another: () => Coordinator }> {
  if (backend === 'memory') {
    const c = memoryCoordinator()
    return { coordinator: c, another: () => c }
  }
  if (backend === 'sqlite') {
    const file = join(mkdtempSync(join(tmpdir(), 'bs18-')), 'room.db')
    return { coordinator: sqliteStoreCoordinator(file), another: () => sqliteStoreCoordinator(file) }
  }
  redis ??= await connectTestRedis()
  const prefix = testPrefix('bs18')
  prefixes.push(prefix)
  const client = redis
  return { coordinator: redisCoordinator(fromNodeRedis(client), { prefix }), another: () => redisCoordinator(fromNodeRedis(client), { prefix }) }
}
export async function closeBackends() {
  if (!redis) return
  for (const p of prefixes.splice(0)) await deleteKeys(redis, p).catch(() => {})
  await redis.quit().catch(() => {})
  redis = undefined
}

export interface Answer {
  status: number
  admitted: boolean
  reason: string
  ticketId: string
  /** the cookie to send next (the fresh one if set, else the one sent) */
  cookie: string | undefined
  /** the Set-Cookie attributes of a fresh ticket cookie, if one was set */
  maxAge: number | undefined
  expires: number | undefined
  set: string | undefined
  json: any
  /** seconds of the Refresh header of a queued answer */
  refresh: number | undefined
}

export type Clock = { now: number }

/** One worker: a Hono app with the room; the origin echoes the room's reason and ticket id. */
export function worker(coordinator: Coordinator, clock: Clock, options: WaitingRoomOptions) {
  const app = new Hono<WaitingRoomEnv>()
  app.use('*', waitingRoom({ secret: SECRET, clock: () => clock.now, coordinator, jsonResponseEnabled: true, ...options }))
  app.all('*', (c) => {
    c.header('x-reason', c.get('waitingRoom').reason)
    c.header('x-ticket', c.get('waitingRoom').ticketId ?? '')
    return c.text('origin')
  })
  return async (cookie: string | undefined): Promise<Answer> => {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (cookie) headers.cookie = `__wroom=${cookie}`
    const res = await app.request('/', { headers })
    const text = await res.text()
    let json: any
    try { json = JSON.parse(text) } catch { json = undefined }
    const reason = res.headers.get('x-reason')
    const set = res.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    const value = set ? set.slice(8, set.indexOf(';')) : undefined
    const maxAgeMatch = set?.match(/Max-Age=(-?\d+)/i)
    const expiresMatch = set?.match(/Expires=([^;]+)/i)
    return {
      status: res.status,
      admitted: reason !== null,
      reason: reason ?? 'queued',
      ticketId: res.headers.get('x-ticket') ?? '',
      cookie: value === '' ? undefined : (value ?? cookie),
      maxAge: maxAgeMatch ? Number(maxAgeMatch[1]) : undefined,
      expires: expiresMatch ? Date.parse(expiresMatch[1]!) : undefined,
      set,
      json,
      refresh: res.headers.get('refresh') === null ? undefined : Number(res.headers.get('refresh')),
    }
  }
}

/** Refresh header seconds of a queued answer (the room's own suggestion of when to come back). */
export function refreshOf(answer: Answer, fallbackSeconds = 20): number {
  return answer.refresh ?? answer.json?.waitingRoom?.refreshIntervalSeconds ?? fallbackSeconds
}

/** A seeded generator (mulberry-like) for schedules a failing case can be rerun from. */
export function rng(seed: number) {
  let x = (seed * 2654435761 + 1) >>> 0
  return () => ((x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x6d2b79f5) >>> 0) / 2 ** 32)
}
export const pick = (random: () => number, low: number, high: number) => low + Math.floor(random() * (high - low + 1))

/** A worker's request function, as {@link worker} returns it. */
export type Send = (cookie: string | undefined) => Promise<Answer>

/**
 * A queued rival who checks in whenever the room's Refresh says, each time at the worker `at` picks: `until(t)` makes
 * the check-ins due by `t` (moving the clock to each) and stops once one is admitted, at `admittedAt`.
 */
export function rivalOf(first: Answer, clock: Clock, at: () => Send, pause: () => Promise<void>) {
  let cookie = first.cookie
  let next = clock.now + refreshOf(first) * 1000
  const rival = {
    admittedAt: undefined as number | undefined,
    async until(t: number): Promise<void> {
      while (rival.admittedAt === undefined && next <= t) {
        clock.now = next
        const r = await at()(cookie)
        await pause()
        cookie = r.cookie
        if (r.admitted) rival.admittedAt = clock.now
        else next = clock.now + refreshOf(r) * 1000
      }
    },
  }
  return rival
}

/** The indexes of `cookies` that are still a session of `ticketId` when sent now, each at the worker `at` picks. */
export async function stillSessions(cookies: string[], ticketId: string, at: () => Send, pause: () => Promise<void>): Promise<number[]> {
  const live: number[] = []
  for (const [i, old] of cookies.entries()) {
    const o = await at()(old)
    await pause()
    if (o.admitted && o.ticketId === ticketId) live.push(i)
  }
  return live
}
