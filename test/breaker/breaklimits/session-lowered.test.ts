/**
 * breaklimits (b): an admin lowers sessionDurationMinutes while the room recovers from a lost backend. The
 * recovery window is the session duration the asking worker sends (+1), so it shrinks; sessions admitted
 * before the loss must not then share the room with new users beyond totalActiveUsers.
 * Oracle: at every step, (old sessions still admitted when they check in) + (new users admitted) ≤ 3.
 */
import { describe, expect, it } from 'vitest'
import { losableSqlite } from '../../support/losable.ts'
import { START, worker } from '../harness.ts'

const ADMIN = { authorization: 'Bearer admin-token-0123456789abcdefghijkl', 'content-type': 'application/json' }

describe('session duration lowered during recovery', () => {
  for (const checkInOld of [true, false]) it(`old sessions ${checkInOld ? 'checking in' : 'idle'}: never more than totalActiveUsers`, async () => {
    const backend = losableSqlite()
    const clock = { now: START + 1000 }
    const w = worker(backend.coordinator, clock, { totalActiveUsers: 3, newUsersPerMinute: 100, sessionDurationMinutes: 10, syncIntervalMs: 0 })
    const old = [await w.request(), await w.request(), await w.request()]
    clock.now += 20_000
    backend.lose()
    const o = await w.request(old[0]!.cookie)
    old[0] = o
    expect(o.admitted).toBe(true)
    expect((await w.request()).admitted).toBe(false)
    const res = await w.app.request('/_admin/settings', { method: 'PATCH', headers: ADMIN, body: JSON.stringify({ sessionDurationMinutes: 1 }) })
    expect(res.status).toBe(200)
    const fresh: string[] = []
    let worst = 0
    for (let step = 0; step < 40; step++) {
      clock.now += 15_000
      let oldIn = 0
      if (checkInOld || step === 39) {
        for (let i = 0; i < old.length; i++) {
          const r = await w.request(old[i]!.cookie)
          if (r.admitted) { oldIn++; old[i] = r }
        }
      }
      const n = await w.request()
      if (n.admitted) fresh.push(n.cookie!)
      let freshIn = 0
      for (const c of fresh) if ((await w.request(c)).admitted) freshIn++
      worst = Math.max(worst, oldIn + freshIn)
      if (step === 39) expect({ oldIn, freshIn }).toEqual({ oldIn, freshIn: Math.min(freshIn, 3 - oldIn) })
    }
    expect(worst).toBeLessThanOrEqual(3)
  })
})
