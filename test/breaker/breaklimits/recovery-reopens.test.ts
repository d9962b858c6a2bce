/** breaklimits: refusals remembered per minute never hide a freed place; a room that lost its state reopens. */
import { describe, expect, it } from 'vitest'
import { losableSqlite } from '../../support/losable.ts'
import { losable, MINUTE, START, worker } from '../harness.ts'



async function fill(w: ReturnType<typeof worker>, n: number) {
  const cookies: string[] = []
  for (let i = 0; i < n; i++) {
    const r = await w.request()
    expect(r.admitted).toBe(true)
    cookies.push(r.cookie!)
  }
  return cookies
}

for (const [name, make] of [['memory', losable], ['sqlite', losableSqlite]] as const) {
  describe(`recovery reopens (b), ${name}`, () => {
    it('after a loss the grant step refuses, and reopens once the old sessions have expired', async () => {
      const backend = make()
      const clock = { now: START + 1000 }
      const opts = { totalActiveUsers: 3, sessionDurationMinutes: 2, syncIntervalMs: 0 }
      const a = worker(backend.coordinator, clock, opts)
      const b = worker(backend.coordinator, clock, opts)
      const cookies = await fill(a, 3)
      clock.now += 5000
      await b.request(cookies[0])
      backend.lose()
      clock.now += 5000
      const old = await a.request(cookies[1]) // an old session checks in: the loss is noticed
      expect(old.admitted).toBe(true)
      clock.now += 1000
      expect((await a.request()).admitted).toBe(false)
      expect((await b.request()).admitted).toBe(false)
      // every session from before has expired, plus the window (2 + 1 minutes): the room must reopen, in full
      clock.now += 6 * MINUTE
      const reasons: (string | null)[] = []
      for (let i = 0; i < 4; i++) {
        clock.now += 1000
        reasons.push((await (i % 2 ? b : a).request()).reason)
      }
      expect(reasons).toEqual(['slot', 'slot', 'slot', null])
    })
  })
}

for (const [name, make] of [['memory', losable], ['sqlite', losableSqlite]] as const) {
  describe(`recovery with an old session that never stops (b), ${name}`, () => {
    it('reopens the places the old session does not hold once the window has passed', async () => {
      const backend = make()
      const clock = { now: START + 1000 }
      const opts = { totalActiveUsers: 3, sessionDurationMinutes: 2, syncIntervalMs: 0 }
      const a = worker(backend.coordinator, clock, opts)
      const b = worker(backend.coordinator, clock, opts)
      let [keep] = await fill(a, 3)
      clock.now += 5000
      await b.request(keep)
      backend.lose()
      const queued: string[] = []
      const admittedAt: number[] = []
      const admittedUsers: string[] = []
      for (let step = 0; step < 16; step++) {
        clock.now += 30_000
        const r = await (step % 2 ? a : b).request(keep)
        expect(r.admitted).toBe(true)
        keep = r.cookie!
        const n = await (step % 2 ? b : a).request()
        if (n.admitted) { admittedAt.push(step); admittedUsers.push(n.cookie!) } else queued.push(n.cookie!)
        // queued users check in as their page tells them (every step is 30 s; refresh is 20 s)
        for (let i = queued.length - 1; i >= 0; i--) {
          clock.now += 100
          const q = await (i % 2 ? a : b).request(queued[i])
          if (q.admitted) { admittedAt.push(step); admittedUsers.push(q.cookie!); queued.splice(i, 1) } else queued[i] = q.cookie!
        }
        // admitted new users stay active
        for (let i = 0; i < admittedUsers.length; i++) admittedUsers[i] = (await a.request(admittedUsers[i])).cookie!
      }
      // 8 minutes: the window (2 + 1) is long over; the other two places went to users in line, and only two
      expect(admittedAt.length).toBe(2)
      expect(admittedAt.filter((s) => s < 4)).toEqual([])
    })
  })
}
