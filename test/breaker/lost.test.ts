/** #14.4: a backend swapped for an empty one must not let more than totalActiveUsers in (failMode closed). */
import { describe, expect, it } from 'vitest'
import { worker, losable, memoryCoordinator, START, MINUTE } from './harness.ts'

describe('lost state', () => {
  it('same minute: a worker with a fresh snapshot decides against the emptied counters (concurrent newcomers)', async () => {
    const clock = { now: START + 1000 }
    const { coordinator, lose } = losable()
    const w = worker(coordinator, clock, { totalActiveUsers: 3, newUsersPerMinute: 100 })
    for (let i = 0; i < 3; i++) expect((await w.request()).admitted).toBe(true)
    lose()
    clock.now += 1000 // the snapshot is 1 s old: still used
    const burst = await Promise.all(Array.from({ length: 6 }, () => w.request(undefined, { noSettle: true })))
    const got = burst.filter((r) => r.admitted).length
    console.log(`same minute after the loss: ${got} of 6 concurrent newcomers admitted (3 already active, limit 3)`)
    expect(got).toBe(0)
  })

  it('same minute, sequential newcomers', async () => {
    const clock = { now: START + 1000 }
    const { coordinator, lose } = losable()
    const w = worker(coordinator, clock, { totalActiveUsers: 3, newUsersPerMinute: 100 })
    for (let i = 0; i < 3; i++) expect((await w.request()).admitted).toBe(true)
    lose()
    clock.now += 1000
    let got = 0
    for (let i = 0; i < 6; i++) if ((await w.request()).admitted) got++
    console.log(`same minute after the loss, sequential: ${got} of 6 admitted`)
    expect(got).toBe(0)
  })


  it('fresh fleet: old sessions come back later (after the fleet filled the empty room)', async () => {
    const clock = { now: START + 1000 }
    const { coordinator, lose } = losable()
    const before = worker(coordinator, clock)
    const users = [await before.request(), await before.request(), await before.request()]
    lose()
    clock.now = START + 40_000
    const after = worker(coordinator, clock)
    const fresh = [await after.request(), await after.request(), await after.request()]
    clock.now = START + 50_000
    for (const u of users) expect((await after.request(u.cookie)).reason).toBe('session')
    // Inherent: the fresh fleet could not know of the old sessions before they showed up. What must hold: the room is
    // full (recovering) from then on, until the sessions from before the loss have expired.
    console.log(`fresh fleet, late old sessions: ${fresh.filter((f) => f.admitted).length} newcomers admitted before the old 3 checked in (inherent)`)
    await after.room.room.flush()
    let later = 0
    for (let m = 1; m <= 5; m++) {
      clock.now = START + m * MINUTE + 1000
      for (const u of [...users, ...fresh]) u.cookie = (await after.request(u.cookie)).cookie
      for (let i = 0; i < 2; i++) if ((await after.request()).admitted) later++
    }
    expect(later).toBe(0)
  })
})
