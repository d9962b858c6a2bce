/**
 * The fused decision stays exact under concurrency (#16 reshaped its keys: a string key per ticket, the Anywhere
 * counter a string key, one MGET first). Generated rooms — 1 to 4 locations, limits from 0, a minute − 1 that gave
 * more than the workers saw reported, tickets asked twice, transport retries — sent all at once over TCP and REST:
 * each location grants exactly min(effective limit, its fresh tickets), the Anywhere pool exactly
 * min(effective limit, what the locations left over), every seq once from 0, every repeat answered as first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SlotRequest, SlotResult } from '../../src/coordination/coordinator.ts'
import { seededRandom } from '../../src/admission/plan.ts'
import { fromNodeRedis, upstashCoordinator, type UpstashCoordinator } from './index.ts'
import { counterValue, openRedisFixture, type RedisFixture } from './test/fixture.ts'

const MINUTE = 29_405_520

let fixture: RedisFixture
let clients: UpstashCoordinator[]
beforeAll(async () => {
  fixture = await openRedisFixture('exact')
  clients = [upstashCoordinator(fromNodeRedis(fixture.tcp), { prefix: fixture.prefix }), upstashCoordinator(fixture.rest(), { prefix: fixture.prefix })]
})
afterAll(() => fixture.close())

interface Room {
  roomId: string
  locations: { name: string; limit: number; before: number; reported: number; tickets: number }[]
  anywhere: { limit: number; before: number; reported: number }
}

function generate(seed: number): Room {
  const random = seededRandom(`exact-${seed}`)
  const int = (max: number) => Math.floor(random() * (max + 1))
  const locations = Array.from({ length: 1 + int(3) }, (_, i) => {
    const before = int(6)
    return { name: `L${i}`, limit: int(25), before, reported: int(before), tickets: int(60) }
  })
  const before = int(6)
  return { roomId: `exact-${seed}`, locations, anywhere: { limit: int(30), before, reported: int(before) } }
}

/** Minute − 1's grants: `before` slots from each counter, with limits that let exactly those through. */
async function fillMinuteBefore(room: Room): Promise<void> {
  const take = (location: string, localLimit: number, anywhereLimit: number, token: string) =>
    clients[0]!.takeSlot({ roomId: room.roomId, location, minute: MINUTE - 1, localLimit, anywhereLimit, token })
  for (const { name, before } of room.locations) {
    for (let i = 0; i < before; i++) expect(await take(name, before, 0, `${name}-before-${i}`)).toMatchObject({ via: 'location' })
  }
  for (let i = 0; i < room.anywhere.before; i++) expect(await take('L0', 0, room.anywhere.before, `any-before-${i}`)).toMatchObject({ via: 'anywhere' })
}

const effective = (limit: number, before: number, reported: number) => Math.max(0, limit - Math.max(0, before - reported))

describe('upstash takeSlot: exact under concurrency, generated rooms', () => {
  for (const seed of [1, 2, 3, 16, 404, 9001]) {
    it(`seed ${seed}`, async () => {
      const room = generate(seed)
      await fillMinuteBefore(room)
      const request = (location: Room['locations'][number], token: string): SlotRequest => ({
        roomId: room.roomId, location: location.name, minute: MINUTE, token,
        localLimit: location.limit, anywhereLimit: room.anywhere.limit,
        localPreviousReported: location.reported, anywherePreviousReported: room.anywhere.reported,
      })
      const asks: { token: string; location: string; ask: Promise<SlotResult> }[] = []
      const random = seededRandom(`order-${seed}`)
      for (const location of room.locations) {
        for (let i = 0; i < location.tickets; i++) {
          const token = `${location.name}-t${i}`
          const coordinator = clients[Math.floor(random() * clients.length)]!
          asks.push({ token, location: location.name, ask: coordinator.takeSlot(request(location, token)) })
          // Some tickets ask again at once (a replayed cookie, the other client): answered, never counted twice.
          if (random() < 0.2) asks.push({ token, location: location.name, ask: clients[1 - clients.indexOf(coordinator)]!.takeSlot(request(location, token)) })
        }
      }
      const answers = await Promise.all(asks.map(async (a) => ({ ...a, result: await a.ask })))

      const fresh = answers.filter((a) => a.result.admitted && !a.result.repeat)
      const leftOver = room.locations.reduce((sum, l) => sum + Math.max(0, l.tickets - effective(l.limit, l.before, l.reported)), 0)
      const expected = {
        locations: Object.fromEntries(room.locations.map((l) => [l.name, Math.min(l.tickets, effective(l.limit, l.before, l.reported))])),
        anywhere: Math.min(leftOver, effective(room.anywhere.limit, room.anywhere.before, room.anywhere.reported)),
      }
      const got = {
        locations: Object.fromEntries(room.locations.map((l) => [l.name, fresh.filter((a) => a.location === l.name && a.result.via === 'location').length])),
        anywhere: fresh.filter((a) => a.result.via === 'anywhere').length,
      }
      expect(got).toEqual(expected)
      // One fresh grant per ticket; a ticket's second answer is its first one, flagged.
      expect(new Set(fresh.map((a) => a.token)).size).toBe(fresh.length)
      for (const a of answers.filter((a) => a.result.repeat)) expect(fresh.find((f) => f.token === a.token)?.result.via).toBe(a.result.via)
      // Sequence numbers: each counter's 0 … n − 1, once each.
      const seqs = (pick: (a: (typeof fresh)[number]) => boolean) => fresh.filter(pick).map((a) => a.result.seq).sort((x, y) => x! - y!)
      for (const l of room.locations) expect(seqs((a) => a.location === l.name && a.result.via === 'location')).toEqual([...Array(expected.locations[l.name]).keys()])
      expect(seqs((a) => a.result.via === 'anywhere')).toEqual([...Array(expected.anywhere).keys()])
      // What Redis holds agrees with the answers.
      for (const l of room.locations) expect(await counterValue(fixture.tcp, fixture.prefix, room.roomId, l.name, MINUTE)).toBe(expected.locations[l.name])
      expect(await counterValue(fixture.tcp, fixture.prefix, room.roomId, '*', MINUTE)).toBe(expected.anywhere)
    }, 60_000)
  }
})
