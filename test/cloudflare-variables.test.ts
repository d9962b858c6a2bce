/**
 * Cloudflare Waiting Room's documented template and JSON variables (issue 19, item 3): every name of its
 * list is in our JSON and our template variables, with the documented type, in every state the room can
 * answer in (FIFO, random, reject, queue-all, prequeue, an active event) — and the documented meanings of
 * the ones we compute: `waitTimeHours`/`waitTimeHourMinutes`, the random range in `waitTimeFormatted`,
 * `isEventActive` during the prequeue, the event times formatted, and `lastUpdated` that a refresh coming
 * too early does not move.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { roomHarness, START, type Visit } from './support/room-harness.ts'
import type { WaitingRoomOptions } from '../src/index.ts'
import type { EventPhase, RoomEvent } from '../src/admission/events.ts'
import type { QueueingMethod } from '../src/admission/plan.ts'
import type { RoomSettings } from '../src/admission/settings.ts'
import type { Snapshot } from '../src/admission/snapshot.ts'
import { LANGUAGES, MESSAGES } from '../src/page/messages.ts'
import { formatDuration, formatWaitBetween } from '../src/page/queue-page.ts'
import { queueVariables } from '../src/page/queue-variables.ts'

/**
 * Cloudflare's documented list, as written in its API reference — the `cfWaitingRoom` fields under
 * `json_response_enabled` (23 fields, numbered 1–23) and the two more that `custom_page_html` names
 * (`waitTimeHours`, `waitTimeHourMinutes`):
 * https://developers.cloudflare.com/api/resources/waiting_rooms/methods/create/
 * (read from Cloudflare's OpenAPI schemas `waitingroom_json_response_enabled` and
 * `waitingroom_custom_page_html`; the template guide, https://developers.cloudflare.com/waiting-room/how-to/customize-waiting-room/,
 * points to the same list). "Integer" and "Boolean" are Cloudflare's words; strings are its "String displaying …".
 */
const DOCUMENTED = {
  inWaitingRoom: 'boolean',
  waitTimeKnown: 'boolean',
  waitTime: 'integer',
  waitTime25Percentile: 'integer',
  waitTime50Percentile: 'integer',
  waitTime75Percentile: 'integer',
  waitTimeFormatted: 'string',
  queueIsFull: 'boolean',
  queueAll: 'boolean',
  lastUpdated: 'string',
  refreshIntervalSeconds: 'integer',
  queueingMethod: 'string',
  isFIFOQueue: 'boolean',
  isRandomQueue: 'boolean',
  isPassthroughQueue: 'boolean',
  isRejectQueue: 'boolean',
  isEventActive: 'boolean',
  isEventPrequeueing: 'boolean',
  timeUntilEventStart: 'integer',
  timeUntilEventStartFormatted: 'string',
  timeUntilEventEnd: 'integer',
  timeUntilEventEndFormatted: 'string',
  shuffleAtEventStart: 'boolean',
  waitTimeHours: 'integer',
  waitTimeHourMinutes: 'integer',
} as const

const NAMES = Object.keys(DOCUMENTED) as (keyof typeof DOCUMENTED)[]
const MINUTE = 60_000
const at = (minutes: number) => new Date(START + minutes * MINUTE).toISOString()
const JSON_ACCEPT = { headers: { accept: 'application/json' } }
/** A template printing every documented name, one a line: what an operator's template can read. */
const PRINT_ALL = NAMES.map((name) => `${name}={{${name}}}`).join('\n')

type Variables = Record<string, unknown>
const variablesOf = (visit: Visit): Variables => JSON.parse(visit.body).waitingRoom as Variables

