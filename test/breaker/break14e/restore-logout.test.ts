/**
 * break14e — a backend restored from an older copy LOGS OUT admitted users who keep browsing.
 * Promise (README "Security and reliability": an older copy put back is noticed, "then as after a lost state: full
 * until the sessions from before have expired"; issue 14 item 4: the room "rebuilds the active count from the tickets
 * that check in"; the renewal row: "an outage never logs out an admitted user"). A restore is how an outage of a
 * stateful store ends (Redis restarted from its last RDB, a SQLite backup put back).
 * Attack: sessions of D minutes; users admitted, renewing once a minute. A copy of the store is taken right after
 * their renewal in minute b (their registers: b); they renew in minutes b+1 … b+D (registers and cookies move on);
 * the copy is put back; in minute b+D+1 they check in with their newest cookies (confirmed, valid: counted in b+D).
 * Observed: every user is answered as a new user (queued) — the restored register (b) is below the renewal's window
 * (since = b+1) and, the cookie not being pending, moveStep answers MOVE_ENDED although the sealed cookie shows a
 * later confirmed count than the register. 3 of 3 logged out on SQLite and Redis, D = 1, 2 and 3, same or restarted
 * fleet. Expected: every user keeps the session (the room may be full for newcomers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { restorableRedis, restorableSqlite, type Restorable } from '../../support/losable.ts'
import { worker } from '../harness.ts'
import { MINUTE } from './support.ts'

const redis = restorableRedis('b14e-restore')
beforeAll(() => redis.connect())
afterAll(() => redis.close())

async function loggedOut(backend: Restorable, D: number, workers: number, restarted: boolean, seed: number, age = D) {
  const room = { totalActiveUsers: 3, newUsersPerMinute: 3, sessionDurationMinutes: D, syncIntervalMs: 0 }
  const m = 29_100_000 + seed * 20
  const clock = { now: m * MINUTE + 3_000 }
  let fleet = Array.from({ length: workers }, () => worker(backend.coordinator, clock, room))
  const flush = async () => { for (const w of fleet) await w.room.room.flush() }
  const users: { cookie: string | undefined }[] = []
  for (let i = 0; i < 3; i++) {
    const r = await fleet[i % workers]!.request()
    if (r.reason !== 'slot') throw new Error('setup: not admitted')
    users.push({ cookie: r.cookie })
  }
  const renewAll = async (minute: number) => {
    clock.now = minute * MINUTE + 4_000 + seed * 100
    const out = []
    for (const [i, u] of users.entries()) {
      const r = await fleet[(i + minute) % workers]!.request(u.cookie)
      out.push(r.reason)
      if (r.reason === 'session') u.cookie = r.cookie
    }
    await flush()
    return out
  }
  const b = m + 1
  expect(await renewAll(b)).toEqual(['session', 'session', 'session'])
  await backend.backup()
  for (let k = 1; k <= age; k++) expect(await renewAll(b + k)).toEqual(['session', 'session', 'session'])
  await backend.restore()
  if (restarted) fleet = Array.from({ length: workers }, () => worker(backend.coordinator, clock, room))
  const after = await renewAll(b + age + 1)
  return after.filter((reason) => reason !== 'session').length
}

describe('break14e: a store restored from an older copy never logs out an admitted user', () => {
  const cases: [string, () => Restorable][] = [['SQLite', restorableSqlite], ['Redis', () => redis.make()]]
  for (const [name, make] of cases) {
    for (const D of [1, 2, 3]) {
      it(`${name}: ${D}-minute sessions, copy ${D + 1} minutes old put back: 0 of 3 logged out (same and restarted fleets)`, async () => {
        const out: string[] = []
        for (const [workers, restarted] of [[1, false], [2, false], [2, true]] as const) {
          const lost = await loggedOut(make(), D, workers, restarted, D * 10 + workers + (restarted ? 5 : 0))
          if (lost) out.push(`${workers} worker(s)${restarted ? ' restarted' : ''}: ${lost} of 3 logged out`)
        }
        expect(out).toEqual([])
      }, 30_000)
    }
    it(`control (holds): ${name}, 2-minute sessions, copy 2 minutes old (its registers still in the window): 0 of 3 logged out`, async () => {
      expect(await loggedOut(make(), 2, 2, false, 77, 1)).toBe(0)
      expect(await loggedOut(make(), 2, 2, true, 78, 1)).toBe(0)
    }, 30_000)
  }
})
