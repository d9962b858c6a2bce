/** breakbatch17 support: "processes" = waitingRoom() apps, each with its OWN Redis connection + coordinator, one shared room. */
import { Hono } from 'hono'
import { createClient } from 'redis'
import { waitingRoom, type Coordinator, type WaitingRoomEnv, type WaitingRoomOptions } from '../../../src/index.ts'
import { fromNodeRedis, redisCoordinator, SCRIPTS, type RedisScripting } from '../../../adapters/upstash/index.ts'

export const MINUTE = 60_000
export const SECRET = 'breakbatch17-secret-0123456789-abcdefghij'
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function connect(url = 'redis://127.0.0.1:6379/13') {
  const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } })
  client.on('error', () => {})
  await client.connect()
  return client
}
export type Client = Awaited<ReturnType<typeof connect>>

export function process(coordinator: Coordinator, clock: { now: number }, roomId: string, options: WaitingRoomOptions) {
  const app = new Hono<WaitingRoomEnv>()
  // The decision of a queued user too (its page says no reason): read after the room answered.
  app.use('*', async (c, next) => { await next(); const d = c.get('waitingRoom'); if (d) c.header('x-reason', `${d.reason} ${d.ticketId ?? ''}`) })
  app.use('*', waitingRoom({ secret: SECRET, roomId, clock: () => clock.now, coordinator, location: (c) => c.req.header('x-loc') ?? 'none', ...options }))
  app.all('*', (c) => c.text(`${c.get('waitingRoom').reason} ${c.get('waitingRoom').ticketId ?? ''}`))
  return async (cookie?: string, location = 'none') => {
    const headers: Record<string, string> = { 'x-loc': location }
    if (cookie) headers.cookie = `__wroom=${cookie}`
    const response = await app.request('/', { headers })
    await response.text()
    const [reason, ticketId] = (response.headers.get('x-reason') ?? 'none').split(' ')
    const set = response.headers.getSetCookie().find((c) => c.startsWith('__wroom='))
    const fresh = set ? set.slice(8, set.indexOf(';')) || undefined : undefined
    return { status: response.status, admitted: reason === 'slot' || reason === 'session' || reason === 'fail-open', reason: reason!, ticketId: ticketId ?? '', fresh }
  }
}

export const redisProcess = (client: Client, prefix: string) => redisCoordinator(fromNodeRedis(client), { prefix })

/**
 * A Redis coordinator whose slot-script calls are counted at the driver (`RedisScripting`), below the coordinator:
 * `scripts` = script calls, `requests` = the requests they carried (ARGV after the batch's header and profiles).
 */
export function countingRedis(client: Client, prefix: string) {
  const slotSha = SCRIPTS.find((s) => s.name === 'takeSlot')!.sha1
  const calls = { scripts: 0 }
  const inner = fromNodeRedis(client)
  const scripting: RedisScripting = {
    evalsha: (sha, keys, args) => { if (sha === slotSha) calls.scripts++; return inner.evalsha(sha, keys, args) },
    eval: (script, keys, args) => inner.eval(script, keys, args),
  }
  return { coordinator: redisCoordinator(scripting, { prefix }), calls }
}

/** Counts takeSlots / takeSlot calls and the requests in them (a Proxy: takeSlots is not enumerable). */
export function counting(inner: Coordinator) {
  const calls = { takeSlots: [] as number[], takeSlot: 0 }
  const proxy = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (key === 'takeSlots' && typeof value === 'function') return (rs: unknown[]) => { calls.takeSlots.push(rs.length); return value.call(target, rs) }
      if (key === 'takeSlot' && typeof value === 'function') return (r: unknown) => { calls.takeSlot++; return value.call(target, r) }
      return value
    },
  })
  return { coordinator: proxy as Coordinator, calls }
}

export const minuteStart = () => (29_000_000 + Math.floor(Math.random() * 100_000) * 10) * MINUTE + 1_000