function expectDocumentedTypes(variables: Variables, state: string): void {
  for (const name of NAMES) {
    const value = variables[name]
    const type = DOCUMENTED[name]
    expect(value, `${state}: ${name}`).not.toBeUndefined()
    if (type === 'integer') expect(Number.isInteger(value) && (value as number) >= 0, `${state}: ${name} = ${String(value)}`).toBe(true)
    else expect(typeof value, `${state}: ${name}`).toBe(type)
  }
  expect(['fifo', 'random', 'passthrough', 'reject'], state).toContain(variables.queueingMethod)
  expect(new Date(variables.lastUpdated as string).toISOString(), state).toBe(variables.lastUpdated) // ISO 8601
  // Cloudflare's definitions of the two hour fields.
  expect(variables.waitTimeHours, state).toBe(Math.floor((variables.waitTime as number) / 60))
  expect(variables.waitTimeHourMinutes, state).toBe((variables.waitTime as number) % 60)
}

/** The same request's JSON and HTML through a template printing every name: the same values. */
async function bothWays(options: WaitingRoomOptions, steps: (room: ReturnType<typeof roomHarness>) => Promise<void>, state: string): Promise<Variables> {
  const rooms = [roomHarness({ ...options, jsonResponseEnabled: true }), roomHarness({ ...options, template: PRINT_ALL })]
  for (const room of rooms) await steps(room)
  const json = variablesOf(await rooms[0]!.visit(undefined, JSON_ACCEPT))
  const html = (await rooms[1]!.visit()).body
  expectDocumentedTypes(json, state)
  const printed = Object.fromEntries(html.split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2)))
  for (const name of NAMES) expect(printed[name], `${state}: {{${name}}}`).toBe(escapeLikeMustache(String(json[name])))
  return json
}

