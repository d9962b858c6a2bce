/** #14.6: a replayed cookie never counts twice in a minute on one worker. */
import { describe, expect, it } from 'vitest'
import { worker, memoryCoordinator, START, MINUTE, settle } from './harness.ts'

describe('replay dedupe', () => {
  it('baseline: 300 concurrent replays of one admitted and one queued cookie in a minute count once', async () => {
    const clock = { now: START + 1000 }
    const w = worker(memoryCoordinator(), clock, { totalActiveUsers: 1 })
    const a = await w.request()
    const q = await w.request()
    clock.now = START + MINUTE + 30_000
    await Promise.all(Array.from({ length: 300 }, (_, i) => w.request(i % 2 ? a.cookie : q.cookie, { noSettle: true })))
    await settle(); await w.room.room.flush()
    const s = await w.status()
    expect(s.locations.local.activeUsers).toBe(1)
    expect(s.locations.local.waitingUsers).toBe(1)
  })

  /** One real user; at the minute-2/3 boundary a minute-2 request (an unseen copy of the ticket) and a minute-3 one. */
  async function boundary(concurrent: boolean): Promise<number[]> {
    const clock = { now: START + 1000 }
    const w = worker(memoryCoordinator(), clock, { totalActiveUsers: 3, sessionDurationMinutes: 5 })
    const u = await w.request() // a0
    clock.now = START + MINUTE + 1000
    // Minute 1: every request with the minute-0 cookie renews and reseals: distinct texts of one ticket, none opened yet.
    const m1 = [] as string[]
    for (let i = 0; i < 3; i++) m1.push((await w.request(u.cookie)).cookie!)
    clock.now = START + 2 * MINUTE + 1000
    const m2 = (await w.request(m1[0])).cookie! // renewal into minute 2
    await w.request(m2) // opened once: remembered
    // Each request reads the clock when it starts. The minute-2 one opens an unseen cookie (one more await), so
    // concurrently it reaches the dedupe check after the minute-3 one that started 6 ms after it.
    clock.now = START + 3 * MINUTE - 5
    const old = w.request(m1[1], { noSettle: true })
    if (!concurrent) await old
    clock.now = START + 3 * MINUTE + 1
    const m3 = (await w.request(m2, { noSettle: true })).cookie!
    await old
    clock.now = START + 3 * MINUTE + 2
    await w.request(m3) // a replay in minute 3: must not count again
    await settle(); await w.room.room.flush()
    const seen: number[] = []
    let latest = m3
    for (let m = 4; m <= 9; m++) {
      clock.now = START + m * MINUTE + 1000
      latest = (await w.request(latest)).cookie! // the one real user keeps browsing
      await w.room.room.flush()
      seen.push((await w.status()).locations.local.activeUsers)
    }
    return seen
  }

  it('a request that read the clock just before a minute boundary resets the new minute\'s dedupe set (real concurrency, monotonic clock)', async () => {
    const seen = await boundary(true)
    console.log('concurrent: active users per minute 4..9 with ONE real user:', seen.join(' '))
    expect(Math.max(...seen)).toBe(1)
  })

  it('control: the same two requests one after the other count once', async () => {
    const seen = await boundary(false)
    console.log('sequential control:', seen.join(' '))
    expect(Math.max(...seen)).toBe(1)
  })

})
