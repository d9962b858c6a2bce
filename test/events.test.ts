/**
 * Scheduled events: validation, overrides, prequeue and the shuffle at the start.
 */
import { describe, expect, it } from 'vitest'
import { eventPhaseAt, normalizeEvents } from '../src/admission/events.ts'
import { waitingRoom } from '../src/index.ts'
import { seededRandom } from '../src/admission/plan.ts'
import { roomHarness, START, type Visit } from './support/room-harness.ts'

const MINUTE = 60_000
const at = (minutes: number) => new Date(START + minutes * MINUTE).toISOString()

describe('event validation', () => {
  it('refuses overlapping events with a clear error, and bad windows naming the field', () => {
    expect(() =>
      normalizeEvents([
        { id: 'launch', eventStartTime: at(10), eventEndTime: at(40) },
        { id: 'encore', prequeueStartTime: at(30), eventStartTime: at(45), eventEndTime: at(60) },
      ]),
    ).toThrow(/events "launch" and "encore" overlap/)
    expect(() => normalizeEvents([{ eventStartTime: at(10), eventEndTime: at(5) }])).toThrow(/events\.0\.eventEndTime: must be after eventStartTime/)
    expect(() => normalizeEvents([{ eventStartTime: at(10), eventEndTime: at(20), prequeueStartTime: at(15) }])).toThrow(/prequeueStartTime: must be before/)
    expect(() => waitingRoom({ events: [{ eventStartTime: 'soon', eventEndTime: at(5) } as never] })).toThrow(/events\.0\.eventStartTime/)
    expect(() => normalizeEvents([{ eventStartTime: at(1), eventEndTime: at(2), totalActiveUsers: 0 }])).toThrow(/totalActiveUsers/)
  })

  it('knows the phase at any time, and when it next changes', () => {
    const events = normalizeEvents([{ id: 'e', prequeueStartTime: at(5), eventStartTime: at(10), eventEndTime: at(20) }])
    expect(eventPhaseAt(events, START)).toMatchObject({ prequeueing: false, active: false, validUntil: START + 5 * MINUTE })
    expect(eventPhaseAt(events, START + 6 * MINUTE)).toMatchObject({ prequeueing: true, active: false, validUntil: START + 10 * MINUTE })
    expect(eventPhaseAt(events, START + 12 * MINUTE)).toMatchObject({ prequeueing: false, active: true, validUntil: START + 20 * MINUTE })
    expect(eventPhaseAt(events, START + 25 * MINUTE).event).toBeUndefined()
  })
})

describe('events in the room', () => {
  it('overrides limits while active and inherits the rest; variables say so', async () => {
    const room = roomHarness({
      totalActiveUsers: 100,
      newUsersPerMinute: 100,
      jsonResponseEnabled: true,
      events: [{ id: 'sale', eventStartTime: at(1), eventEndTime: at(30), totalActiveUsers: 2, newUsersPerMinute: 100, queueingMethod: null }],
    })
    room.advance(MINUTE)
    expect((await room.visit()).outcome).toBe('admitted')
    expect((await room.visit()).outcome).toBe('admitted')
    const queued = JSON.parse((await room.visit(undefined, { headers: { accept: 'application/json' } })).body).waitingRoom
    expect(queued).toMatchObject({ isEventActive: true, isEventPrequeueing: false, timeUntilEventEnd: 29, queueingMethod: 'fifo' })
  })

  it('prequeues users before the start and lets them in from the start, before later arrivals', async () => {
    const room = roomHarness({
      totalActiveUsers: 100,
      newUsersPerMinute: 3,
      jsonResponseEnabled: true,
      refreshIntervalSeconds: 20,
      events: [{ id: 'drop', prequeueStartTime: at(-2), eventStartTime: at(3), eventEndTime: at(30) }],
    })
    room.advance(MINUTE + 30_000)
    const prequeued: Visit[] = []
    for (let i = 0; i < 3; i++) prequeued.push(await room.visit(undefined, { headers: { accept: 'application/json' } }))
    const json = JSON.parse(prequeued[0]!.body).waitingRoom
    // Cloudflare counts the prequeue as part of the event: active, with both times formatted.
    expect(json).toMatchObject({ isEventPrequeueing: true, isEventActive: true, timeUntilEventStart: 2, timeUntilEventStartFormatted: '2 minutes' })
    expect(json).toMatchObject({ timeUntilEventEnd: 29, timeUntilEventEndFormatted: '29 minutes' })
    expect(prequeued.map((v) => v.outcome)).toEqual(['queued', 'queued', 'queued'])
    // Prequeued users keep checking in until the start.
    room.advance(50_000)
    for (const [i, visit] of prequeued.entries()) prequeued[i] = await room.visit(visit.cookie)
    expect(prequeued.map((v) => v.outcome)).toEqual(['queued', 'queued', 'queued'])
    room.advance(40_000) // now past the start
    const newcomer = await room.visit()
    expect(newcomer.outcome).toBe('queued') // the minute's 3 slots are reserved for the prequeued
    for (const [i, visit] of prequeued.entries()) prequeued[i] = await room.visit(visit.cookie)
    expect(prequeued.map((v) => v.outcome)).toEqual(['admitted', 'admitted', 'admitted'])
  })

  /** Prequeues 12 users of a shuffled event and returns the order in which they got in after the start. */
  async function shuffledOrder(seed: string): Promise<number[]> {
    const room = roomHarness({
      totalActiveUsers: 1000,
      newUsersPerMinute: 1,
      refreshIntervalSeconds: 20,
      random: seededRandom(seed),
      events: [{ id: 'drop', prequeueStartTime: at(-4), eventStartTime: at(1), eventEndTime: at(60), shuffleAtEventStart: true }],
    })
    let users: Visit[] = []
    for (let i = 0; i < 12; i++) users.push(await room.visit())
    const order: number[] = []
    const admitted = new Set<number>()
    for (let step = 0; step < 80 && admitted.size < 12; step++) {
      room.advance(20_000)
      users = await Promise.all(users.map((user, i) => (admitted.has(i) ? user : room.visit(user.cookie))))
      users.forEach((user, i) => {
        if (user.outcome === 'admitted' && !admitted.has(i)) {
          admitted.add(i)
          order.push(i)
        }
      })
    }
    expect(admitted.size).toBe(12)
    return order
  }

  it('shuffles prequeued users at the start: a draw that differs between seeds, and repeats for one seed', async () => {
    const one = await shuffledOrder('seed-1')
    const again = await shuffledOrder('seed-1')
    const two = await shuffledOrder('seed-2')
    expect(again).toEqual(one)
    expect(two).not.toEqual(one)
    expect(one).not.toEqual([...one].sort((a, b) => a - b)) // not arrival order
  })
})
