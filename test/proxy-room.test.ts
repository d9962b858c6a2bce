/// <reference types="node" />
/**
 * Issue 2's "Done when" for the proxy, over real sockets with a fake clock: with limits 5/5, at most 5 of
 * 50 concurrent cookieless users get in, the rest get the queue page with a wait; an admitted cookie keeps
 * working for its session; as sessions expire, queued users get in, oldest bucket first.
 */
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Listening } from '../bin/listen.ts'
import { MINUTE_MS } from '../src/clock.ts'
import { CookieJar, serveApp, serveProxy } from './proxy-servers.ts'

const START = 29_000_000 * MINUTE_MS + 1_000 // 1 s into a minute
let now = START
const minuteIndex = (): number => Math.floor((now - START + 1_000) / MINUTE_MS) // 0 for the first minute

let origin: Listening
let proxy: Listening
let originHits = 0

beforeAll(async () => {
  const app = new Hono().get('*', (c) => {
    originHits++
    return c.text('origin page')
  })
  origin = await serveApp(app)
  proxy = await serveProxy({
    origin: origin.url,
    room: { totalActiveUsers: 5, newUsersPerMinute: 5, sessionDurationMinutes: 1, refreshIntervalSeconds: 20, clock: () => now },
  })
})

afterAll(async () => {
  await proxy?.close()
  await origin?.close()
})

interface Visitor {
  name: string
  jar: CookieJar
  /** Minute index in which the visitor got in; undefined while queued. */
  admittedIn?: number
}

const visit = (visitor: Visitor) => visitor.jar.fetch(`${proxy.url}/page`, { headers: { accept: 'text/html' } })

/** Whether the response came from the origin (admitted) or is the queue page. */
async function outcome(response: Response): Promise<'origin' | 'queue'> {
  const body = await response.text()
  if (body === 'origin page') return 'origin'
  expect(body).toContain('id="wait-time"')
  return 'queue'
}

describe('proxy with limits 5/5 in front of an origin', () => {
  const groupA: Visitor[] = Array.from({ length: 50 }, (_, i) => ({ name: `a${i}`, jar: new CookieJar() }))
  const groupB: Visitor[] = Array.from({ length: 5 }, (_, i) => ({ name: `b${i}`, jar: new CookieJar() }))

  it('admits at most 5 of 50 concurrent cookieless users and queues the rest with the queue page', async () => {
    const responses = await Promise.all(groupA.map(visit))
    const results = await Promise.all(responses.map(outcome))
    results.forEach((result, i) => {
      if (result === 'origin') groupA[i]!.admittedIn = 0
    })
    expect(results.filter((result) => result === 'origin')).toHaveLength(5)
    expect(originHits).toBe(5)

    const queued = responses.filter((_, i) => results[i] === 'queue')
    expect(queued).toHaveLength(45)
    for (const response of queued) {
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toContain('text/html')
      expect(Number(response.headers.get('refresh'))).toBeGreaterThanOrEqual(18)
      expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('__wroom='))).toBe(true)
    }
    // Every visitor holds a ticket now, admitted or queued.
    for (const visitor of groupA) expect(visitor.jar.cookies.has('__wroom')).toBe(true)
  })

  it('queue page states the wait', async () => {
    const queued = groupA.find((visitor) => visitor.admittedIn === undefined)!
    now += 21_000 // past the refresh interval, so this is a real check-in
    const response = await visit(queued)
    const page = await response.text()
    const wait = /id="wait-time">([^<]+)</.exec(page)?.[1]
    expect(wait).toMatch(/\d/) // a number of minutes, not "unknown"
  })

  it('an admitted cookie keeps working for the session', async () => {
    const admitted = groupA.filter((visitor) => visitor.admittedIn === 0)
    for (let step = 0; step < 3; step++) {
      now += 25_000 // across the minute boundary: the ticket is renewed, still no queue
      for (const visitor of admitted) expect(await outcome(await visit(visitor))).toBe('origin')
    }
  })

  it('lets queued users in as sessions expire, oldest bucket first, at most 5 a minute', async () => {
    // The admitted users leave now. Latecomers arrive in a later minute than everyone in group A.
    const admittedFirst = new Set(groupA.filter((visitor) => visitor.admittedIn === 0))
    const latecomersMinute = minuteIndex()
    expect(latecomersMinute).toBeGreaterThan(0)
    for (const visitor of groupB) expect(await outcome(await visit(visitor))).toBe('queue')

    const admissionsPerMinute = new Map<number, number>()
    for (let round = 0; round < 60; round++) {
      now += 21_000 // every queued user checks in once per refresh interval (20 s ± 10%)
      const waiting = [...groupA, ...groupB].filter((visitor) => visitor.admittedIn === undefined)
      if (waiting.length === 0) break
      const results = await Promise.all(waiting.map(async (visitor) => [visitor, await outcome(await visit(visitor))] as const))
      for (const [visitor, result] of results) {
        if (result !== 'origin') continue
        visitor.admittedIn = minuteIndex()
        admissionsPerMinute.set(visitor.admittedIn, (admissionsPerMinute.get(visitor.admittedIn) ?? 0) + 1)
      }
    }

    // Everyone got in eventually, never more than 5 in one minute.
    for (const visitor of [...groupA, ...groupB]) expect(visitor.admittedIn, visitor.name).toBeDefined()
    for (const count of admissionsPerMinute.values()) expect(count).toBeLessThanOrEqual(5)
    // Oldest first: every queued user of the first minute got in no later than any latecomer did.
    const lastOfA = Math.max(...groupA.filter((visitor) => !admittedFirst.has(visitor)).map((visitor) => visitor.admittedIn!))
    const firstOfB = Math.min(...groupB.map((visitor) => visitor.admittedIn!))
    expect(lastOfA).toBeLessThanOrEqual(firstOfB)
    // Never more than 5 active: a 1-minute session admitted in minute m still counts in minute m + 1.
    for (const [minute, count] of admissionsPerMinute) {
      expect(count + (admissionsPerMinute.get(minute - 1) ?? 0)).toBeLessThanOrEqual(5)
    }
  })
})
