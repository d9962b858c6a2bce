/**
 * What the scripts leave in Redis: keys under one hash tag per room, every key with a TTL, old fields
 * deleted (not just hidden), silent locations dropped, and location names that survive REST decoding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { WorkerReport } from '../../src/coordination/state.ts'
import { upstashCoordinator, type UpstashCoordinator } from './index.ts'
import { COUNTER_TTL_SECONDS } from './scripts.ts'
import { MIRROR_MINUTES } from './sync-script.ts'
import { counterValue, openRedisFixture, type RedisFixture } from './test/fixture.ts'

const MINUTE = 29_405_520
const AT = MINUTE * 60_000

let fixture: RedisFixture
let coordinator: UpstashCoordinator
beforeAll(async () => {
  fixture = await openRedisFixture('store')
  coordinator = upstashCoordinator(fixture.rest(), { prefix: fixture.prefix })
})
afterAll(() => fixture.close())

let reports = 0
const report = (roomId: string, location: string, at: number, deltas: Record<string, number>, keepMinutes = 10): WorkerReport => ({
  id: `report-${++reports}`,
  roomId,
  location,
  at,
  keepMinutes,
  deltas,
})

describe('upstash storage layout', () => {
  it('keeps a room under one hash tag, and every key but the epoch and the generation expires', async () => {
    const roomId = 'layout'
    await coordinator.takeSlot({ roomId, location: 'SJC', minute: MINUTE, localLimit: 1, anywhereLimit: 1, token: 'a' })
    await coordinator.takeSlot({ roomId, location: 'SJC', minute: MINUTE, localLimit: 1, anywhereLimit: 1, token: 'b' })
    await coordinator.sync(report(roomId, 'SJC', AT, { [`t${MINUTE}`]: 2 }))
    const keys = (await fixture.tcp.keys(`${fixture.prefix}:*`)).filter((key) => key.includes('{layout}')).sort()
    const tag = `${fixture.prefix}:{${roomId}}`
    const forever = [`${tag}:epoch`, `${tag}:generation`]
    // Location hash and index: keepMinutes + 2; report ids: 10 min; each ticket's answer: 5 min; the minute's counters: 12 min.
    const expiring = {
      [`${tag}:l:SJC`]: 720, [`${tag}:locations`]: 720, [`${tag}:r:report-${reports}`]: 600,
      [`${tag}:a:${MINUTE}`]: COUNTER_TTL_SECONDS, [`${tag}:c:${MINUTE}:SJC`]: COUNTER_TTL_SECONDS, [`${tag}:k:${MINUTE}:a`]: 300, [`${tag}:k:${MINUTE}:b`]: 300,
    }
    expect(keys).toEqual([...forever, ...Object.keys(expiring)].sort())
    // The epoch and the generation never expire (README: persistence).
    expect(await Promise.all(forever.map((key) => fixture.tcp.ttl(key)))).toEqual([-1, -1])
    for (const [key, ttl] of Object.entries(expiring)) {
      const off = ttl - (await fixture.tcp.ttl(key))
      expect({ key, within5s: off >= 0 && off <= 5 }).toEqual({ key, within5s: true })
    }
    // Two slots, one per counter, and both admissions in SJC's state.
    expect(await fixture.tcp.mGet([`${tag}:a:${MINUTE}`, `${tag}:k:${MINUTE}:a`, `${tag}:k:${MINUTE}:b`])).toEqual(['1', expect.stringMatching(/^[0-9a-f]{16}\.1$/), expect.stringMatching(/^\*[0-9a-f]{16}\.1$/)]) // attempt.{request in its batch}
    expect(await fixture.tcp.hGetAll(`${tag}:l:SJC`)).toEqual({ [`~c${MINUTE}`]: '1', [`~h${MINUTE}`]: '1', [`t${MINUTE}`]: '2' })
  })

  it('shows a location that only took slots (its workers never reported), and bounds its keys’ life', async () => {
    const roomId = 'grant-only'
    await coordinator.takeSlot({ roomId, location: 'NRT', minute: MINUTE, localLimit: 0, anywhereLimit: 5, token: 'a' })
    await coordinator.takeSlot({ roomId, location: 'GRU', minute: MINUTE, localLimit: 5, anywhereLimit: 0, token: 'b' })
    const tag = `${fixture.prefix}:{${roomId}}`
    for (const key of [`${tag}:l:NRT`, `${tag}:locations`]) expect(await fixture.tcp.ttl(key)).toBeGreaterThan(86_000)
    // GRU's grant wrote only its counter key; the sync copies it into GRU's hash, which it creates with the backstop expiry.
    expect(await fixture.tcp.exists(`${tag}:l:GRU`)).toBe(0)
    const view = await coordinator.sync(report(roomId, 'SJC', AT + 1000, {}))
    expect(await fixture.tcp.ttl(`${tag}:l:GRU`)).toBeGreaterThan(86_000)
    expect(view.locations.NRT).toEqual({ updatedAt: AT, counts: { [`a${MINUTE}`]: 1, [`n${MINUTE}`]: 1, [`y${MINUTE}`]: 1 } })
    expect(view.locations.GRU).toEqual({ updatedAt: AT, counts: { [`a${MINUTE}`]: 1, [`n${MINUTE}`]: 1 } })
  })

  it('keeps a grant’s admission in the state once its counter key is gone: any sync of the next MIRROR_MINUTES copies it', async () => {
    for (const [i, late] of [0, 1, 4, MIRROR_MINUTES - 1].entries()) {
      const roomId = `mirror-${late}`
      const grants = 2 + i // a different count per room, so a value copied from another room or minute would show
      for (let t = 0; t < grants; t++) await coordinator.takeSlot({ roomId, location: 'NRT', minute: MINUTE, localLimit: 100, anywhereLimit: 0, token: `t${t}` })
      await coordinator.increment({ roomId, scope: 'NRT', location: 'NRT', minute: MINUTE, limit: 100, token: 'unfused' })
      // Reported by another location, `late` minutes on: NRT's own workers never report.
      const view = await coordinator.sync(report(roomId, 'SJC', AT + late * 60_000 + 1000, {}, 30))
      const counts = { [`a${MINUTE}`]: grants + 1, [`n${MINUTE}`]: grants + 1 }
      expect({ late, counts: view.locations.NRT?.counts }).toEqual({ late, counts })
      await fixture.tcp.del(`${fixture.prefix}:{${roomId}}:c:${MINUTE}:NRT`) // as its expiry would
      const after = await coordinator.sync(report(roomId, 'SJC', AT + (late + 3) * 60_000, {}, 30))
      expect({ late, counts: after.locations.NRT?.counts }).toEqual({ late, counts })
    }
  })

  it('counts an increment’s admission where the request says: its own location, another one, or nowhere (bare)', async () => {
    const roomId = 'kinds'
    const take = (scope: string, location: string | undefined, token: string) =>
      coordinator.increment({ roomId, scope, minute: MINUTE, limit: 5, token, ...(location ? { location } : {}) })
    for (const [scope, location, token] of [['SJC', 'SJC', 'own'], ['SJC', undefined, 'bare'], ['SJC', 'LHR', 'other'], ['*', 'LHR', 'any'], ['*', undefined, 'any-bare']] as const) {
      expect(await take(scope, location, token)).toMatchObject({ taken: true })
    }
    expect(await take('SJC', 'SJC', 'other')).toMatchObject({ taken: true, repeat: true }) // one slot per ticket and minute
    const view = await coordinator.sync(report(roomId, 'SJC', AT + 1000, {}))
    expect(view.locations.SJC?.counts).toEqual({ [`a${MINUTE}`]: 1, [`n${MINUTE}`]: 1 })
    expect(view.locations.LHR?.counts).toEqual({ [`a${MINUTE}`]: 2, [`n${MINUTE}`]: 2, [`y${MINUTE}`]: 1 })
    expect([await counterValue(fixture.tcp, fixture.prefix, roomId, 'SJC', MINUTE), await counterValue(fixture.tcp, fixture.prefix, roomId, '*', MINUTE)]).toEqual([3, 2])
  })

  it('deletes the reporting location’s fields once they age out of keepMinutes', async () => {
    const roomId = 'prune'
    await coordinator.sync(report(roomId, 'SJC', AT, { [`a${MINUTE}`]: 4, [`w${MINUTE}.${MINUTE - 1}`]: 2, [`x${MINUTE}.ticket-1`]: 1 }))
    await coordinator.takeSlot({ roomId, location: 'SJC', minute: MINUTE, localLimit: 1, anywhereLimit: 1, token: 'a' })
    await coordinator.takeSlot({ roomId, location: 'SJC', minute: MINUTE, localLimit: 1, anywhereLimit: 1, token: 'b' })
    await coordinator.sync(report(roomId, 'SJC', AT + 5 * 60_000, { [`a${MINUTE + 5}`]: 1 }))
    expect(await fixture.tcp.hLen(`${fixture.prefix}:{${roomId}}:l:SJC`)).toBe(6) // with the counters' ~c and ~h
    const view = await coordinator.sync(report(roomId, 'SJC', AT + 11 * 60_000, {}))
    expect(view.locations.SJC?.counts).toEqual({ [`a${MINUTE + 5}`]: 1 })
    expect(await fixture.tcp.hGetAll(`${fixture.prefix}:{${roomId}}:l:SJC`)).toEqual({ [`a${MINUTE + 5}`]: '1' })
  })

  it('deletes a field whose count returns to zero', async () => {
    const roomId = 'zero'
    await coordinator.sync(report(roomId, 'SJC', AT, { [`a${MINUTE}`]: 1, [`t${MINUTE}`]: 1 }))
    const view = await coordinator.sync(report(roomId, 'SJC', AT + 1, { [`a${MINUTE}`]: -1 }))
    expect(view.locations.SJC?.counts).toEqual({ [`t${MINUTE}`]: 1 })
    expect(await fixture.tcp.hExists(`${fixture.prefix}:{${roomId}}:l:SJC`, `a${MINUTE}`)).toBe(0)
  })

  it('drops a location that stayed silent past its window, and reports when each location last merged', async () => {
    const roomId = 'silent'
    await coordinator.sync(report(roomId, 'LHR', AT, { [`a${MINUTE}`]: 1 }))
    const both = await coordinator.sync(report(roomId, 'SJC', AT + 60_000, { [`a${MINUTE + 1}`]: 1 }))
    expect(both.locations.LHR?.updatedAt).toBe(AT)
    expect(both.locations.SJC?.updatedAt).toBe(AT + 60_000)
    const later = await coordinator.sync(report(roomId, 'SJC', AT + 13 * 60_000, {}))
    expect(Object.keys(later.locations)).toEqual(['SJC'])
    expect(await fixture.tcp.zScore(`${fixture.prefix}:{${roomId}}:locations`, 'LHR')).toBe(null)
  })

  it('returns location names that look like JSON unchanged over REST', async () => {
    const roomId = 'names'
    const names = ['123', 'true', 'null', '[1]', '{}', '"quoted"', 'a b:c']
    for (const name of names) await coordinator.sync(report(roomId, name, AT, { [`a${MINUTE}`]: 1 }))
    const view = await coordinator.sync(report(roomId, 'SJC', AT, {}))
    expect(Object.keys(view.locations).sort()).toEqual([...names, 'SJC'].sort())
    expect(view.locations['[1]']?.counts).toEqual({ [`a${MINUTE}`]: 1 })
  })

  it('lists a location first seen by a grant under its own name, braces and colons included (the index is named from its hash)', async () => {
    const roomId = 'grant-names'
    const names = ['{}', 'a}:l:b', '}', 'x{y}z']
    for (const [i, name] of names.entries()) {
      expect(await coordinator.takeSlot({ roomId, location: name, minute: MINUTE, localLimit: 1, anywhereLimit: 0, token: `t${i}` })).toMatchObject({ admitted: true })
    }
    expect(await coordinator.increment({ roomId, scope: '*', location: 'any}', minute: MINUTE, limit: 1, token: 'u' })).toMatchObject({ taken: true })
    const view = await coordinator.sync(report(roomId, 'SJC', AT + 1000, {}))
    expect(Object.keys(view.locations).sort()).toEqual([...names, 'any}', 'SJC'].sort())
    for (const name of names) expect(view.locations[name]).toEqual({ updatedAt: AT, counts: { [`a${MINUTE}`]: 1, [`n${MINUTE}`]: 1 } })
  })
})
