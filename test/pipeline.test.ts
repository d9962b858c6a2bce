/**
 * The request pipeline's stages, each on its own: a `Room` built from options, then session → decide →
 * respond as plain functions of `(room, c, …)`, driven through a one-route Hono app so each sees a real Context.
 */
import { Hono, type Context } from 'hono'
import { describe, expect, it } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { resolveOptions, type ResolvedOptions, type WaitingRoomOptions } from '../src/room/options.ts'
import { decide } from '../src/room/pipeline/decide.ts'
import { queueResponse, statusFor } from '../src/room/pipeline/respond.ts'
import { continueSession, readTicket } from '../src/room/pipeline/session.ts'
import { Room } from '../src/room/room.ts'
import { START, TEST_SECRET } from './support/room-harness.ts'

const MINUTE = 60_000

function roomOf(options: WaitingRoomOptions = {}): Room {
  return new Room(resolveOptions({ secret: TEST_SECRET, coordinator: memoryCoordinator(), ...options }) as unknown as ResolvedOptions)
}

/** Runs `body` with a real Context for a request carrying `cookie`. */
async function withContext<T>(room: Room, body: (c: Context) => Promise<T>, cookie?: string, method = 'GET'): Promise<{ value: T; response: Response }> {
  let value!: T
  const app = new Hono()
  app.all('*', async (c) => {
    value = await body(c)
    if (value instanceof Response) return value
    return c.res.status === 404 ? c.text('done') : c.res
  })
  const response = await app.request('/', { method, headers: cookie ? { cookie: `${room.o.cookieName}=${cookie}` } : {} })
  return { value, response }
}

const cookieOf = (response: Response, room: Room): string | undefined => {
  const set = response.headers.get('set-cookie')
  return set?.startsWith(`${room.o.cookieName}=`) ? set.slice(room.o.cookieName.length + 1, set.indexOf(';')) : undefined
}

describe('respond: statusFor', () => {
  it('keeps the room code for reads and never answers a write with 200', () => {
    for (const code of [200, 202, 429] as const) {
      expect(statusFor('GET', code)).toBe(code)
      expect(statusFor('HEAD', code)).toBe(code)
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) expect(statusFor(method, code)).toBe(code === 200 ? 503 : code)
    }
  })
})

describe('decide, then session', () => {
  it('admits under the limit, queues past it, and a too-early check-in is answered undecided', async () => {
    const room = roomOf({ totalActiveUsers: 1, newUsersPerMinute: 1, clock: () => START })
    const s = room.settings.at(START)
    const first = await withContext(room, (c) => decide(room, c, s, undefined, START))
    expect(first.value.outcome).toBe('admitted')
    expect(first.value.reason).toBe('slot')
    const second = await withContext(room, (c) => decide(room, c, s, undefined, START))
    expect(second.value.outcome).toBe('queued')
    const ticket = { roomId: room.o.roomId, ticketId: second.value.ticketId, bucketId: second.value.bucketId!, acceptedAt: 0, lastCheckInTime: START, refreshIntervalSeconds: 20 }
    const early = await withContext(room, (c) => decide(room, c, s, ticket, START + 5000))
    expect(early.value.reason).toBe('too-early')
    expect(early.value.refresh).toBe(15)
  })

  it('readTicket opens a sealed ticket; continueSession renews it into the new minute', async () => {
    let now = START
    const room = roomOf({ clock: () => now })
    const s = room.settings.at(now)
    const ticket = { roomId: room.o.roomId, ticketId: 'abc', bucketId: 0, acceptedAt: START, lastCheckInTime: START, refreshIntervalSeconds: 0 }
    const sealed = await withContext(room, async (c) => {
      await room.setTicket(c, ticket, now, s)
      return undefined
    })
    const cookie = cookieOf(sealed.response, room)!
    now = START + MINUTE + 1
    const read = await withContext(room, (c) => readTicket(room, c, now, s), cookie)
    expect(read.value.ticket?.ticketId).toBe('abc')
    const renewed = await withContext(room, (c) => continueSession(room, c, read.value.ticket!, false, now, s), cookie)
    expect(renewed.value).toBe(Math.floor(now / MINUTE))
    expect(cookieOf(renewed.response, room)).toBeDefined()
    // Garbage is a new user, never an error.
    expect((await withContext(room, (c) => readTicket(room, c, now, s), 'not-a-ticket')).value.ticket).toBeUndefined()
  })

  it('queueResponse renders the page for reads and a refusal for writes', async () => {
    const room = roomOf({ queueingStatusCode: 200 })
    const s = room.settings.at(START)
    const view = { snapshot: undefined, bucketId: 5, refresh: 20, newlyQueued: true }
    const page = await withContext(room, async (c) => queueResponse(room, c, s, view, START))
    const write = await withContext(room, async (c) => queueResponse(room, c, s, view, START), undefined, 'POST')
    expect(page.response.status).toBe(200)
    expect(page.response.headers.get('refresh')).toBe('20')
    expect(write.response.status).toBe(503)
    expect(write.response.headers.get('retry-after')).toBe('20')
  })
})