function escapeLikeMustache(text: string): string {
  const map: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '/': '&#x2F;', '`': '&#x60;', '=': '&#x3D;' }
  return text.replace(/[&<>"'`=/]/g, (c) => map[c]!)
}

/** Fills a room of one slot, then queues `count` users, each with its own ticket. */
async function queueUsers(room: ReturnType<typeof roomHarness>, count: number): Promise<Visit[]> {
  expect((await room.visit()).outcome).toBe('admitted')
  const queued: Visit[] = []
  for (let i = 0; i < count; i++) queued.push(await room.visit())
  return queued
}

const BASE_SETTINGS: RoomSettings = {
  totalActiveUsers: 10,
  newUsersPerMinute: 10,
  sessionDurationMinutes: 5,
  disableSessionRenewal: false,
  queueingMethod: 'fifo',
  queueAll: false,
  suspended: false,
  queueingStatusCode: 200,
  template: undefined,
}

const small = { totalActiveUsers: 1, newUsersPerMinute: 1, sessionDurationMinutes: 1, random: () => 0 } satisfies WaitingRoomOptions

describe("Cloudflare's documented variables", () => {
  it('the documented list is 25 names, each in our JSON and template variables with its type, in every state', async () => {
    expect(NAMES).toHaveLength(25)
    const fifo = await bothWays(small, async (room) => void (await queueUsers(room, 3)), 'fifo')
    expect(fifo).toMatchObject({ inWaitingRoom: true, waitTimeKnown: true, isFIFOQueue: true, isEventActive: false })
    expect(fifo).toMatchObject({ timeUntilEventStartFormatted: 'unavailable', timeUntilEventEndFormatted: 'unavailable' })
    const random = await bothWays({ ...small, queueingMethod: 'random' }, async (room) => void (await queueUsers(room, 3)), 'random')
    expect(random).toMatchObject({ isRandomQueue: true, waitTimeKnown: true })
    const queueAll = await bothWays({ ...small, queueAll: true }, async () => {}, 'queue all')
    expect(queueAll).toMatchObject({ queueAll: true, waitTimeKnown: false, waitTimeFormatted: 'unavailable' })
    const reject = await bothWays({ ...small, queueingMethod: 'reject' }, async () => {}, 'reject')
    // Cloudflare: inWaitingRoom is "always true"; the reject page says what it is through isRejectQueue, and does not refresh.
    expect(reject).toMatchObject({ inWaitingRoom: true, isRejectQueue: true, refreshIntervalSeconds: 0 })
    const events = [{ id: 'drop', prequeueStartTime: at(1), eventStartTime: at(10), eventEndTime: at(30), shuffleAtEventStart: true }]
    const prequeue = await bothWays({ ...small, events }, async (room) => room.advance(2 * MINUTE), 'prequeue')
    expect(prequeue).toMatchObject({ isEventActive: true, isEventPrequeueing: true, timeUntilEventStart: 8, timeUntilEventStartFormatted: '8 minutes' })
    expect(prequeue).toMatchObject({ timeUntilEventEnd: 28, timeUntilEventEndFormatted: '28 minutes', shuffleAtEventStart: true })
    const during = await bothWays({ ...small, events }, async (room) => {
      room.advance(12 * MINUTE)
      await queueUsers(room, 2)
    }, 'event')
    expect(during).toMatchObject({ isEventActive: true, isEventPrequeueing: false, timeUntilEventStart: 0, timeUntilEventStartFormatted: 'unavailable' })
    expect(during).toMatchObject({ timeUntilEventEnd: 18, timeUntilEventEndFormatted: '18 minutes' })
  })

  it('waitTimeHours and waitTimeHourMinutes split the wait, past an hour too', async () => {
    const room = roomHarness({ ...small, jsonResponseEnabled: true })
    await queueUsers(room, 1)
    const seen: number[] = []
    for (let i = 0; i < 60; i++) {
      const variables = variablesOf(await room.visit(undefined, JSON_ACCEPT))
      expectDocumentedTypes(variables, `user ${i}`)
      seen.push(variables.waitTime as number)
    }
    expect(Math.max(...seen)).toBeGreaterThanOrEqual(60) // the split is exercised past an hour
    expect(new Set(seen.map((wait) => Math.floor(wait / 60))).size).toBeGreaterThan(1)
  })

  it('under random queueing, waitTimeFormatted is the 25th to 75th percentile, as Cloudflare phrases it', async () => {
    const room = roomHarness({ ...small, queueingMethod: 'random', jsonResponseEnabled: true })
    await queueUsers(room, 30)
    const variables = variablesOf(await room.visit(undefined, JSON_ACCEPT))
    const { waitTime25Percentile: low, waitTime75Percentile: high } = variables as { waitTime25Percentile: number; waitTime75Percentile: number }
    expect(low).toBeLessThan(high)
    expect(variables.waitTime).toBe(variables.waitTime50Percentile)
    // Past an hour in hours and minutes (formatDuration): "18 minutes to 1 hour, 26 minutes".
    expect(variables.waitTimeFormatted).toBe(`${formatDuration(low, 'en')} to ${formatDuration(high, 'en')}`)
    const german = JSON.parse((await room.visit(undefined, { headers: { accept: 'application/json', 'accept-language': 'de' } })).body).waitingRoom
    expect(german.waitTimeFormatted).toMatch(/^\d+ (?:Minuten|Stunden?) bis \d+ (?:Minuten|Stunden?)(?:, \d+ Minuten?)?$/)
  })

  it('lastUpdated is the last counted check-in: a refresh that comes too early does not move it', async () => {
    const room = roomHarness({ ...small, jsonResponseEnabled: true, refreshIntervalSeconds: 20 })
    await queueUsers(room, 0)
    room.advance(5_250)
    const first = await room.visit(undefined, JSON_ACCEPT)
    const queuedAt = variablesOf(first).lastUpdated
    expect(queuedAt).toBe(new Date(START + 5_000).toISOString())
    // 18 s is the interval's low end (jitter at 0); a check-in up to 1 s early still counts: 16.5 s is too early.
    for (const wait of [2_000, 7_000, 7_500]) {
      room.advance(wait)
      const early = variablesOf(await room.visit(first.cookie, JSON_ACCEPT))
      expect(early.lastUpdated, `${wait} ms later`).toBe(queuedAt)
      expect(early.refreshIntervalSeconds).toBeGreaterThan(0)
    }
    room.advance(1_500) // 18 s after the check-in: counted
    const counted = variablesOf(await room.visit(first.cookie, JSON_ACCEPT))
    expect(counted.lastUpdated).toBe(new Date(START + 23_000).toISOString())
  })
})

describe("Cloudflare's variables, over generated states", () => {
  const phaseArbitrary = fc.oneof(
    fc.constant({ kind: 'none' as const }),
    fc.record({ kind: fc.constantFrom('prequeue' as const, 'active' as const), toStart: fc.integer({ min: 1, max: 10_000_000 }), length: fc.integer({ min: 60_000, max: 100_000_000 }) }),
  )

  it('the documented meanings hold for any method, queue, event phase, language and check-in', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('fifo', 'random', 'passthrough', 'reject') as fc.Arbitrary<QueueingMethod>,
        fc.boolean(),
        fc.double({ min: 0, max: 5_000, noNaN: true }),
        fc.integer({ min: 0, max: 2_000_000 }),
        phaseArbitrary,
        fc.constantFrom(...LANGUAGES),
        fc.option(fc.integer({ min: 0, max: 600_000 }), { nil: undefined }),
        (method, queueAll, admissionsPerMinute, waitingUsers, phaseSpec, language, earlyBy) => {
          const now = START + 123_456
          let phase: EventPhase = { event: undefined, prequeueing: false, active: false, validUntil: Number.POSITIVE_INFINITY }
          if (phaseSpec.kind !== 'none') {
            const eventStartTime = phaseSpec.kind === 'prequeue' ? now + phaseSpec.toStart : now - phaseSpec.toStart
            const eventEndTime = phaseSpec.kind === 'prequeue' ? eventStartTime + phaseSpec.length : now + phaseSpec.length
            const event = { id: 'e', eventStartTime, eventEndTime, prequeueStartTime: eventStartTime - 600_000 } as RoomEvent
            phase = { event, prequeueing: phaseSpec.kind === 'prequeue', active: phaseSpec.kind === 'active', validUntil: now + 1 }
          }
          const settings = { ...BASE_SETTINGS, queueingMethod: method, queueAll, phase }
          const snapshot = { minute: Math.floor(now / MINUTE), admissionsPerMinute, waitingUsers, buckets: [] } as unknown as Snapshot
          const messages = MESSAGES[language]!
          const lastCountedAt = earlyBy === undefined ? undefined : now - earlyBy
          const v = queueVariables({ settings, snapshot, plan: undefined, bucketId: undefined, newlyQueued: true, refreshIntervalSeconds: 20, now, lastCountedAt, messages }) as unknown as Variables
          expectDocumentedTypes(v, `${method} ${language}`)
          expect(v.inWaitingRoom).toBe(true)
          expect(v.lastUpdated).toBe(new Date(Math.floor((lastCountedAt ?? now) / 1000) * 1000).toISOString())
          if (!v.waitTimeKnown) expect(v.waitTimeFormatted).toBe(messages.waitUnknown)
          if (method === 'random' && v.waitTimeKnown) {
            const [low, mid, high] = [v.waitTime25Percentile, v.waitTime50Percentile, v.waitTime75Percentile] as number[]
            expect(low! <= mid! && mid! <= high!).toBe(true)
            expect(v.waitTime).toBe(mid)
            expect(v.waitTimeFormatted).toBe(formatWaitBetween(low!, high!, messages))
          }
          expect(v.isEventActive).toBe(phase.prequeueing || phase.active)
          expect(v.timeUntilEventStartFormatted === messages.waitUnknown).toBe(!phase.prequeueing)
          expect(v.timeUntilEventEndFormatted === messages.waitUnknown).toBe(!(phase.prequeueing || phase.active))
          if (phase.prequeueing) expect(v.timeUntilEventStartFormatted).toContain(formatDuration(v.timeUntilEventStart as number, messages.lang))
          if (phase.prequeueing || phase.active) expect(v.timeUntilEventEndFormatted).toContain(formatDuration(v.timeUntilEventEnd as number, messages.lang))
        },
      ),
      { numRuns: 400, seed: 19 },
    )
  })
})
