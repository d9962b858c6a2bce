/**
 * `takeSlots` (#16, batch17) against the real redis-server: generated batches — sizes 1 to 64, limits from 0,
 * tickets asked twice (in one batch and across batches), several locations and Anywhere-only requests, two minutes
 * (the second's minute − 1 is the first: previous-reported limits read counters the batch itself moved), re-entries,
 * a stale view of the room (the grant-time loss check) — decided in batches answer exactly what the same requests
 * decided one at a time answer, leave the same keys behind, and agree with the core's two-call path over the
 * increment script (an independent Lua body). A batch resent after a lost answer gets the same answers and takes
 * nothing more.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { takeSlot, type Coordinator, type SlotRequest, type SlotResult } from '../../src/coordination/coordinator.ts'
import { fromNodeRedis, upstashCoordinator, type RedisScripting, type UpstashCoordinator } from './index.ts'
import { openRedisFixture, type RedisFixture } from './test/fixture.ts'

const MINUTE = 29_405_520

let fixture: RedisFixture
beforeAll(async () => {
  fixture = await openRedisFixture('batch')
})
afterAll(() => fixture.close())

/** A client that remembers each EVALSHA it sent with its reply, so a test can resend it as a transport retry would. */
function recording(client: RedisScripting) {
  const sent: { sha1: string; keys: string[]; args: string[]; reply: unknown }[] = []
  const wrapped: RedisScripting = {
    evalsha: async (sha1, keys, args) => {
      const reply = await client.evalsha(sha1, keys, args)
      sent.push({ sha1, keys, args, reply })
      return reply
    },
    eval: (script, keys, args) => client.eval(script, keys, args),
  }
  return { wrapped, sent }
}

/** Every key of a room with its value (a ticket's answer without its random attempt), its type and whether it expires. */
async function roomState(roomId: string): Promise<Record<string, unknown>> {
  const tcp = fixture.tcp
  const state: Record<string, unknown> = {}
  const room = `${fixture.prefix}:{${roomId}}`
  for await (const keys of tcp.scanIterator({ MATCH: `${room}:*`, COUNT: 1000 })) {
    // All at once: node-redis pipelines them.
    await Promise.all(keys.map(async (key) => {
      const type = await tcp.type(key)
      const [value, ttl] = await Promise.all([
        type === 'string' ? tcp.get(key) : type === 'hash' ? tcp.hGetAll(key) : type === 'zset' ? tcp.zRangeWithScores(key, 0, -1) : type,
        tcp.ttl(key),
      ])
      const name = key.slice(room.length)
      state[name] = { value: name.startsWith(':k:') ? String(value).startsWith('*') : value, expires: ttl > 0 }
    }))
  }
  return state
}

const viewArbitrary = fc.constantFrom(undefined, undefined, undefined, 'own', 'own', 'ahead', 'stale')
/** What requests of one location and view share (a crowd's requests mostly share one: the script's profiles). */
const profileArbitrary = fc.record({
  location: fc.constantFrom('SJC', 'FRA', 'NRT'),
  later: fc.boolean(),
  localLimit: fc.integer({ min: 0, max: 10 }),
  anywhereLimit: fc.integer({ min: 0, max: 8 }),
  localPreviousReported: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  anywherePreviousReported: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  recoveryMinutes: fc.constantFrom(undefined, 0, 31),
  view: viewArbitrary,
})
/** 1–90 requests over 1–6 profiles, each with its ticket (of a pool of 41: some asked twice) and sometimes a re-entry. */
const requestsArbitrary = fc
  .tuple(
    fc.array(profileArbitrary, { minLength: 1, maxLength: 6 }),
    fc.array(fc.record({ pick: fc.nat(), token: fc.integer({ min: 0, max: 40 }), reentry: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined, freq: 6 }) }), { minLength: 1, maxLength: 90, size: 'max' }),
  )
  .map(([profiles, picks]) => picks.map(({ pick, ...own }) => ({ ...profiles[pick % profiles.length]!, ...own })))
type Generated = (typeof requestsArbitrary extends fc.Arbitrary<(infer T)[]> ? T : never)

let rooms = 0
/** A room synced once (its epoch and generation: what a worker's view holds), and the requests as its worker would send them. */
async function prepare(coordinator: Coordinator, generated: Generated[], lossy: boolean): Promise<{ roomId: string; requests: SlotRequest[] }> {
  const roomId = `batch-${++rooms}`
  // Long enough ago that the first sync's loss mark (a new room reads as a lost one) is past every recovery window.
  const state = await coordinator.sync({ id: 'first-sync', roomId, location: 'SJC', at: (MINUTE - 40) * 60_000, keepMinutes: 30, deltas: {} })
  const requests = generated.map((g): SlotRequest => {
    const { later, reentry, token, ...rest } = g
    // A view that marks a loss refuses every fresh grant after it (but those with a recovery window of 0): only in lossy cases.
    const view = lossy || g.view === undefined ? g.view : 'own'
    const request: SlotRequest = { ...rest, roomId, minute: later ? MINUTE + 1 : MINUTE, token: `t${token}`, localLimit: g.localLimit || (g.anywhereLimit ? 0 : 1) }
    if (view) {
      request.epoch = view === 'stale' ? 'an-epoch-long-gone' : state.epoch!.id
      request.generation = (state.generation ?? 0) + (view === 'ahead' ? 1 : 0)
    }
    if (reentry !== undefined) request.reentry = { ticket: `t${token}`, since: MINUTE - reentry }
    return request
  })
  return { roomId, requests }
}

