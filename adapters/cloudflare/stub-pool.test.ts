/**
 * Cloudflare's retry rules for Durable Object calls, without workerd: a fake namespace whose stubs fail
 * the way the platform's do (`retryable`, `overloaded`), and a recorded backoff instead of real sleeps.
 */
import { describe, expect, it } from 'vitest'
import { WaitingRoomError } from '../../src/errors.ts'
import type { DurableObjectNamespaceLike } from './protocol.ts'
import { backoffMs, isRetryable, StubPool } from './stub-pool.ts'

interface Stub {
  serial: number
  ping(): Promise<string>
}

/** A namespace whose calls fail with `failures` in turn, then succeed; counts the stubs it makes. */
function fakeNamespace(failures: object[]) {
  let made = 0
  const namespace: DurableObjectNamespaceLike & { made(): number } = {
    idFromName: (name) => ({ toString: () => name }),
    get: () => {
      const serial = ++made
      return {
        serial,
        ping: async () => {
          const failure = failures.shift()
          if (failure) throw Object.assign(new Error('Network connection lost.'), failure)
          return `pong from stub ${serial}`
        },
      } satisfies Stub
    },
    made: () => made,
  }
  return namespace
}

const policy = { attempts: 3, retryDelayMs: 20 }

describe('StubPool', () => {
  it('retries retryable errors with growing backoff, on a new stub each time', async () => {
    const namespace = fakeNamespace([{ retryable: true }, { retryable: true }])
    const waits: number[] = []
    const pool = new StubPool<Stub>(namespace, 'WR_COUNTER', { wait: async (ms) => void waits.push(ms) })
    expect(await pool.call('room:SJC', 'ping', (stub) => stub.ping(), policy)).toBe('pong from stub 3')
    expect(namespace.made()).toBe(3)
    expect(waits).toHaveLength(2)
    expect(waits[0]).toBeGreaterThanOrEqual(10)
    expect(waits[0]).toBeLessThanOrEqual(30)
    expect(waits[1]).toBeGreaterThanOrEqual(20)
    expect(waits[1]).toBeLessThanOrEqual(60)
  })

  it('never retries an overloaded object or an error of its own code, and names the call and the fix', async () => {
    for (const failure of [{ retryable: true, overloaded: true }, {}]) {
      const namespace = fakeNamespace([failure])
      const pool = new StubPool<Stub>(namespace, 'WR_COUNTER', { wait: async () => expect.fail('no retry expected') })
      const error = await pool.call('room:SJC', 'ping', (stub) => stub.ping(), policy).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(WaitingRoomError)
      expect((error as WaitingRoomError).code).toBe('ERR_WR_COORDINATOR')
      expect((error as Error).message).toContain('cloudflare: ping on Durable Object "room:SJC" (WR_COUNTER) failed: Network connection lost.')
      expect((error as Error).message).toContain('wrangler.jsonc')
      // The next call does not reuse the stub that threw.
      expect(await pool.call('room:SJC', 'ping', (stub) => stub.ping(), policy)).toBe('pong from stub 2')
    }
  })

  it('gives up after `attempts` and says so', async () => {
    const namespace = fakeNamespace([{ retryable: true }, { retryable: true }, { retryable: true }])
    const pool = new StubPool<Stub>(namespace, 'WR_COUNTER', { wait: async () => {} })
    const error = await pool.call('room:SJC', 'ping', (stub) => stub.ping(), policy).catch((e: unknown) => e)
    expect((error as Error).message).toContain('failed after 3 attempts')
  })

  it('keeps stubs between calls only when asked (inside a Durable Object), ids always', async () => {
    const perCall = fakeNamespace([])
    const workerPool = new StubPool<Stub>(perCall, 'WR_COUNTER')
    await workerPool.call('a', 'ping', (stub) => stub.ping(), policy)
    await workerPool.call('a', 'ping', (stub) => stub.ping(), policy)
    expect(perCall.made()).toBe(2)
    const reused = fakeNamespace([])
    const objectPool = new StubPool<Stub>(reused, 'WR_COUNTER', { reuseStubs: true })
    await objectPool.call('a', 'ping', (stub) => stub.ping(), policy)
    await objectPool.call('a', 'ping', (stub) => stub.ping(), policy)
    expect(reused.made()).toBe(1)
  })

  it('reads the platform flags', () => {
    expect(isRetryable({ retryable: true })).toBe(true)
    expect(isRetryable({ retryable: true, overloaded: true })).toBe(false)
    expect(isRetryable(new Error('x'))).toBe(false)
    expect(isRetryable(undefined)).toBe(false)
    expect(backoffMs(3, policy, 0.5)).toBe(80)
  })
})
