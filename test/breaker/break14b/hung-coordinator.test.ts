/**
 * break14b — issue #14 item 5 on the middleware, any adapter: "Admitted users never depend on the coordinator."
 * A coordinator whose every call hangs (never settles) or throws at once, after 3 users were admitted; the clock
 * then crosses minute boundaries (renewals) and reaches 4 minutes (sessions of 5). Every admitted request must be
 * served (reach the handler) and fast (< 50 ms real, far under coordinatorTimeoutMs = 1000) — but for one renewal
 * per worker, which waits for the exchange carrying its move (#14 item 3) until that exchange times out: a session
 * ends D after the last check-in (#15), so every due renewal's confirmed cookie could end before the user's next
 * check-in and the renewal waits as main's did in the cookie's last minute — at most the exchange in flight and its
 * own, each bounded by coordinatorTimeoutMs; the failed exchange then marks the worker failing and nobody waits.
 * Also with the coordinator given as a per-request factory `(c) => adapter`, and with history recording on.
 */
import { describe, expect, it } from 'vitest'
import type { Coordinator } from '../../../src/index.ts'
import { memoryCoordinator, worker, START, MINUTE, settle } from '../harness.ts'

const TIMEOUT_MS = 1000

function switchable() {
  const inner = memoryCoordinator()
  let mode: 'ok' | 'hang' | 'throw' = 'ok'
  const gate = <T>(f: () => Promise<T>): Promise<T> => (mode === 'ok' ? f() : mode === 'hang' ? new Promise<T>(() => {}) : Promise.reject(new Error('down')))
  const coordinator: Coordinator = {
    name: 'switchable',
    preferredSyncIntervalMs: 0,
    increment: (r) => gate(() => inner.increment(r)),
    takeSlot: (r) => gate(() => inner.takeSlot!(r)),
    sync: (r) => gate(() => inner.sync(r)),
    recordHistory: (b) => gate(() => inner.recordHistory!(b)),
    readHistory: (q) => gate(() => inner.readHistory!(q)),
  }
  return { coordinator, set: (m: typeof mode) => { mode = m } }
}

describe('break14b: admitted users while every coordinator call hangs or throws', () => {
  for (const mode of ['hang', 'throw'] as const) for (const factory of [false, true]) {
    it(`${mode}${factory ? ', coordinator as (c) => adapter' : ''}: every admitted request served at once, across minutes`, async () => {
      const clock = { now: START + 5_000 }
      const sw = switchable()
      const w = worker(factory ? (((_c: unknown) => sw.coordinator) as never) : sw.coordinator, clock, { totalActiveUsers: 10, newUsersPerMinute: 10, sessionDurationMinutes: 5, coordinatorTimeoutMs: TIMEOUT_MS })
      const cookies: string[] = []
      for (let i = 0; i < 3; i++) { const r = await w.request(); expect(r.admitted).toBe(true); cookies.push(r.cookie!) }
      await settle()
      sw.set(mode)
      const slow: string[] = []
      const refused: string[] = []
      for (const at of [10_000, 59_900, MINUTE + 100, MINUTE + 30_000, 2 * MINUTE + 1, 3 * MINUTE + 500, 4 * MINUTE]) {
        clock.now = START + at
        for (let i = 0; i < cookies.length; i++) {
          const t = performance.now()
          const r = await w.request(cookies[i], { noSettle: true })
          const ms = performance.now() - t
          if (!r.admitted) refused.push(`user ${i} at +${at} ms: ${r.status}`)
          if (ms > 50) slow.push(`user ${i} at +${at} ms`)
          if (ms > 2 * TIMEOUT_MS + 400) refused.push(`user ${i} at +${at} ms: waited ${Math.round(ms)} ms`)
          if (r.cookie) cookies[i] = r.cookie
        }
      }
      // A renewal waits for its move to be counted (README, Security and reliability): until its exchange times out,
      // once per worker while the coordinator is down (none after a failed report).
      expect(refused).toEqual([])
      expect(slow.length).toBeLessThanOrEqual(mode === 'hang' ? 1 : 0)
    })
  }
})
