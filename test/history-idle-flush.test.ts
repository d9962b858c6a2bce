/**
 * A worker that goes idle still writes its last seconds of history: a trailing timer writes them once the
 * flush interval is over (unref'd: it never keeps a Node process alive), and `room.flush()` writes them at once.
 */
import { Hono } from 'hono'
import { createStorage } from 'unstorage'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { waitingRoom, waitingRoomAdmin, type WaitingRoomEnv } from '../src/index.ts'
import { memoryCoordinator } from '../adapters/memory/index.ts'
import { HistoryRecorder } from '../src/history/recorder.ts'

const TOKEN = 'history-idle-token-0123456789abcdef'
const START = Date.UTC(2026, 10, 30, 12, 0, 0)
const MINUTE = 60_000
const settle = () => new Promise((r) => setImmediate(r))

function fleet(clock: { now: number }) {
  const coordinator = memoryCoordinator()
  const storage = createStorage()
  const roomId = `idle-history-${Math.random()}`
  const mk = () => {
    const room = waitingRoom({ secret: 'history-idle-secret-0123456789-abcdefg', clock: () => clock.now, coordinator, storage, roomId, totalActiveUsers: 100 })
    const app = new Hono<WaitingRoomEnv>()
    app.route('/_room', waitingRoomAdmin(room, { token: TOKEN }))
    app.use('/*', room)
    app.all('*', (c) => c.text('origin'))
    return { app, room }
  }
  return [mk(), mk()] as const
}
async function arrivalsInFirstMinute(app: Hono<WaitingRoomEnv>): Promise<number> {
  const res = await app.request(`/_room/analytics?from=${START}&to=${START + 2 * MINUTE}`, { headers: { authorization: `Bearer ${TOKEN}` } })
  return ((await res.json()) as { points: { arrivals: number }[] }).points[0]!.arrivals
}

afterEach(() => {
  vi.useRealTimers()
})

describe('history of an idle worker', () => {
  for (const arrivals of [1, 5, 9]) {
    it(`${arrivals} arrivals in a worker's last seconds are written by its trailing timer`, async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate'] })
      const clock = { now: START + 1000 }
      const [a, b] = fleet(clock)
      for (let i = 0; i < arrivals; i++) {
        await (await b.app.request('/')).text()
        await vi.advanceTimersByTimeAsync(0)
        clock.now += 1000
      }
      clock.now = START + 60 * MINUTE
      await vi.advanceTimersByTimeAsync(10_000) // b sees no request: only its timer can write
      expect(await arrivalsInFirstMinute(a.app)).toBe(arrivals)
    })
  }

  it('room.flush() writes pending history at once', async () => {
    const clock = { now: START + 1000 }
    const [a, b] = fleet(clock)
    for (let i = 0; i < 4; i++) {
      await (await b.app.request('/')).text()
      await settle()
      clock.now += 1000
    }
    await b.room.room.flush()
    expect(b.room.room.history?.pendingRows).toBe(0)
    clock.now = START + 60 * MINUTE
    expect(await arrivalsInFirstMinute(a.app)).toBe(4)
  })

  it('the trailing timer never keeps a Node process alive (unref\'d), and still writes', async () => {
    let now = START
    const written: number[] = []
    const recorder = new HistoryRecorder({ roomId: 'unref', retentionMinutes: 60, flushIntervalMs: 50, clock: () => now })
    const coordinator = { recordHistory: async (batch: { rows: unknown[] }) => void written.push(batch.rows.length) }
    recorder.arrived(now, 'here')
    recorder.maybeFlush(coordinator, now) // due: written at once
    await settle()
    expect(written).toEqual([1])
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    const before = timers()
    now += 10
    recorder.arrived(now, 'here')
    recorder.maybeFlush(coordinator, now) // not due: a trailing timer
    expect(timers()).toBe(before) // unref'd: not an active handle
    await new Promise((r) => setTimeout(r, 120))
    expect(written).toEqual([1, 1])
  })
})
