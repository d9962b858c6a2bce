/**
 * breakbatch17 guarantee 5 (nothing else regressed): an operator instruments the Redis coordinator with a generic
 * method-wrapping Proxy (timing / tracing every call — a common pattern). On main every new user is decided
 * ('slot'). On batch17 the adapter defines `takeSlots` with Object.defineProperty (non-writable, non-configurable),
 * so the Proxy's get trap returning a wrapper violates the Proxy invariant: reading `takeSlots` throws a TypeError,
 * the slot call fails and every new user gets failMode ('fail-closed' / 'fail-open': limits bypassed).
 */
import { afterAll, describe, expect, it } from 'vitest'
import type { Coordinator } from '../../../src/index.ts'
import { connect, minuteStart, process, redisProcess, type Client } from './fleet.ts'

const clients: Client[] = []
afterAll(async () => { for (const c of clients) await c.quit().catch(() => {}) })

function instrumented(inner: Coordinator, seen: string[]): Coordinator {
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => { seen.push(String(key)); return value.apply(target, args) }
    },
  })
}

describe('breakbatch17: a method-wrapping Proxy around the Redis coordinator still decides new users', () => {
  for (const failMode of ['closed', 'open'] as const) {
    for (const burst of [1, 3, 70]) {
      it(`failMode ${failMode}, burst ${burst}, n 2: exactly 2 'slot', the rest 'no-slot'`, async () => {
        const client = await connect()
        clients.push(client)
        const seen: string[] = []
        const coordinator = instrumented(redisProcess(client, `wrtest-bb17x-${crypto.randomUUID().slice(0, 8)}`), seen)
        const proc = process(coordinator, { now: minuteStart() }, 'bb17-proxy', { totalActiveUsers: 100, newUsersPerMinute: 2, sessionDurationMinutes: 30, failMode, coordinatorTimeoutMs: 3000, syncIntervalMs: 0 })
        const answers = await Promise.all(Array.from({ length: burst }, () => proc()))
        const reasons = answers.map((a) => a.reason)
        expect(reasons, JSON.stringify({ reasons, seen: [...new Set(seen)] })).toEqual([...Array(Math.min(2, burst)).fill('slot'), ...Array(Math.max(0, burst - 2)).fill('no-slot')])
      }, 30_000)
    }
  }
})