const withoutTrips = ({ roundTrips: _, ...rest }: SlotResult) => rest

describe('upstash takeSlots: batches decide as single calls do', () => {
  let coordinator: UpstashCoordinator
  let sent: ReturnType<typeof recording>['sent']
  beforeAll(() => {
    const client = recording(fromNodeRedis(fixture.tcp))
    sent = client.sent
    coordinator = upstashCoordinator(client.wrapped, { prefix: fixture.prefix })
  })

  it('generated batches: same answers and keys as one call at a time; the two-call path agrees; a resent batch takes nothing more', async () => {
    await fc.assert(
      fc.asyncProperty(requestsArbitrary, fc.array(fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 64 })), { minLength: 1, maxLength: 6 }), fc.boolean(), async (generated, sizes, lossy) => {
        // One at a time (a batch of one each), awaited in order.
        const one = await prepare(coordinator, generated, lossy)
        const alone: SlotResult[] = []
        for (const request of one.requests) alone.push(await coordinator.takeSlot(request))
        // In batches of the generated sizes; each batch resent once after its answer, as a transport retry would.
        const many = await prepare(coordinator, generated, lossy)
        const batched: SlotResult[] = []
        for (let at = 0, i = 0; at < many.requests.length; i++) {
          const batch = many.requests.slice(at, (at += sizes[i % sizes.length]!))
          batched.push(...(await coordinator.takeSlots(batch)))
          const last = sent.at(-1)!
          // A grant is answered as the first time (its counter and no repeat flag; a retry's answer carries no seq, as a
          // single call's never did); a refusal stays one (perhaps `recovering` now: the batch may have marked a loss)
          // or is a repeat (its ticket was granted later in the batch); the state check below shows nothing more was taken.
          const first = last.reply as number[]
          const again = (await fixture.tcp.evalSha(last.sha1, { keys: last.keys, arguments: last.args })) as number[]
          expect(again.map((code, j) => (first[j]! > 0 ? code & 7 : code <= 0 || (code & 4) === 4))).toEqual(first.map((code) => (code > 0 ? code & 7 : true)))
        }
        expect(batched.map(withoutTrips)).toEqual(alone.map(withoutTrips))
        expect(await roomState(many.roomId)).toEqual(await roomState(one.roomId))
        // The core's two-call path (the increment script): the same grants, refusals and repeats.
        const { takeSlot: _a, takeSlots: _b, ...twoCalls } = coordinator
        const two = await prepare(coordinator, generated, lossy)
        for (const [i, request] of two.requests.entries()) {
          const got = await takeSlot(twoCalls, request)
          const fresh = got.admitted && !got.repeat
          const expected = alone[i]!
          expect({ admitted: got.admitted, repeat: got.repeat === true, recovering: got.recovering === true, ...(fresh ? { via: got.via, seq: got.seq } : {}) }).toEqual({
            admitted: expected.admitted, repeat: expected.repeat === true, recovering: expected.recovering === true, ...(fresh ? { via: expected.via, seq: expected.seq } : {}),
          })
        }
      }),
      { numRuns: 40 },
    )
  }, 180_000)

  it('a batch of one is one round trip; in a batch the first answer carries the round trip, the others share it', async () => {
    const slot = (token: string): SlotRequest => ({ roomId: 'trips', location: 'SJC', minute: MINUTE, localLimit: 3, anywhereLimit: 1, token })
    await coordinator.takeSlot(slot('warm-up'))
    expect((await coordinator.takeSlot(slot('one'))).roundTrips).toBe(1)
    const results = await coordinator.takeSlots(['a', 'b', 'c', 'a'].map(slot))
    expect(results.map((r) => [r.roundTrips, r.via ?? 'queued', r.repeat === true])).toEqual([[1, 'location', false], [0, 'anywhere', false], [0, 'queued', false], [0, 'location', true]])
  })

  it('over REST: a batch answers per request, rooms apart', async () => {
    const rest = upstashCoordinator(fixture.rest(), { prefix: fixture.prefix })
    const slot = (roomId: string, token: string): SlotRequest => ({ roomId, location: 'SJC', minute: MINUTE, localLimit: 1, anywhereLimit: 1, token })
    const results = await rest.takeSlots([slot('rest-1', 'a'), slot('rest-2', 'a'), slot('rest-1', 'b'), slot('rest-1', 'c'), slot('rest-2', 'b')])
    expect(results.map((r) => r.via ?? 'queued')).toEqual(['location', 'location', 'anywhere', 'queued', 'anywhere'])
    expect(await rest.takeSlots([])).toEqual([])
  })
})
