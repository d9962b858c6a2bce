/**
 * A coordinator outage: new users follow `failMode`, admitted users never notice, logs stay quiet, and
 * the counts reconcile by themselves afterwards.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import type { Coordinator } from '../src/coordination/coordinator.ts'
import { buildSnapshot } from '../src/admission/snapshot.ts'
import { roomHarness, settle } from './support/room-harness.ts'

/** A coordinator that can be switched to failing (rejecting) or hanging. */
function breakable(inner: Coordinator) {
  const mode = { now: 'ok' as 'ok' | 'fail' | 'hang' }
  const act = <T>(call: () => Promise<T>): Promise<T> =>
    mode.now === 'ok' ? call() : mode.now === 'fail' ? Promise.reject(new Error('connection refused')) : new Promise<T>(() => {})
  const coordinator: Coordinator = {
    name: 'breakable',
    preferredSyncIntervalMs: 0,
    increment: (request) => act(() => inner.increment(request)),
    sync: (report) => act(() => inner.sync(report)),
  }
  return { coordinator, mode }
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('failMode', () => {
  it('closed (the default): new users get the queue page, admitted users keep going, nothing is a 5xx', async () => {
    const { coordinator, mode } = breakable(memoryCoordinator())
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const room = roomHarness({ totalActiveUsers: 100, coordinator })
    const admitted = await room.visit()
    mode.now = 'fail'
    for (let i = 0; i < 20; i++) {
      const visit = await room.visit()
      expect(visit.status).toBe(200)
      expect(visit.outcome).toBe('queued')
      expect(visit.response.headers.get('x-origin')).toBeNull()
    }
    for (let i = 0; i < 5; i++) expect((await room.visit(admitted.cookie)).outcome).toBe('admitted')
    expect(room.room.metrics.decisions['fail-closed']).toBe(20)
    // One log line for the whole minute of failures, another in the next minute.
    expect(warn.mock.calls.filter(([m]) => String(m).includes('coordinator error')).length).toBe(1)
    room.advance(60_000)
    await room.visit()
    expect(warn.mock.calls.filter(([m]) => String(m).includes('coordinator error')).length).toBe(2)
  })

  it('open: new users are admitted during the outage, and the counts reconcile once it is over', async () => {
    const inner = memoryCoordinator()
    const { coordinator, mode } = breakable(inner)
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const room = roomHarness({ totalActiveUsers: 100, coordinator, failMode: 'open' })
    await room.visit() // a first sync, so the worker has state
    mode.now = 'fail'
    for (let i = 0; i < 10; i++) expect((await room.visit()).body).toBe('origin fail-open')
    expect(room.room.metrics.decisions['fail-open']).toBe(10)
    expect(room.room.link.errors).toBeGreaterThan(0)
    mode.now = 'ok'
    room.advance(10_000) // past the backed-off report interval
    await room.visit()
    await settle()
    const state = await inner.sync({ id: 'probe', roomId: 'default', location: 'local', at: room.clock.now, keepMinutes: 10, deltas: {} })
    expect(buildSnapshot(state, room.clock.now, 5).activeUsers).toBe(12) // 1 + 10 during the outage + 1 after
  })

  it('a coordinator that hangs times out and follows the fail mode', async () => {
    const { coordinator, mode } = breakable(memoryCoordinator())
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const room = roomHarness({ totalActiveUsers: 100, coordinator, coordinatorTimeoutMs: 30 })
    await room.visit()
    mode.now = 'hang'
    const started = Date.now()
    const visit = await room.visit()
    expect(visit.outcome).toBe('queued')
    expect(Date.now() - started).toBeLessThan(1000)
  })

  it('a cold start during an outage follows the fail mode too', async () => {
    const { coordinator, mode } = breakable(memoryCoordinator())
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    mode.now = 'fail'
    const closed = roomHarness({ coordinator })
    expect((await closed.visit()).outcome).toBe('queued')
    const open = roomHarness({ coordinator, failMode: 'open' })
    expect((await open.visit()).outcome).toBe('admitted')
  })

  it('a slot taken whose reply was lost is counted once, when the queued user comes back for it', async () => {
    const inner = memoryCoordinator()
    let loseNextReply = false
    const coordinator: Coordinator = {
      name: 'lossy',
      preferredSyncIntervalMs: 0,
      sync: (report) => inner.sync(report),
      async increment(request) {
        const result = await inner.increment(request) // the slot is taken…
        if (loseNextReply) {
          loseNextReply = false
          throw new Error('reply lost') // …but the answer never arrives
        }
        return result
      },
    }
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    const room = roomHarness({ totalActiveUsers: 10, coordinator, refreshIntervalSeconds: 5 })
    loseNextReply = true
    const first = await room.visit()
    expect(first.outcome).toBe('queued') // failMode closed
    room.advance(5_000)
    const back = await room.visit(first.cookie)
    expect(back.outcome).toBe('admitted')
    const state = await inner.sync({ id: 'probe', roomId: 'default', location: 'local', at: room.clock.now, keepMinutes: 10, deltas: {} })
    expect(buildSnapshot(state, room.clock.now, 5).activeUsers).toBe(1)
    expect(buildSnapshot(state, room.clock.now, 5).admittedThisMinute).toBe(1)
  })
})
